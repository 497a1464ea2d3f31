// `kiln service install|uninstall|run`: kiln as the cloudbase-init Windows service (LocalSystem, automatic start).
import { WindowsPlatform } from '../platform/windows/windows-platform';
import { UsageError } from '../util/errors';
import { CLOUDBASE_INIT_FLAGS, runCloudbaseInitFlow } from './cloudbase-init-run';
import type { Command, CommandContext } from './command';

export const SERVICE_NAME = 'cloudbase-init';
export const DEFAULT_CONFIG_FILE = 'C:\\Program Files\\Cloudbase Solutions\\Cloudbase-Init\\conf\\cloudbase-init.conf';
/** Started after TCP/IP and the user profile service, as the issue and cloudbase-init's own service want. */
export const DEFAULT_DEPENDENCIES = ['Tcpip', 'ProfSvc'];

function windows(ctx: CommandContext): WindowsPlatform {
  const p = ctx.platform();
  if (!(p instanceof WindowsPlatform)) throw new UsageError("'service' manages a Windows service; this is not a Windows build (or --dry-run was given)");
  return p;
}

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

/** Registers kiln as the cloudbase-init service (what `service install` and `kiln install` do); returns its command line. */
export function installService(win: WindowsPlatform, req: ServiceInstallRequest): string {
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
export function uninstallService(win: WindowsPlatform, name: string): boolean {
  const api = win.win32().advapi32;
  const state = api.queryService(name);
  if (!state) return false;
  const SERVICE_STOPPED = 1;
  if (state.currentState !== SERVICE_STOPPED) api.stopService(name);
  api.deleteService(name);
  return true;
}

export const serviceInstallCommand: Command = {
  words: ['service', 'install'],
  summary: 'install kiln as the cloudbase-init service (LocalSystem, automatic start, after Tcpip and ProfSvc)',
  usage: 'service install [--config-file PATH]... [--name NAME] [--depend SVC]... [--start auto|demand]',
  faces: ['kiln', 'cloudbase-init'],
  positional: [0, 0],
  flags: {
    string: ['config-file', 'name', 'depend', 'start', 'display-name'],
    repeatable: ['config-file', 'depend'],
    help: [
      `--config-file PATH   cloudbase-init.conf the service reads (default ${DEFAULT_CONFIG_FILE}); may be repeated`,
      `--name NAME          service name (default ${SERVICE_NAME})`,
      `--depend SVC         a service to start after (default ${DEFAULT_DEPENDENCIES.join(', ')}); may be repeated`,
      '--start auto|demand  start type (default auto)',
    ],
  },
  async run(ctx, args) {
    const win = windows(ctx);
    const start = (args.flags.start as string | undefined) ?? 'auto';
    if (start !== 'auto' && start !== 'demand') throw new UsageError(`--start must be auto or demand, not '${start}'`);
    const name = (args.flags.name as string | undefined) ?? SERVICE_NAME;
    const configFiles = (args.flags['config-file'] as string[] | undefined) ?? [DEFAULT_CONFIG_FILE];
    const binaryPath = installService(win, {
      name,
      exe: process.execPath,
      configFiles,
      startType: start,
      dependencies: (args.flags.depend as string[] | undefined) ?? DEFAULT_DEPENDENCIES,
      ...(args.flags['display-name'] !== undefined ? { displayName: args.flags['display-name'] as string } : {}),
    });
    ctx.io.out(`installed service ${name}: ${binaryPath}\n`);
    return 0;
  },
};

export const serviceUninstallCommand: Command = {
  words: ['service', 'uninstall'],
  summary: 'remove the cloudbase-init service kiln installed (stopped first when running)',
  usage: 'service uninstall [--name NAME]',
  faces: ['kiln', 'cloudbase-init'],
  positional: [0, 0],
  flags: { string: ['name'], help: [`--name NAME   service name (default ${SERVICE_NAME})`] },
  async run(ctx, args) {
    const win = windows(ctx);
    const name = (args.flags.name as string | undefined) ?? SERVICE_NAME;
    if (!uninstallService(win, name)) {
      ctx.io.err(`service ${name} is not installed\n`);
      return 1;
    }
    ctx.io.out(`removed service ${name}\n`);
    return 0;
  },
};

export const serviceRunCommand: Command = {
  words: ['service', 'run'],
  summary: 'what the service control manager starts: the cloudbase-init flow, reported to Windows as a service',
  usage: 'service run [--config-file PATH]... [--name NAME]',
  faces: ['kiln', 'cloudbase-init'],
  positional: [0, 0],
  flags: { ...CLOUDBASE_INIT_FLAGS, string: [...CLOUDBASE_INIT_FLAGS.string, 'name'] },
  async run(ctx, args) {
    const win = windows(ctx);
    const name = (args.flags.name as string | undefined) ?? SERVICE_NAME;
    const log = ctx.logger.for('service.ts');
    let code = 0;
    await win.win32().advapi32.runService(
      name,
      async () => {
        code = await runCloudbaseInitFlow(ctx, args);
        return code;
      },
      (line) => log.warn(line),
    );
    return code;
  },
};
