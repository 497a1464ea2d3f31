// `kiln install` and `kiln uninstall` on Windows: what images/windows/install-kiln.cmd does, from the binary
// alone: kiln.exe and the confs in cloudbase-init's layout, SetupComplete.cmd, and the cloudbase-init service.
import { win32 } from 'node:path';
import type { InstallFile } from 'kiln:target';
import type { Platform } from '../platform/platform';
import { DEFAULT_DEPENDENCIES, SERVICE_NAME, installService, uninstallService } from './windows-service';
import { KilnError } from '../util/errors';

/** cloudbase-init's own folder, under the root (C:\ at boot). */
export const CLOUDBASE_INIT_DIR = 'Program Files\\Cloudbase Solutions\\Cloudbase-Init';
export const KILN_EXE = `${CLOUDBASE_INIT_DIR}\\kiln.exe`;
const CONF_DIR = `${CLOUDBASE_INIT_DIR}\\conf`;
/** Folders cloudbase-init's layout has, made empty. */
const EMPTY_DIRS = [`${CLOUDBASE_INIT_DIR}\\log`, `${CLOUDBASE_INIT_DIR}\\LocalScripts`];
/** Where Windows runs SetupComplete.cmd from at the end of setup. */
const SETUP_SCRIPTS = 'Windows\\Setup\\Scripts';

/** Where each embedded file goes. */
function destination(name: string): string {
  return name === 'SetupComplete.cmd' ? `${SETUP_SCRIPTS}\\${name}` : `${CONF_DIR}\\${name}`;
}

const REQUIRED = ['cloudbase-init.conf', 'cloudbase-init-unattend.conf', 'Unattend.xml', 'SetupComplete.cmd'];

function requireFiles(files: Record<string, InstallFile>): void {
  const missing = REQUIRED.filter((f) => files[f] === undefined);
  if (missing.length)
    throw new KilnError(
      `this kiln binary carries no ${missing.join(', ')} (built without images/windows?); cannot install`,
    );
}

export interface WindowsInstallRequest {
  platform: Platform;
  /** File name → text (and a mode Windows has no use for), as build.mjs embeds them. */
  files: Record<string, InstallFile>;
  binary: () => Promise<Uint8Array>;
  say: (line: string) => void;
}

export async function installWindows(req: WindowsInstallRequest): Promise<void> {
  const { platform, files, say } = req;
  requireFiles(files);
  for (const dir of [CONF_DIR, ...EMPTY_DIRS]) await platform.mkdir(dir);
  await platform.writeFile(KILN_EXE, await req.binary());
  for (const name of REQUIRED) await platform.writeFile(destination(name), (files[name] as InstallFile).text);
  say(
    `installed ${platform.hostPath(KILN_EXE)}, its confs in ${platform.hostPath(CONF_DIR)} and ${platform.hostPath(destination('SetupComplete.cmd'))}`,
  );
  // As install-kiln.cmd: started by SetupComplete.cmd after sysprep, not at every boot on its own.
  const service = {
    name: SERVICE_NAME,
    exe: platform.hostPath(KILN_EXE),
    configFiles: [platform.hostPath(destination('cloudbase-init.conf'))],
    startType: 'demand' as const,
    dependencies: DEFAULT_DEPENDENCIES,
  };
  const windows = platform.windows?.();
  if (windows) {
    say(`installed service ${SERVICE_NAME}: ${installService(windows, service)}`);
  } else {
    say(
      `service ${SERVICE_NAME} not registered (--dry-run): it would start ${service.exe} with ${service.configFiles.join(', ')}`,
    );
  }
}

export interface WindowsUninstallRequest extends Omit<WindowsInstallRequest, 'binary'> {
  /** The path of the executable running this, which Windows will not let it delete. */
  running?: string;
}

export async function uninstallWindows(req: WindowsUninstallRequest): Promise<void> {
  const { platform, files, say } = req;
  requireFiles(files);
  const windows = platform.windows?.();
  if (windows) {
    say(
      uninstallService(windows, SERVICE_NAME)
        ? `removed service ${SERVICE_NAME}`
        : `service ${SERVICE_NAME} was not installed`,
    );
  } else {
    say(`service ${SERVICE_NAME} not removed (--dry-run)`);
  }
  for (const name of REQUIRED) {
    const path = destination(name);
    // Only kiln's own text: a conf the image's builder changed since is theirs to keep.
    if ((await platform.readTextIfExists(path)) === files[name]?.text) await platform.remove(path);
    else if (await platform.exists(path)) say(`kept ${platform.hostPath(path)}: changed since kiln installed it`);
  }
  if (await platform.exists(KILN_EXE)) {
    // Windows cannot delete an executable that is running: the copy being run is left for the person to delete.
    if (
      req.running !== undefined &&
      win32.normalize(req.running).toLowerCase() === win32.normalize(platform.hostPath(KILN_EXE)).toLowerCase()
    ) {
      say(`kept ${platform.hostPath(KILN_EXE)}: it is running now; delete it once this command has ended`);
    } else {
      await platform.remove(KILN_EXE);
    }
  }
  for (const dir of [...EMPTY_DIRS, CONF_DIR, CLOUDBASE_INIT_DIR]) {
    if ((await platform.exists(dir)) && (await platform.listDir(dir)).length === 0)
      await platform.remove(dir, { recursive: true });
  }
  say(`removed kiln from ${platform.hostPath(CLOUDBASE_INIT_DIR)}`);
}
