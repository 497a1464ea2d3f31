// Small facts about the target that several config-stage modules ask for (systemd, tools on PATH).
import type { Platform } from '../../platform/platform';

/** cloud-init's uses_systemd: /run/systemd/system is a folder in the target. */
export async function usesSystemd(platform: Platform): Promise<boolean> {
  return (await platform.stat('/run/systemd/system'))?.type === 'directory';
}

const PATH_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** cloud-init's subp.which inside the target: the first executable TOOL on the default PATH, or undefined. */
export async function whichInTarget(platform: Platform, tool: string): Promise<string | undefined> {
  const candidates = tool.includes('/') ? [tool] : PATH_DIRS.map((dir) => `${dir}/${tool}`);
  for (const path of candidates) {
    const st = await platform.stat(path);
    if (st && st.type === 'file' && (st.mode & 0o111) !== 0) return path;
  }
  return undefined;
}
