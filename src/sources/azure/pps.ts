// Azure's preprovisioned (pool) VMs reprovisioned as cloud-init 25.1 does: report ready for the pool, wait to be
// claimed, then fetch the customer's ovf-env.xml from IMDS reprovisiondata.
import type { Platform } from '../../platform/platform';
import { abortableSleep, HttpError, type HttpClient } from '../../util/http';
import { deadlineSignal } from '../../util/timeout-signal';
import type { Log } from '../../util/log';
import { linkList, VIRTUAL_NIC } from '../../net/ephemeral/ephemeral-network';
import { SourceError } from '../source-error';
import { IMDS_VERSION_MIN } from './imds';
import type { KvpTelemetry } from './kvp';
import { routesToAzure, type AzureLease } from './pool-lease';
import { markerText } from '../../util/marker-text';
import { describeError } from '../../util/errors';

/** cloud-init's marker: the VM reported ready while in the pool; on a later boot it is a PPS VM of type Unknown. */
export const REPORTED_READY_MARKER = '/var/lib/cloud/data/reported_ready';
/** cloud-init's IMDS_TIMEOUT_IN_SECONDS, for each reprovisiondata poll. */
const IMDS_ATTEMPT_MS = 2000;

/**
 * The PPS types that are reprovisioned (OS Disk VMs are shut down by the host instead, which kiln does not wait for).
 */
export type ReprovisionedPps = 'Running' | 'Savable' | 'Unknown';

export interface PpsSettings {
  /**
   * The whole wait to be claimed (the NIC swap and the polling). cloud-init waits without end; kiln gives up
   * after this and provisions with the pool's data, so that a VM nobody claims still finishes booting.
   */
  maxWaitMs: number;
  /** Between reprovisiondata polls (cloud-init's readurl: a second). */
  pollIntervalMs: number;
  /** Between two looks at the machine's NICs while waiting for the swap. */
  nicPollIntervalMs: number;
  /** DHCP on a newly attached NIC (cloud-init: 20 minutes), within maxWaitMs. */
  dhcpMaxWaitMs: number;
}

export interface PpsContext {
  platform: Platform;
  log: Log;
  client: HttpClient;
  /** IMDS: 'http://169.254.169.254' or a mock's URL. */
  imdsBase: string;
  lease: AzureLease;
  settings: PpsSettings;
  /**
   * The wireserver's address (option 245 of the lease held, else 168.63.129.16): a primary NIC's lease routes to it.
   */
  wireserverAddress(): Promise<string>;
  /** The goal state and a Ready health report to the wireserver (the provisioning medium ejected first). */
  reportReady(): Promise<void>;
  kvp?: KvpTelemetry;
  signal?: AbortSignal;
}

/** A step of the reprovisioning flow that failed or timed out; the crawl goes on with the pool's data. */
export class PreprovisioningFailed extends SourceError {}

/** ERR's message without the 'Azure: ' its subject put in front, to be quoted inside another Azure message. */
export function azureReason(err: unknown): string {
  const message = describeError(err);
  return err instanceof SourceError && err.subject === 'Azure' ? message.slice('Azure: '.length) : message;
}

/**
 * The customer's ovf-env.xml for a pool VM of TYPE. Running: report ready for the pool, then poll; Savable:
 * report ready, wait for the NIC swap, take a lease on the new primary NIC, then poll; Unknown (the pool report
 * went out on an earlier boot): poll only. Throws PreprovisioningFailed when a step fails or the wait runs out.
 */
export async function reprovision(p: PpsContext, type: ReprovisionedPps): Promise<Uint8Array> {
  const deadline = deadlineSignal(Math.max(1, p.settings.maxWaitMs), p.signal);
  const event = (message: string) => {
    p.log.info(`Azure: ${message}`);
    p.kvp?.diagnostic(`Azure: ${message}`);
  };
  if (type === 'Running') {
    await reportForPool(p, false);
    // cloud-init then waits on a netlink socket for the vnet switch (the carrier dropping and coming back)
    // and takes a new lease. Node has no netlink socket: kiln polls at once instead, and a poll that fails other
    // than with 404/410 (the switch took the old lease's network away) renews the lease, as cloud-init's loop does.
    event('reported ready while in the preprovisioning pool; polling IMDS for the reprovisioning data');
  } else if (type === 'Savable') {
    await waitForNicSwap(p, deadline, event);
  } else {
    event(
      'the ready report for the pool went out on an earlier boot (PPS type Unknown); polling IMDS for the reprovisioning data',
    );
  }
  return pollReprovisionData(p, deadline);
}

