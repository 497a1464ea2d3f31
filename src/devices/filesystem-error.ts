// The error every device reader throws: a corrupt, hostile or unreadable filesystem, partition table or device.
import { KilnError } from '../util/errors';

/** Names the device or image and what in it could not be used, so a person can find the bad structure. */
export class FilesystemError extends KilnError {
  override readonly name = 'FilesystemError';
  constructor(device: string, reason: string, options?: { cause?: unknown }) {
    super(`${device}: ${reason}`, options);
  }
}
