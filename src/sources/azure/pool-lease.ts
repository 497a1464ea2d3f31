// The temporary DHCP lease an Azure crawl holds, which the preprovisioned-VM flow drops and takes again (on a new NIC
// after a swap).
import type { Log } from '../../util/log';
import type { StaticRoute } from '../../net/ephemeral/dhcp-static-routes';
import type { EphemeralLease, EphemeralNetwork } from '../../net/ephemeral/ephemeral-network';
import { ephemeralLease } from '../ephemeral-lease';
import { describeError } from '../../util/errors';

/** The address a primary NIC's option 121 routes lead to (cloud-init names it so, whatever metadata_urls say). */
const IMDS_ADDRESS = '169.254.169.254';

/**
 * cloud-init 25.1's _check_if_primary: a lease is on the primary NIC when its option 121 ROUTES lead to IMDS
 * or to WIRESERVER (Azure's DHCP gives them to the primary NIC only).
 */
export function routesToAzure(routes: readonly StaticRoute[], wireserver: string): boolean {
  const routed = routes.map((r) => r.destination.split('/')[0]);
  return routed.includes(IMDS_ADDRESS) || routed.includes(wireserver);
}

/** What a crawl does with a lease that is not on the primary NIC (25.1 reports it to the host and goes on). */
export interface SecondaryLeaseReport {
  /** The wireserver's address the routes are looked at for (option 245 of the lease, else 168.63.129.16). */
  wireserverAddress(): Promise<string>;
  report(nic: string, routes: readonly StaticRoute[], wireserver: string): Promise<void>;
}

/**
 * cloud-init's _setup/_teardown_ephemeral_networking as one object: at most one lease at a time. Without a
 * network to take leases from (the init stage, where the system's network is up), every call does nothing.
 * With SECONDARY, a lease that does not route to IMDS or the wireserver is reported to it, as 25.1 reports
 * each lease it takes outside the wait for a hot-attached NIC.
 */
export class AzureLease {
  private lease: EphemeralLease | undefined;

  constructor(
    private readonly network: EphemeralNetwork | undefined,
    private readonly log: Log,
    private readonly secondary?: SecondaryLeaseReport,
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

  /**
   * Takes a lease (on NIC, else on the fallback NIC) unless one is held; throws when DHCP gets none. A lease not
   * on the primary NIC is reported unless reportSecondary is false (the NIC swap tells primary NICs itself).
   */
  async up(nic?: string, { reportSecondary = true }: { reportSecondary?: boolean } = {}): Promise<void> {
    if (!this.network || this.lease) return;
    const lease = await ephemeralLease(this.network, nic ? { interface: nic } : undefined);
    this.lease = lease;
    if (!this.secondary || !reportSecondary) return;
    const wireserver = await this.secondary.wireserverAddress();
    if (!routesToAzure(this.staticRoutes, wireserver))
      await this.secondary.report(lease.interface, this.staticRoutes, wireserver);
  }

  /** Releases the lease; a NIC unplugged under it makes the release fail, which is expected and only logged. */
  async down(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    if (!lease) return;
    try {
      await lease.release();
    } catch (err) {
      this.log.info(
        `Azure: ignoring a failure while releasing the temporary lease on ${lease.interface} (the NIC was likely unplugged): ${describeError(err)}`,
      );
    }
  }
}
