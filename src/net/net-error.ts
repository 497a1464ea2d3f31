// The error for network config that cannot be used as given; its message names the key.
import { KilnError } from '../util/errors';

export class NetworkConfigError extends KilnError {
  override readonly name = 'NetworkConfigError';
  constructor(
    /** Dotted path of the offending key, e.g. `network.ethernets.eth0.addresses[1]`. */
    readonly key: string,
    reason: string,
  ) {
    super(`invalid network config at ${key}: ${reason}`);
  }
}
