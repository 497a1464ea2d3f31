// What `systemd-detect-virt` says about the target, as ds-identify and DataSourceLXD ask it; undefined when it cannot
// tell.
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { describeError } from '../../util/errors';

/**
 * Runs the distro's systemd-detect-virt in the target (no re-implementation of its checks): 'kvm', 'qemu',
 * 'lxc', 'none' …; undefined when the tool is missing or fails without an answer (ds-identify's UNAVAILABLE).
 */
export async function detectVirt(platform: Platform, log: Log): Promise<string | undefined> {
  try {
    const res = await platform.run(['systemd-detect-virt'], { allowFailure: true, timeoutMs: 5000 });
    const out = res.stdout.trim();
    // It exits 1 printing 'none' on bare metal; any other failure is no answer.
    if (res.code === 0 || out === 'none') return out || undefined;
    log.debug(`systemd-detect-virt exited ${res.code}: ${(res.stderr || out).trim()}`);
  } catch (err) {
    log.debug(`systemd-detect-virt could not run: ${describeError(err)}`);
  }
  return undefined;
}
