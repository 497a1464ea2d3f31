// The cloudbase-init face's default command (and `kiln cloudbase-init`): load cloudbase-init.conf and run the plugin
// flow.
import { createFilesystemFinder } from '../devices/create-finder';
import type { ConfigDriveLocation, ConfigDriveType } from '../devices/windows-finder';
import { loadCloudbaseConf, type CloudbaseConf } from '../config/cloudbase-init-conf';
import { logFilePath } from '../config/log-file-path';
import { randomPassword } from '../plugins/random-password';
import { runCloudbaseInit, type RunReport } from '../plugins/runner';
import type { SourceSet } from '../sources/source-set';
import { DATASOURCES, WINDOWS_ONLY_SOURCES } from '../sources/registry';
import { UsageError } from '../util/errors';
import { FileSink, StreamSink } from '../util/log';
import type { Command, CommandContext, ParsedArgs } from './command';

/**
 * The real sources: kiln's datasources, and drive letters and physical drives searched in [config_drive] types ×
 * locations order.
 */
function windowsSources(ctx: CommandContext, conf: CloudbaseConf): SourceSet {
  const types = conf
    .listValue('types', 'config_drive')
    .filter((t): t is ConfigDriveType => t === 'vfat' || t === 'iso');
  const locations = conf
    .listValue('locations', 'config_drive')
    .filter((l): l is ConfigDriveLocation => l === 'cdrom' || l === 'hdd' || l === 'partition');
  const finder = createFilesystemFinder({
    os: 'windows',
    root: ctx.root,
    facts: ctx.facts,
    env: ctx.env,
    log: ctx.logger.for('configdrive.py'),
    types,
    locations,
  });
  return { sources: [...DATASOURCES, ...WINDOWS_ONLY_SOURCES], finder };
}

export const CLOUDBASE_INIT_FLAGS = {
  string: ['config-file', 'log-file', 'log-dir'],
  boolean: [
    'reset_service_password',
    'noreset_service_password',
    'verbose',
    'nostop_service_on_exit',
    'noallow_reboot',
  ],
  repeatable: ['config-file'],
  help: [
    '--config-file PATH            cloudbase-init.conf to read (may be repeated; later files win over earlier ones)',
    '--noreset_service_password    do not reset the service account password (kiln runs as LocalSystem: no effect)',
    '--noallow_reboot              never reboot, even when a plugin asks to (allow_reboot=false)',
    '--log-file NAME, --log-dir D  log to D\\NAME as cloudbase-init does (log_file, log_dir)',
    '--verbose                     log INFO messages to stderr',
  ],
};

async function loadConf(ctx: CommandContext, args: ParsedArgs): Promise<CloudbaseConf> {
  const platform = ctx.platform();
  const files: Array<{ path: string; text: string }> = [];
  const embedded = ctx.facts.defaultConfigs['cloudbase-init.conf'];
  if (embedded !== undefined) files.push({ path: '<embedded cloudbase-init.conf>', text: embedded });
  for (const path of (args.flags['config-file'] as string[] | undefined) ?? []) {
    const text = await platform.readTextIfExists(path);
    if (text === undefined) throw new UsageError(`--config-file ${path}: no such file`);
    files.push({ path, text });
  }
  const conf = loadCloudbaseConf(files);
  if (args.flags.noreset_service_password === true) conf.set('reset_service_password', 'false');
  if (args.flags.noallow_reboot === true) conf.set('allow_reboot', 'false');
  if (args.flags.nostop_service_on_exit === true) conf.set('stop_service_on_exit', 'false');
  if (typeof args.flags['log-file'] === 'string') conf.set('log_file', args.flags['log-file']);
  if (typeof args.flags['log-dir'] === 'string') conf.set('log_dir', args.flags['log-dir']);
  return conf;
}

function summary(report: RunReport): string {
  const lines = report.plugins.map(
    (p) =>
      `${p.stage.padEnd(22)} ${p.name.padEnd(34)} ${p.outcome}${p.reboot ? ' (reboot)' : ''}${p.error ? `: ${p.error}` : ''}`,
  );
  if (report.service)
    lines.unshift(
      `metadata: ${report.service.classPath} (${report.service.datasource}), instance ${report.instanceId ?? '?'}`,
    );
  for (const w of report.warnings) lines.push(`warning: ${w}`);
  for (const e of report.errors) lines.push(`error: ${e}`);
  if (report.rebooting) lines.push('rebooting');
  else if (report.rebootSuppressed) lines.push('a reboot was asked for but allow_reboot is false');
  return `${lines.join('\n')}\n`;
}

/**
 * Loads the configuration and runs the whole flow. The exit code is 0 once the flow has run, whatever a plugin or the
 * discovery did, as cloudbase-init's configure_host logs "No metadata service found" or a plugin's failure and exits
 * 0: images run it in sysprep's specialize pass as `… && exit 1 || exit 2`, where 2 means "reboot and run this
 * again", so a failure would reboot the machine forever. The failures are in the log, the plugin state and the summary.
 */
export async function runCloudbaseInitFlow(ctx: CommandContext, args: ParsedArgs, firstLine?: string): Promise<number> {
  if (ctx.dryRun)
    throw new UsageError(
      '--dry-run is not supported by the cloudbase-init flow yet (registry and account changes cannot be planned)',
    );
  const platform = ctx.platform();
  const windows = platform.windows?.();
  if (!windows) throw new UsageError('the cloudbase-init flow runs on Windows only; this is not a Windows build');
  const conf = await loadConf(ctx, args);
  const logPath = logFilePath(conf.str('log_file'), conf.str('log_dir'));
  if (logPath)
    ctx.logger.addSink(new FileSink(conf.bool('debug') || ctx.debug ? 'DEBUG' : 'INFO', platform.hostPath(logPath)));
  if (args.flags.verbose === true && !ctx.debug)
    ctx.logger.addSink(new StreamSink('INFO', { write: (s: string) => ctx.io.err(s) }));
  // FIRST_LINE: what the caller has to say before the flow, once the log file is open (the service: when it connected).
  if (firstLine) ctx.logger.for('service.ts').info(firstLine);
  const log = ctx.logger.for('init.py');
  for (const w of [...conf.deprecated, ...conf.unknown]) log.warn(w);
  for (const n of conf.ignored) log.debug(n);
  const sources = windowsSources(ctx, conf);
  const report = await runCloudbaseInit({
    platform,
    windows,
    log,
    conf,
    ...sources,
    randomPassword,
    env: ctx.env,
    secret: (value) => ctx.logger.redactor.add(value),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  ctx.io.out(summary(report));
  return 0;
}

export const cloudbaseInitRunCommand: Command = {
  words: [],
  summary: 'run the cloudbase-init flow: PRE_NETWORKING, PRE_METADATA_DISCOVERY, metadata discovery, MAIN plugins',
  usage: '[--config-file PATH] [--noreset_service_password] [--noallow_reboot]',
  faces: ['cloudbase-init'],
  os: 'windows',
  positional: [0, 0],
  flags: CLOUDBASE_INIT_FLAGS,
  run: (ctx, args) => runCloudbaseInitFlow(ctx, args),
};

export const kilnCloudbaseInitCommand: Command = {
  ...cloudbaseInitRunCommand,
  words: ['cloudbase-init'],
  usage: 'cloudbase-init [--config-file PATH] [--noreset_service_password] [--noallow_reboot]',
  faces: ['kiln'],
};
