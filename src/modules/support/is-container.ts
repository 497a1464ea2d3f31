// util.is_container as cloud-init 25.1 asks it: whether the target runs in a container of some sort.
import type { Platform } from '../../platform/platform';
import { whichInTarget } from './distro-facts';

/** _cmd_exits_zero: ARGV's program is on the PATH and exits 0. */
async function exitsZero(platform: Platform, argv: string[]): Promise<boolean> {
  if (!(await whichInTarget(platform, argv[0] as string))) return false;
  return (await platform.run(argv, { allowFailure: true })).code === 0;
}

/**
 * systemd-detect-virt --container or lxc-is-container exits 0; PID 1's environment has `container` or
 * `LIBVIRT_LXC_UUID`; OpenVZ's /proc/vz without /proc/bc; a Linux-VServer VxID other than '0' (compared as 25.1
 * does, with the text after the colon untrimmed).
 */
export async function isContainer(platform: Platform): Promise<boolean> {
  if (await exitsZero(platform, ['systemd-detect-virt', '--quiet', '--container'])) return true;
  if (await exitsZero(platform, ['lxc-is-container'])) return true;
  const environ = await platform.readTextIfExists('/proc/1/environ').catch(() => undefined);
  const names = (environ ?? '')
    .split('\0')
    .filter((tok) => tok !== '')
    .map((tok) => tok.split('=')[0]);
  if (names.includes('container') || names.includes('LIBVIRT_LXC_UUID')) return true;
  const isDir = async (path: string) => (await platform.stat(path))?.type === 'directory';
  if ((await isDir('/proc/vz')) && !(await isDir('/proc/bc'))) return true;
  const status = await platform.readTextIfExists('/proc/self/status').catch(() => undefined);
  for (const line of (status ?? '').split('\n')) {
    if (!line.startsWith('VxID:')) continue;
    if (line.trim().slice('VxID:'.length) !== '0') return true;
  }
  return false;
}