/** cloud-init's _report_ready_for_pps: the ready report, then the marker. */
async function reportForPool(p: PpsContext, expectUrlError: boolean): Promise<void> {
  try {
    await p.reportReady();
  } catch (err) {
    // A Savable VM may lose its NIC or be saved before the answer arrives: no harm, the pool discards it if so.
    if (!(expectUrlError && err instanceof HttpError))
      throw new PreprovisioningFailed(
        'Azure',
        `could not report ready while in the preprovisioning pool: ${azureReason(err)}`,
        { cause: err },
      );
    p.log.debug(`Azure: ignoring the failed ready report for the pool, it was expected: ${err.message}`);
  }
  await p.platform.mkdir('/var/lib/cloud/data');
  await p.platform.writeFile(REPORTED_READY_MARKER, markerText());
  p.log.info(`Azure: created the reported-ready marker ${REPORTED_READY_MARKER} while in the preprovisioning pool`);
}

/** The machine's NICs (not loopback or virtual devices), with their interface index, from the target's namespace. */
async function nics(platform: Platform): Promise<Array<{ index: number; name: string }>> {
  return (await linkList(platform)).filter((l) => !VIRTUAL_NIC.test(l.name));
}

/** Runs CHECK every INTERVAL until it gives a value; PreprovisioningFailed (saying WHAT) when DEADLINE aborts first. */
async function until<T>(
  deadline: AbortSignal,
  intervalMs: number,
  what: string,
  check: () => Promise<T | undefined>,
): Promise<T> {
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    try {
      await abortableSleep(intervalMs, deadline);
    } catch {
      throw new PreprovisioningFailed('Azure', `timed out waiting for ${what}`);
    }
  }
}

/**
 * cloud-init's _wait_for_pps_savable_reuse: report ready, drop the lease, wait for the pool NIC to go, then for
 * NICs to be attached until one's lease routes to IMDS (the primary one), kept for the polling. cloud-init hears the
 * detach and attach on netlink; kiln lists the links every nicPollIntervalMs instead, by interface index,
 * which a new NIC never shares with the detached one even when it gets the same name, so nothing is missed.
 */
async function waitForNicSwap(p: PpsContext, deadline: AbortSignal, event: (m: string) => void): Promise<void> {
  // The pool NIC is looked up before the report, as cloud-init opens its netlink socket first: the swap may follow
  // the report at once, and a NIC attached by then must not be taken for the pool's.
  const present = await nics(p.platform);
  const poolNic = present.find((n) => n.name === p.lease.interface) ?? present[0];
  if (!poolNic)
    throw new PreprovisioningFailed('Azure', 'no NIC to wait for the detach of (ip -o link show lists none)');
  await reportForPool(p, true);
  await p.lease.down();
  event(`reported ready while in the preprovisioning pool (Savable); waiting for ${poolNic.name} to be detached`);
  const interval = p.settings.nicPollIntervalMs;
  await until(deadline, interval, `the preprovisioned NIC ${poolNic.name} to be detached`, async () =>
    (await nics(p.platform)).some((n) => n.index === poolNic.index) ? undefined : true,
  );
  // New NICs are those the machine did not have before the report, whether they came before the detach was seen or
  // after.
  const seen = new Set(present.map((n) => n.index));
  event(`the preprovisioned NIC ${poolNic.name} is detached; waiting for the primary NIC to be attached`);
  for (;;) {
    const attached = await until(deadline, interval, 'the primary NIC to be hot-attached', async () =>
      (await nics(p.platform)).find((n) => !seen.has(n.index)),
    );
    seen.add(attached.index);
    event(`NIC ${attached.name} attached; checking whether it is the primary one`);
    if (await isPrimaryNic(p, attached.name, deadline)) {
      event(`${attached.name} is the primary NIC`);
      return;
    }
  }
}

/**
 * cloud-init 25.1's _check_if_primary: a lease on NIC (DHCP retried until dhcpMaxWaitMs), and NIC is the primary
 * one when the lease's option 121 routes lead to IMDS (169.254.169.254) or to the wireserver, as Azure's DHCP
 * gives them to the primary NIC only; IMDS is not asked (22.4 asked it for its network metadata). A secondary
 * NIC's lease is dropped. Where the network is not kiln's to manage (the system's, in the init stage), the
 * attached NIC is taken as it is.
 */
