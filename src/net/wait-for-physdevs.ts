// Before a network config is applied: wait (bounded) for the MACs it names, then give them the names it asks for,
// as cloud-init's stages do (wait_for_physdevs, then apply_network_config_names).
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import { describeError, KilnError } from '../util/errors';
import { currentInterfaces, currentRenameInfo, extractPhysdevs, type CurrentInterface } from './physdevs';
import { planRenames, renameInterfaces } from './rename-interfaces';

/** cloud-init settles at most this many times before it gives up on a device. */
export const SETTLE_ROUNDS = 5;

const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Physical devices the config names never appeared. */
export class PhysdevsMissingError extends KilnError {
  override readonly name = 'PhysdevsMissingError';
}

/** Python's repr of a set of strings, as cloud-init's messages print them. */
function pySet(items: string[]): string {
  return `{${items.map((s) => `'${s}'`).join(', ')}}`;
}

/**
 * `udevadm settle --exit-if-exists=/sys/class/net/DEV` (returning at once when DEV exists), skipped where the
 * target has no udevadm (Alpine's mdev), as cloud-init's udevadm_settle. Its own timeout (udevadm's default
 * 120 s) bounds each round.
 */
async function settle(p: Platform, dev: string): Promise<void> {
  let udevadm = false;
  for (const d of PATH_DIRS) if (await p.exists(`${d}/udevadm`)) udevadm = true;
  if (!udevadm) return;
  const exists = `/sys/class/net/${dev}`;
  if (await p.exists(exists)) return;
  await p.run(['udevadm', 'settle', `--exit-if-exists=${exists}`]);
}

async function presentMacs(p: Platform): Promise<Set<string>> {
  return new Set((await currentInterfaces(p)).map((i) => i.mac));
}

/**
 * Waits for every MAC CONFIG names for a physical device: up to five rounds of a settle per missing device.
 * Still missing then: the warning cloud-init logs, and an error (its strict mode, which the stages use).
 */
export async function waitForPhysdevs(p: Platform, log: Log, config: unknown): Promise<void> {
  const physdevs = await extractPhysdevs(p, config);
  const expected = new Map(physdevs.map((d) => [d.mac.toLowerCase(), d.name]));
  let present = await presentMacs(p);
  let missing: string[] = [];
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    missing = [...expected.keys()].filter((m) => !present.has(m));
    if (missing.length === 0) {
      log.debug('net: all expected physical devices present');
      return;
    }
    log.debug(`net: waiting for expected net devices: ${pySet(missing)}`);
    for (const mac of missing) {
      const dev = expected.get(mac) as string;
      const started = Date.now();
      await settle(p, dev);
      log.debug(`Waiting for settle or ${dev} exists took ${((Date.now() - started) / 1000).toFixed(3)} seconds`);
    }
    present = await presentMacs(p);
  }
  // 22.4 reports the devices missing before the last round's settle even when they appeared during it; kiln
  // looks once more, so a device that came late is not reported missing.
  missing = [...expected.keys()].filter((m) => !present.has(m));
  if (missing.length === 0) return;
  const msg = `Not all expected physical devices present: ${pySet(missing)}`;
  log.warn(msg);
  throw new PhysdevsMissingError(msg);
}

/**
 * Gives the devices CONFIG names by MAC their names; a failure is the warning cloud-init logs, and applying goes on.
 */
export async function applyNetworkConfigNames(p: Platform, log: Log, config: unknown): Promise<void> {
  try {
    log.debug('applying net config names');
    const renames = await extractPhysdevs(p, config);
    let current: CurrentInterface[] = [];
    if (renames.length) {
      // Addresses only decide whether an up device may be taken down: `ip` is asked only when something is to be
      // renamed (cloud-init always asks; the plan is the same either way).
      const bare = (await currentInterfaces(p)).map((i) => ({ ...i, downable: true }));
      current = planRenames(renames, bare).ops.length ? await currentRenameInfo(p) : bare;
    }
    await renameInterfaces(p, log, renames, current);
  } catch (err) {
    log.warn(`Failed to rename devices: ${describeError(err)}`);
  }
}
