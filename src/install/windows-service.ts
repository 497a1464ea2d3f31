// The cloudbase-init Windows service kiln registers: its name, command line, and registering or deleting it.
import type { WindowsMachine } from '../platform/windows/windows-machine';

export const SERVICE_NAME = 'cloudbase-init';
export const DEFAULT_CONFIG_FILE = 'C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\conf\\cloudbase-init.conf';
/** Started after TCP/IP and the user profile service, as the issue and cloudbase-init's own service want. */
export const DEFAULT_DEPENDENCIES = ['Tcpip', 'ProfSvc'];

function quote(arg: string): string {
  return /[\s"]/.test(arg) ? `"${arg.replace(/"/g, '\\"')}"` : arg;
}

/** The command line the service control manager starts. */
export function serviceCommandLine(exe: string, configFiles: string[]): string {
  return [exe, 'service', 'run', ...configFiles.flatMap((f) => ['--config-file', f])].map(quote).join(' ');
}

export interface ServiceInstallRequest {
  name: string;
  /** The kiln executable the service control manager starts. */
  exe: string;
  configFiles: string[];
  startType: 'auto' | 'demand';
  dependencies: string[];
  displayName?: string;
}

/**
 * Registers kiln as the cloudbase-init service (what `service install` and `kiln install` do); returns its command
 * line.
 */
export function installService(win: WindowsMachine, req: ServiceInstallRequest): string {
  const binaryPath = serviceCommandLine(req.exe, req.configFiles);
  win.win32().advapi32.createService({
    name: req.name,
    displayName: req.displayName ?? 'Cloudbase-Init (kiln)',
    description: 'Initialises this instance from its cloud metadata (cloudbase-init, re-implemented by kiln).',
    binaryPath,
    startType: req.startType,
    dependencies: req.dependencies,
  });
  return binaryPath;
}

/** Stops (when running) and deletes the service NAME; false when there is no such service. */
export function uninstallService(win: WindowsMachine, name: string): boolean {
  const api = win.win32().advapi32;
  const state = api.queryService(name);
  if (!state) return false;
  const SERVICE_STOPPED = 1;
  if (state.currentState !== SERVICE_STOPPED) api.stopService(name);
  api.deleteService(name);
  return true;
}