async function isPrimaryNic(p: PpsContext, nic: string, deadline: AbortSignal): Promise<boolean> {
  if (!p.lease.managed) return true;
  const dhcpBudget = deadlineSignal(Math.max(1, p.settings.dhcpMaxWaitMs), deadline);
  for (;;) {
    try {
      await p.lease.up(nic, { reportSecondary: false });
      break;
    } catch (err) {
      if (!(err instanceof SourceError)) throw err;
      p.log.info(`Azure: no DHCP lease on ${nic} yet: ${err.message}`);
      try {
        await abortableSleep(p.settings.pollIntervalMs, dhcpBudget);
      } catch {
        // The sleep ends early only when aborted: which budget ran out decides what happens next.
        if (deadline.aborted)
          throw new PreprovisioningFailed('Azure', `timed out taking a DHCP lease on the new NIC ${nic}`);
        p.log.warn(
          `Azure: no DHCP lease on ${nic} within ${p.settings.dhcpMaxWaitMs / 1000} s; taking it for a secondary NIC`,
        );
        return false;
      }
    }
  }
  const wireserver = await p.wireserverAddress();
  const routed = p.lease.staticRoutes.map((r) => r.destination.split('/')[0]);
  const primary = routesToAzure(p.lease.staticRoutes, wireserver);
  p.log.info(
    `Azure: the lease on ${nic} routes ${routed.length ? routed.join(', ') : 'nothing'} (option 121): ${primary ? `a route to IMDS or the wireserver ${wireserver}` : `no route to IMDS or the wireserver ${wireserver}, not the primary NIC`}`,
  );
  if (!primary) await p.lease.down();
  return primary;
}

/**
 * True for the 1st, 2nd, 4th, 8th… time: cloud-init logs repeated poll failures so, that a day in the pool does not
 * flood the log.
 */
function doublingThreshold(n: number): boolean {
  return n > 0 && (n & (n - 1)) === 0;
}

/**
 * cloud-init's _poll_imds loop: GET /metadata/reprovisiondata until IMDS answers with the new ovf-env.xml.
 * 404 and 410 (not claimed yet) are polled again every pollIntervalMs; any other failure (a dropped connection,
 * a timeout after the vnet switch) drops the lease and takes a new one first.
 */
async function pollReprovisionData(p: PpsContext, deadline: AbortSignal): Promise<Uint8Array> {
  const url = `${p.imdsBase}/metadata/reprovisiondata?api-version=${IMDS_VERSION_MIN}`;
  let polls = 0;
  let dhcpAttempts = 0;
  const pause = () => abortableSleep(p.settings.pollIntervalMs, deadline).catch(() => undefined);
  for (;;) {
    if (deadline.aborted) {
      throw new PreprovisioningFailed(
        'Azure',
        `IMDS gave no reprovisioning data within ${p.settings.maxWaitMs / 1000} s (${polls} polls, ${dhcpAttempts} DHCP attempts): the pool VM was not claimed`,
      );
    }
    if (!p.lease.isUp) {
      dhcpAttempts++;
      try {
        await p.lease.up();
      } catch (err) {
        if (!(err instanceof SourceError)) throw err;
        if (doublingThreshold(dhcpAttempts))
          p.log.info(
            `Azure: DHCP attempt ${dhcpAttempts} while polling for the reprovisioning data failed: ${err.message}`,
          );
        await pause();
        continue;
      }
    }
    polls++;
    try {
      const res = await p.client.fetch(url, {
        headers: { Metadata: 'true' },
        timeoutMs: IMDS_ATTEMPT_MS,
        maxRedirects: 0,
        signal: deadline,
      });
      const done = `Azure: reprovisioning data read after ${polls} polls of IMDS and ${dhcpAttempts} DHCP attempts after reuse`;
      p.log.info(done);
      p.kvp?.diagnostic(done);
      return res.body;
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      if (err.kind === 'budget') continue;
      const logged = doublingThreshold(polls);
      if (err.status === 404 || err.status === 410) {
        if (logged) p.log.debug(`Azure: poll ${polls} of IMDS reprovisiondata: ${err.message} (not claimed yet)`);
      } else {
        if (logged)
          p.log.info(
            `Azure: poll ${polls} of IMDS reprovisiondata failed (${err.message}); ${p.lease.managed ? 'taking a new DHCP lease' : 'trying again'}`,
          );
        await p.lease.down();
      }
      await pause();
    }
  }
}
