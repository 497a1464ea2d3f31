// Where WSL's Windows side is, seen from inside the instance: the drvfs mounts of the Windows drives, the Windows
// user's profile folder (as upstream's find_home learns it from cmd.exe), and the instance's name (wslpath -am /).
import { posix } from 'node:path';
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { SourceError } from '../source-error';

const NAME = 'WSL';
export const WSLPATH = '/usr/bin/wslpath';

/** One Windows drive mounted into the instance: its letter (when the mount says) and where it is. */
export interface DrvfsMount {
  letter?: string;
  mountpoint: string;
}

/** /proc/mounts' octal escapes (\040 space, \134 backslash) undone. */
function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** The 9p mounts whose options carry aname=drvfs (upstream's mounted_win_drives), with their drive letters. */
export function drvfsMounts(procMounts: string): DrvfsMount[] {
  const out: DrvfsMount[] = [];
  for (const line of procMounts.split('\n')) {
    const [device, mountpoint, fstype, opts] = line.split(' ');
    if (fstype !== '9p' || !opts?.includes('aname=drvfs') || !mountpoint) continue;
    const m =
      /(?:^|[;,])path=([A-Za-z]):/.exec(unescapeMount(opts)) ?? /^([A-Za-z]):/.exec(unescapeMount(device ?? ''));
    out.push({ mountpoint: unescapeMount(mountpoint), ...(m ? { letter: (m[1] as string).toUpperCase() } : {}) });
  }
  return out;
}

export async function readDrvfsMounts(platform: Platform): Promise<DrvfsMount[]> {
  return drvfsMounts((await platform.readTextIfExists('/proc/mounts').catch(() => undefined)) ?? '');
}

/** wslpath -au for a drive path: 'C:\\Users\\Ann' → '/mnt/c/Users/Ann', through the mount of that drive. */
export function windowsToLinuxPath(winPath: string, mounts: DrvfsMount[]): string {
  const m = /^([A-Za-z]):[\\/]?(.*)$/.exec(winPath.trim());
  if (!m) throw new SourceError(NAME, `the user profile '${winPath}' is not a drive path (C:\\…)`);
  const letter = (m[1] as string).toUpperCase();
  const mount = mounts.find((x) => x.letter === letter);
  if (!mount)
    throw new SourceError(
      NAME,
      `drive ${letter}: of the user profile '${winPath}' is not mounted in the instance (drvfs mounts: ${mounts.map((x) => x.mountpoint).join(', ') || 'none'})`,
    );
  const rest = (m[2] as string).split(/[\\/]+/).filter(Boolean);
  return posix.join(mount.mountpoint, ...rest);
}

/** The first drvfs mount holding an executable Windows/System32/cmd.exe (upstream's cmd_executable). */
async function cmdExecutable(platform: Platform, mounts: DrvfsMount[]): Promise<string | undefined> {
  for (const m of mounts) {
    const cmd = posix.join(m.mountpoint, 'Windows/System32/cmd.exe');
    const st = await platform.stat(cmd).catch(() => undefined);
    if (st && st.type === 'file' && (st.mode & 0o111) !== 0) return cmd;
  }
  return undefined;
}

/** cmd.exe /U writes UTF-16LE; what reaches us is that text read as UTF-8, which keeps ASCII (with NULs between). */
function utf16Output(stdout: string): string {
  const text = stdout.includes('\0') ? stdout.replace(/\0/g, '') : stdout;
  if (text.includes('\uFFFD'))
    throw new SourceError(
      NAME,
      "cmd.exe's %USERPROFILE% has characters outside ASCII, which kiln cannot read back from its output; set datasource.WSL.user_profile",
    );
  return text.trim();
}

/**
 * The Windows user's profile folder as a path in the instance. As upstream's find_home on the running system:
 * `/init <drive>/Windows/System32/cmd.exe /U /C echo.%USERPROFILE%`, then the drive mapped through its drvfs
 * mount. kiln's additions: `user_profile` in the datasource settings (a Windows or instance path); and when
 * Windows cannot be asked (a --root image), the one `<drive>/Users/<name>` that holds `.cloud-init` or
 * `.ubuntupro/.cloud-init`.
 */
export async function findWindowsHome(
  platform: Platform,
  log: Log,
  mounts: DrvfsMount[],
  settings: Record<string, unknown>,
): Promise<string> {
  if (mounts.length === 0)
    throw new SourceError(NAME, 'Windows drives are not mounted (no 9p mount with aname=drvfs in /proc/mounts)');
  const given = settings.user_profile;
  if (typeof given === 'string' && given) return given.startsWith('/') ? given : windowsToLinuxPath(given, mounts);
  if (platform.root === '/') {
    const cmd = await cmdExecutable(platform, mounts);
    if (!cmd)
      throw new SourceError(
        NAME,
        `couldn't find cmd.exe in any mount point: ${mounts.map((m) => m.mountpoint).join(', ')}`,
      );
    log.debug(`WSL: found cmd.exe at <${cmd}>`);
    const r = await platform.run(['/init', cmd, '/U', '/C', 'echo.%USERPROFILE%'], {
      allowFailure: true,
      timeoutMs: 30_000,
    });
    const home = r.code === 0 ? utf16Output(r.stdout) : '';
    if (!home)
      throw new SourceError(
        NAME,
        `no output from cmd.exe to show the user profile dir (exit code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''})`,
      );
    return windowsToLinuxPath(home, mounts);
  }
  const found: string[] = [];
  for (const m of mounts) {
    const users = posix.join(m.mountpoint, 'Users');
    for (const name of await platform.listDir(users).catch(() => [] as string[])) {
      const home = posix.join(users, name);
      if (
        (await platform.exists(posix.join(home, '.cloud-init'))) ||
        (await platform.exists(posix.join(home, '.ubuntupro/.cloud-init')))
      )
        found.push(home);
    }
  }
  if (found.length === 1) return found[0] as string;
  throw new SourceError(
    NAME,
    `${platform.root} is not the running instance, so cmd.exe cannot tell the user profile, and ${found.length === 0 ? 'no' : `${found.length} (${found.join(', ')})`} <drive>/Users/<name> folders hold .cloud-init; set datasource.WSL.user_profile`,
  );
}

/**
 * The instance's name as Windows sees it: `wslpath -am /` ('//wsl.localhost/Ubuntu/') on the running system, as
 * upstream; `instance_name` in the settings, else WSL_DISTRO_NAME in kiln's environment, for an image.
 */
export async function wslInstanceName(
  platform: Platform,
  settings: Record<string, unknown>,
  env: NodeJS.ProcessEnv | undefined,
): Promise<string> {
  if (typeof settings.instance_name === 'string' && settings.instance_name) return settings.instance_name;
  if (platform.root === '/') {
    const r = await platform.run([WSLPATH, '-am', '/'], { allowFailure: true, timeoutMs: 10_000 });
    const name = posix.basename(r.stdout.trim().replace(/\\/g, '/').replace(/\/+$/, ''));
    if (r.code === 0 && name) return name;
    throw new SourceError(
      NAME,
      `${WSLPATH} -am / did not give the instance's name (exit code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''})`,
    );
  }
  const fromEnv = env?.WSL_DISTRO_NAME;
  if (fromEnv) return fromEnv;
  throw new SourceError(
    NAME,
    `${platform.root} is not the running instance and neither datasource.WSL.instance_name nor WSL_DISTRO_NAME names it`,
  );
}
