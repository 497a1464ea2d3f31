// The temporary DHCP lease an Azure crawl holds, which the preprovisioned-VM flow drops and takes again (on a new NIC after a swap).
import type { Log } from '../../util/log';
import type { StaticRoute } from '../ephemeral-network/dhcp-static-routes';
import type { EphemeralLease, EphemeralNetwork } from '../ephemeral-network/ephemeral-network';

/**
 * cloud-init's _setup/_teardown_ephemeral_networking as one object: at most one lease at a time. Without a
 * network to take leases from (the init stage, where the system's network is up), every call does nothing.
 */
export class AzureLease {
  private lease: EphemeralLease | undefined;

  constructor(
    private readonly network: EphemeralNetwork | undefined,
    private readonly log: Log,
  ) {}

  /** True when kiln brings the network up itself (init-local). */
  get managed(): boolean {
    return this.network !== undefined;
  }

  /** True when a lease is held, or when the network is not kiln's to manage (it is assumed up). */
  get isUp(): boolean {
    return !this.network || this.lease !== undefined;
  }

  /** The NIC the lease is on. */
  get interface(): string | undefined {
    return this.lease?.interface;
  }

  /** The held lease's option 121 routes (none without a lease). */
  get staticRoutes(): readonly StaticRoute[] {
    return this.lease?.staticRoutes ?? [];
  }

  /** Takes a lease (on NIC, else on the fallback NIC) unless one is held; throws when DHCP gets none. */
  async up(nic?: string): Promise<void> {
    if (!this.network || this.lease) return;
    this.lease = await this.network.up(nic ? { interface: nic } : undefined);
  }

  /** Releases the lease; a NIC unplugged under it makes the release fail, which is expected and only logged. */
  async down(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    if (!lease) return;
    try {
      await lease.release();
    } catch (err) {
      this.log.info(`Azure: ignoring a failure while releasing the temporary lease on ${lease.interface} (the NIC was likely unplugged): ${(err as Error).message}`);
    }
  }
}
