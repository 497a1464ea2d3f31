// What bringing up a temporary network can fail with; sources/ephemeral-lease.ts turns it into the source's own error.
import { SubjectError } from '../../util/errors';

/** No temporary network: the subject ('ephemeral-dhcp', 'ephemeral-ipv6', 'ephemeral-link-local') and why. */
export class EphemeralNetworkError extends SubjectError {
  override readonly name: string = 'EphemeralNetworkError';
}

/**
 * The temporary network may not be brought up here without touching a network that is not the target's (a --root
 * sandbox in the host's network namespace): not a failure of the network, a reason to leave the source to the init
 * stage.
 */
export class HostNetworkRefused extends EphemeralNetworkError {
  override readonly name = 'HostNetworkRefused';
}
