// The commands a renderer runs after writing its files (cloud-init's renderer `postcmds`): on the distros that turn
// them on (Debian, Ubuntu, Arch, Mariner), netplan's `netplan generate` and udev's net_setup_link for every device,
// so .link properties (names, MTU) apply now. They run whenever netplan renders, in init-local too.
import type { Platform } from '../../platform/platform';
import { describeError, KilnError } from '../../util/errors';
import type { Log } from '../../util/log';
import type { RendererName } from '../renderer';
import { pythonList } from './activator';

const POSTCMD_DISTROS = ['debian', 'ubuntu', 'arch', 'mariner'];
const SYS_CLASS_NET = '/sys/class/net/';
/** cloud-init tries the whole device list this many times: a device udev renames meanwhile is gone from the list. */
const SETUP_LINK_ATTEMPTS = 5;

export class PostRenderCommandError extends KilnError {
  override readonly name = 'PostRenderCommandError';
}

async function runChecked(p: Platform, log: Log, argv: string[]): Promise<void> {
  const r = await p.run(argv, { allowFailure: true, timeoutMs: 120_000 });
  if (r.code !== 0)
    throw new PostRenderCommandError(
      `${pythonList(argv)} failed (exit code ${r.code}): ${(r.stderr || r.stdout).trim() || 'no output'}`,
    );
  log.debug(`${pythonList(argv)} done`);
}

async function isLink(p: Platform, path: string): Promise<boolean> {
  if (p.stat) return (await p.stat(path, { followLinks: false }))?.type === 'symlink';
  return (await p.readLink?.(path)) !== undefined;
}

async function netSetupLink(p: Platform, log: Log): Promise<void> {
  let last: unknown;
  for (let attempt = 0; attempt < SETUP_LINK_ATTEMPTS; attempt++) {
    try {
      for (const dev of await p.listDir(SYS_CLASS_NET).catch(() => [] as string[])) {
        if (await isLink(p, SYS_CLASS_NET + dev))
          await runChecked(p, log, ['udevadm', 'test-builtin', 'net_setup_link', SYS_CLASS_NET + dev]);
      }
      return;
    } catch (err) {
      last = err;
    }
  }
  throw new PostRenderCommandError(
    `'udevadm test-builtin net_setup_link' could not run for every device in /sys/class/net: ${describeError(last)}`,
    { cause: last },
  );
}

/** Runs RENDERER's post-write commands on DISTRO; a failing one is an error naming the command. */
export async function runPostRenderCommands(
  p: Platform,
  log: Log,
  renderer: RendererName,
  distro: string,
): Promise<void> {
  if (renderer !== 'netplan') return;
  if (!POSTCMD_DISTROS.includes(distro)) {
    log.debug('netplan generate postcmd disabled');
    log.debug('netplan net_setup_link postcmd disabled');
    return;
  }
  await runChecked(p, log, ['netplan', 'generate']);
  await netSetupLink(p, log);
}
