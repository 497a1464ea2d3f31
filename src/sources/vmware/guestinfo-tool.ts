// Reads and writes VMware guestinfo keys through open-vm-tools' command line tools in the target, as cloud-init does.
//
// The guestinfo table lives behind VMware's "backdoor" I/O port, reached with an x86 `in` instruction that Node cannot
// issue; like cloud-init, kiln asks `vmware-rpctool` (or `vmtoolsd --cmd`) instead, through the platform, so `--root`
// runs the target's tool in its chroot and `--dry-run` records writes instead of making them.
import type { Platform } from '../../platform/platform';
import { CommandError } from '../../util/command-error';
import { describeError } from '../../util/errors';

/** What the tools print on stderr (and exit 1 with) for a key that is not set. */
const NO_VALUE = 'No value found';
/** The value cloud-init writes to clear a key: valid YAML for "nothing", so a later read finds no data. */
export const GUESTINFO_CLEARED = '---';

const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** A tool that ran but failed (not "no value"): exit status, timeout or no start. */
export class GuestinfoToolFailed extends Error {
  override readonly name = 'GuestinfoToolFailed';
}

export interface GuestinfoTool {
  /** 'vmware-rpctool' or 'vmtoolsd'. */
  readonly name: string;
  /** The key's value, with trailing whitespace dropped; undefined when unset, empty or cleared ('---'). */
  get(key: string): Promise<string | undefined>;
  /** Sets KEY to VALUE (an empty VALUE becomes one space: guestinfo cannot hold an empty string). */
  set(key: string, value: string): Promise<void>;
}

/** The first executable TOOL on the default PATH inside the target, as cloud-init's subp.which. */
export async function findInTarget(platform: Platform, tool: string): Promise<string | undefined> {
  for (const dir of PATH_DIRS) {
    const path = `${dir}/${tool}`;
    const st = await platform.stat(path).catch(() => undefined);
    if (st && st.type === 'file' && (st.mode & 0o111) !== 0) return path;
  }
  return undefined;
}

/** cloud-init's key names: 'metadata' is `guestinfo.metadata`. */
export const guestinfoKey = (key: string): string => `guestinfo.${key}`;

/** The command line of one RPC: vmware-rpctool takes it as one argument, vmtoolsd after `--cmd`. */
function argv(tool: 'vmware-rpctool' | 'vmtoolsd', path: string, rpc: string): string[] {
  return tool === 'vmtoolsd' ? [path, '--cmd', rpc] : [path, rpc];
}

export function guestinfoTool(
  platform: Platform,
  tool: 'vmware-rpctool' | 'vmtoolsd',
  path: string,
  timeoutMs: number,
): GuestinfoTool {
  /**
   * Stdout of one RPC; undefined for "No value found"; GuestinfoToolFailed for any other failure, timeouts included.
   */
  const call = async (rpc: string): Promise<string | undefined> => {
    try {
      return (await platform.run(argv(tool, path, rpc), { timeoutMs })).stdout;
    } catch (err) {
      if (err instanceof CommandError && err.failure.code === 1 && err.failure.stderr?.trim() === NO_VALUE)
        return undefined;
      const f = err instanceof CommandError ? err.failure : undefined;
      const why = f?.reason ?? (f?.code !== undefined ? `exit ${f.code}` : describeError(err));
      const stderr = f?.stderr?.trim().slice(0, 300);
      throw new GuestinfoToolFailed(
        `${tool} '${rpc.split(' ').slice(0, 2).join(' ')}' failed (${why})${stderr ? `: ${stderr}` : ''}`,
      );
    }
  };
  return {
    name: tool,
    async get(key) {
      const out = await call(`info-get ${guestinfoKey(key)}`);
      const value = out?.replace(/\s+$/, '');
      return value === undefined || value === '' || value === GUESTINFO_CLEARED ? undefined : value;
    },
    async set(key, value) {
      await call(`info-set ${guestinfoKey(key)} ${value === '' ? ' ' : value}`);
    },
  };
}

/** The tools present in the target, vmware-rpctool first (cloud-init's preference; vmtoolsd is the fallback). */
export async function guestinfoTools(platform: Platform, timeoutMs: number): Promise<GuestinfoTool[]> {
  const out: GuestinfoTool[] = [];
  for (const tool of ['vmware-rpctool', 'vmtoolsd'] as const) {
    const path = await findInTarget(platform, tool);
    if (path) out.push(guestinfoTool(platform, tool, path, timeoutMs));
  }
  return out;
}
