// GCELocal's search for the primary NIC: a temporary DHCP lease on each candidate NIC in turn until the metadata server
// answers, as newer cloud-init does.
import { candidateNics } from '../net/fallback';
import { readSysClassNet } from '../net/sys-class-net';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import type { EphemeralNetwork } from '../net/ephemeral/ephemeral-network';
import { withEphemeralNetwork } from './ephemeral-lease';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

/** GCE's own primary NIC name (cloud-init's DataSourceGCE.DEFAULT_PRIMARY_INTERFACE), tried before the others. */
const GCE_PRIMARY = 'ens4';

/**
 * The NICs GCELocal tries, in cloud-init's order: its candidate NICs (connected first, then possibly connected,
 * naturally sorted, eth0 leading each group) with ens4 moved to the front. Empty when /sys/class/net cannot
 * be read (a --root sandbox): then the lease goes on the fallback NIC as before.
 */
export async function gceCandidateNics(platform: Platform): Promise<string[]> {
  const names = candidateNics(await readSysClassNet(platform).catch(() => []));
  const i = names.indexOf(GCE_PRIMARY);
  if (i > 0) names.unshift(...names.splice(i, 1));
  return names;
}

/**
 * Runs CRAWL inside a temporary lease on each of NICS in turn (released after each) and returns the first that
 * succeeds, with the NIC it ran on; a NIC without a lease, or whose crawl fails, is logged and the next tried.
 * With no NICS, one lease on the fallback NIC. When every NIC fails: one NIC's own error, or a SourceError
 * naming the NICs tried with the last one's. An abort (the stage's signal) stops the search at once.
 */
export async function crawlOnEachNic<T>(
  network: EphemeralNetwork,
  nics: string[],
  crawl: () => Promise<T>,
  log: Log,
  signal?: AbortSignal,
): Promise<{ value: T; nic: string | undefined }> {
  if (nics.length === 0) return { value: await withEphemeralNetwork(network, crawl), nic: undefined };
  log.debug(`GCE: looking for the primary NIC in: ${nics.join(', ')}`);
  let last: unknown;
  for (const nic of nics) {
    if (signal?.aborted) break;
    try {
      const value = await withEphemeralNetwork(network, crawl, { interface: nic });
      log.debug(`GCE: primary NIC found: ${nic}`);
      return { value, nic };
    } catch (err) {
      last = err;
      log.debug(`GCE: no metadata through candidate NIC ${nic}: ${describeError(err)}`);
    }
  }
  // One candidate: its own error says it all (as with the single fallback lease before).
  if (nics.length === 1 && last !== undefined) throw last;
  const why = last === undefined ? 'aborted' : describeError(last);
  throw new SourceError(
    'GCE',
    `the metadata server answered on none of the candidate NICs (${nics.join(', ')}); last: ${why}`,
    { cause: last },
  );
}
