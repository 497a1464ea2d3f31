// A module's own semaphore (cloud-init's cloud.run with a frequency): taken once, before the work, and kept when
// the work fails, as cloud-init's runner keeps it.
import type { Platform } from '../../platform/platform';
import { markerText } from '../../util/marker-text';

/** Takes the semaphore at PATH: false when an earlier run has it already, else writes it and returns true. */
export async function takeSemaphore(platform: Platform, path: string): Promise<boolean> {
  if (await platform.exists(path)) return false;
  await platform.writeFile(path, markerText());
  return true;
}
