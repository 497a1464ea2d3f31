// Renames the machine's interfaces to the names a network config gives their MACs (cloud-init's _rename_interfaces):
// planned first (downs, a temporary cirenameN for a name in use, renames, then ups), then run with `ip link`.
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import type { CurrentInterface, Physdev } from './physdevs';
import { KilnError } from '../util/errors';

export type RenameOp =
  | { op: 'down' | 'up'; mac: string; newName: string; dev: string }
  | { op: 'rename'; mac: string; newName: string; from: string; to: string };

/** Renames that could not be done, each line one reason, as cloud-init joins them. */
export class RenameInterfacesError extends KilnError {
  override readonly name = 'RenameInterfacesError';
}

function matches(cur: CurrentInterface, want: Physdev, mac: string): boolean {
  if (want.driver && want.deviceId)
    return cur.mac === mac && cur.driver === want.driver && cur.deviceId === want.deviceId;
  if (want.driver) return cur.mac === mac && cur.driver === want.driver;
  return cur.mac === mac;
}

/**
 * The operations that give each of RENAMES its name on a machine with CURRENT interfaces, and the errors for
 * those that cannot be done: a MAC not present, an up interface holding addresses (busy), or a target name held
 * by one. A name held by another, downable interface is moved to cirenameN first.
 */
export function planRenames(renames: Physdev[], current: CurrentInterface[]): { ops: RenameOp[]; errors: string[] } {
  const cur = current.map((c) => ({ ...c }));
  const byName = (): Map<string, (typeof cur)[number]> => new Map(cur.map((c) => [c.name, c]));
  let names = byName();
  const ops: RenameOp[] = [];
  const ups: RenameOp[] = [];
  const errors: string[] = [];
  let tmpi = -1;
  for (const want of renames) {
    const mac = want.mac.toLowerCase();
    const found = cur.filter((c) => matches(c, want, mac));
    if (found.length > 1) {
      const list = found.map((f) => f.name).join(', ');
      throw new RenameInterfacesError(
        `Failed to match a single device: ${list} all match (mac:${mac} driver:${want.driver ?? 'None'} device_id:${want.deviceId ?? 'None'})`,
      );
    }
    const it = found[0];
    if (!it) {
      errors.push(`[nic not present] Cannot rename mac=${mac} to ${want.name}, not available.`);
      continue;
    }
    if (it.name === want.name) continue;
    const curOps: RenameOp[] = [];
    if (it.up) {
      if (!it.downable) {
        errors.push(`[busy] Error renaming mac=${mac} from ${it.name} to ${want.name}`);
        continue;
      }
      it.up = false;
      curOps.push({ op: 'down', mac, newName: want.name, dev: it.name });
      ups.push({ op: 'up', mac, newName: want.name, dev: want.name });
    }
    const target = names.get(want.name);
    if (target) {
      if (target.up) {
        if (!target.downable) {
          errors.push(`[busy-target] Error renaming mac=${mac} from ${it.name} to ${want.name}.`);
          continue;
        }
        curOps.push({ op: 'down', mac, newName: want.name, dev: want.name });
      }
      let tmp: string;
      do tmp = `cirename${++tmpi}`;
      while (names.has(tmp));
      curOps.push({ op: 'rename', mac, newName: want.name, from: want.name, to: tmp });
      target.name = tmp;
      names = byName();
      if (target.up) ups.push({ op: 'up', mac, newName: want.name, dev: tmp });
    }
    curOps.push({ op: 'rename', mac, newName: want.name, from: it.name, to: want.name });
    it.name = want.name;
    names = byName();
    ops.push(...curOps);
  }
  return { ops: [...ops, ...ups], errors };
}

function describe(op: RenameOp): string {
  return op.op === 'rename' ? `rename ${op.from} -> ${op.to}` : `${op.op} ${op.dev}`;
}

/** Plans and runs RENAMES on the machine; throws one error naming every rename that failed, after trying all. */
export async function renameInterfaces(
  p: Platform,
  log: Log,
  renames: Physdev[],
  current: CurrentInterface[],
): Promise<void> {
  if (renames.length === 0) {
    log.debug('no interfaces to rename');
    return;
  }
  log.debug(`Detected interfaces ${current.map((c) => `${c.name}=${c.mac}${c.up ? ' (up)' : ''}`).join(', ')}`);
  const want = renames.map((r) => `${r.mac}->${r.name}`).join(', ');
  const { ops, errors } = planRenames(renames, current);
  if (ops.length === 0) {
    log.debug(
      errors.length ? `unable to do any work for renaming of ${want}` : `no work necessary for renaming of ${want}`,
    );
  } else {
    log.debug(`achieving renaming of ${want} with ops ${ops.map(describe).join(', ')}`);
    for (const op of ops) {
      const argv =
        op.op === 'rename' ? ['ip', 'link', 'set', op.from, 'name', op.to] : ['ip', 'link', 'set', op.dev, op.op];
      const r = await p.run(argv, { allowFailure: true });
      if (r.code !== 0)
        errors.push(
          `[unknown] Error performing ${describe(op)} for ${op.mac}, ${op.newName}: '${argv.join(' ')}' exited with code ${r.code}: ${r.stderr.trim()}`,
        );
    }
  }
  if (errors.length) throw new RenameInterfacesError(errors.join('\n'));
}
