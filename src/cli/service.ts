// `kiln service install|uninstall|run`: kiln as the cloudbase-init Windows service (LocalSystem, automatic start).
import type { WindowsMachine } from '../platform/windows/windows-machine';
import { UsageError } from '../util/errors';
import { CLOUDBASE_INIT_FLAGS, runCloudbaseInitFlow } from './cloudbase-init-run';
import type { Command, CommandContext } from './command';
import {
  DEFAULT_CONFIG_FILE,
  DEFAULT_DEPENDENCIES,
  SERVICE_NAME,
  installService,
  uninstallService,
} from '../install/windows-service';

function windows(ctx: CommandContext): WindowsMachine {
  const p = ctx.platform().windows?.();
  if (!p)
    throw new UsageError("'service' manages a Windows service; this is not a Windows build (or --dry-run was given)");
  return p;
}

export const serviceInstallCommand: Command = {
  words: ['service', 'install'],
  summary: 'install kiln as the cloudbase-init service (LocalSystem, automatic start, after Tcpip and ProfSvc)',
  usage: 'service install [--config-file PATH]... [--name NAME] [--depend SVC]... [--start auto|demand]',
  faces: ['kiln', 'cloudbase-init'],
  os: 'windows',
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
  os: 'windows',
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
  os: 'windows',
  positional: [0, 0],
  flags: { ...CLOUDBASE_INIT_FLAGS, string: [...CLOUDBASE_INIT_FLAGS.string, 'name'] },
  async run(ctx, args) {
    const win = windows(ctx);
    const name = (args.flags.name as string | undefined) ?? SERVICE_NAME;
    const log = ctx.logger.for('service.ts');
    let code = 0;
    const advapi32 = win.win32().advapi32;
    // The service control manager gives a starting service 30 s (ServicesPipeTimeout) to get here, so nothing of the
    // flow (configuration, metadata, plugins) comes before: it all runs in ServiceMain, after RUNNING is reported.
    // The figure is in docs/windows.md (test/bench/windows-service-start.bench.ts measures it); the log file has it
    // too.
    const connecting = `StartServiceCtrlDispatcherW called ${Math.round(process.uptime() * 1000)} ms after the process started`;
    log.debug(connecting);
    await advapi32.runService(
      name,
      async () => {
        code = await runCloudbaseInitFlow(ctx, args, connecting);
        return code;
      },
      (line) => log.warn(line),
    );
    return code;
  },
};
