// cc_rsyslog: writes rsyslog.configs and remotes into /etc/rsyslog.d and reloads rsyslog.
import { posix } from 'node:path';
import { bytesRepr, pyRepr } from '../config/schema/python-repr';
import { pyTypeName } from '../util/python-type-name';
import { type Module, type ModuleContext, ModuleError } from './module';
import { configModule } from './support/config-module';
import { isMapping, type ReaderWarn, readConfigValue } from './support/config-readers';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { processExecutionMessage } from '../util/process-execution-message';
import { serviceCommand } from './support/service-control';
import { readingRsyslogList } from './support/rsyslog-list-format';
import { describeError } from '../util/errors';

const DEF_FILENAME = '20-cloud-config.conf';
const DEF_DIR = '/etc/rsyslog.d';
const HOST_PORT = /^(@{0,2})(?:\[([^\]]*)\]|([^:]*))(?::([0-9]+))?$/;

/** The PATH cloud-init's subp.which searches on a booting system (the target's, under --root). */
const SEARCH_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

async function targetHasCommand(ctx: ModuleContext, exe: string): Promise<boolean> {
  if (exe.startsWith('/')) return ctx.platform.exists(exe);
  for (const dir of SEARCH_PATH) if (await ctx.platform.exists(posix.join(dir, exe))) return true;
  return false;
}

/** The keys of `rsyslog` load_config reads (the others it never looks at). */
const RSYSLOG_KEYS = [
  'configs',
  'config_dir',
  'config_filename',
  'remotes',
  'service_reload_command',
  'install_rsyslog',
  'check_exe',
  'packages',
];

/**
 * The configs entries apply_rsyslog_changes writes, each a string or a mapping with its content (and file name),
 * as strings: an entry without content or whose file name is blank is warned about (by its place in the list given)
 * and left out, as upstream skips it.
 */
function readConfigs(entries: readonly unknown[], defaultFilename: string, warn?: ReaderWarn): unknown[] {
  const kept: unknown[] = [];
  for (const [i, entry] of entries.entries()) {
    let filename = defaultFilename;
    let read: unknown;
    if (isMapping(entry)) {
      if (!Object.hasOwn(entry, 'content')) {
        warn?.(`No 'content' entry in config entry ${i + 1}`);
        continue;
      }
      if (typeof entry.filename === 'string') filename = entry.filename;
      read = {
        content: readConfigValue('str', entry.content),
        ...(typeof entry.filename === 'string' ? { filename } : {}),
      };
    } else read = readConfigValue('str', entry);
    if (!filename.trim()) {
      warn?.(`Entry ${i + 1} has an empty filename`);
      continue;
    }
    kept.push(read);
  }
  return kept;
}

/** The reload commands readRsyslog made of a string: subp's error shows the string as it is, not a list. */
const RELOAD_STRINGS = new WeakSet<readonly unknown[]>();

/**
 * The TypeError load_config's `key not in mycfg` (and `mycfg[key] = default`) raises for an `rsyslog` that is not a
 * mapping (nor the list form, folded before): null, a number or a bool is not iterable; a str takes no item.
 */
function notAMapping(value: unknown): ModuleError {
  const message =
    typeof value === 'string'
      ? value.includes('configs')
        ? "string indices must be integers, not 'str'"
        : "'str' object does not support item assignment"
      : `argument of type '${pyTypeName(value)}' is not iterable`;
  return Object.assign(new ModuleError('rsyslog', message), { pythonName: 'TypeError' });
}

/**
 * `rsyslog` as load_config and handle read it: a value that is not a mapping fails (notAMapping); of a mapping only
 * the keys upstream reads, the configs entries it writes (readConfigs), packages and a reload command list each item
 * its str().
 */
function readRsyslog(value: unknown, warn?: ReaderWarn): unknown {
  if (!isMapping(value)) {
    if (value === null || typeof value !== 'object' || value instanceof Date) throw notAMapping(value);
    return value;
  }
  const read = Object.fromEntries(
    RSYSLOG_KEYS.filter((key) => value[key] !== undefined && Object.hasOwn(value, key)).map((key) => [key, value[key]]),
  );
  const asStrings = (list: readonly unknown[]) => list.map((item) => readConfigValue('str', item));
  const { configs, config_filename: filename, service_reload_command: reload, packages } = read;
  if (Array.isArray(configs))
    read.configs = readConfigs(configs, typeof filename === 'string' ? filename : DEF_FILENAME, warn);
  if (Array.isArray(reload)) read.service_reload_command = asStrings(reload);
  else if (typeof reload === 'string' && reload !== 'auto') {
    // 25.1's schema allows only 'auto' as a string, yet reload_syslog hands any string to subp: one program name.
    const argv = [reload];
    RELOAD_STRINGS.add(argv);
    read.service_reload_command = argv;
  }
  if (Array.isArray(packages)) read.packages = asStrings(packages);
  return read;
}

/** One remotes entry ("[match] [@|@@]host[:port] [# name]") as the rsyslog forwarding line. */
export function remoteLine(line: string, name: string | undefined): string {
  const parts = line.split(/[ ]*#+[ ]*/);
  let data = line;
  let comment: string | undefined;
  if (parts.length === 2) {
    data = parts[0] as string;
    comment = (parts[1] as string).trim();
  }
  const toks = data.trim().split(/\s+/);
  let match = '*.*';
  let hostPort = data;
  if (toks.length === 2) [match, hostPort] = toks as [string, string];
  else if (toks.length > 2) throw new Error(`line had multiple spaces: ${data}`);
  const m = HOST_PORT.exec(hostPort);
  if (!m) throw new Error(`Invalid host specification '${hostPort}'`);
  const proto = m[1] === '@@' ? 'tcp' : 'udp';
  const addr = m[3] || m[2] || '';
  if (!addr) throw new Error('address is required');
  const label = name || comment;
  let buf = `${match} ${proto === 'tcp' ? '@@' : '@'}${addr.includes(':') ? `[${addr}]` : addr}`;
  if (m[4]) buf += `:${Number(m[4])}`;
  if (label) buf += ` # ${label}`;
  return buf;
}

export const rsyslog: Module = readingRsyslogList(
  configModule({
    name: 'rsyslog',
    stage: 'init',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: ['rsyslog'],
    configKeys: { rsyslog: readRsyslog, system_info: { rsyslog_svcname: 'as-is' } },
    async run(ctx, cfg): Promise<void> {
      const my = cfg.rsyslog;
      if (my === undefined) {
        ctx.log.debug("Skipping module named rsyslog, no 'rsyslog' key in configuration");
        return;
      }
      const configs: Array<string | { readonly content: string; readonly filename?: string }> = [...(my.configs ?? [])];
      const configFilename = my.config_filename ?? DEF_FILENAME;
      const remotes = my.remotes ?? {};
      if (Object.keys(remotes).length > 0) {
        const lines = ['# begin remotes'];
        for (const [name, line] of Object.entries(remotes)) {
          if (!line) continue;
          try {
            lines.push(remoteLine(String(line), name));
          } catch (err) {
            ctx.log.warn(`failed loading remote ${name}: ${String(line)} [${describeError(err)}]`);
          }
        }
        lines.push('# end remotes');
        // The remotes entry goes to the default file; the configs given were read (and warned about) before.
        if (configFilename.trim()) configs.push(`${lines.join('\n')}\n`);
        else ctx.log.warn(`Entry ${configs.length + 1} has an empty filename`);
      }
      if (my.install_rsyslog) {
        // Newer upstream: install rsyslog (the distro's default packages and program) when it is missing.
        const checkExe = my.check_exe ?? 'rsyslogd';
        const packages = my.packages ?? ['rsyslog'];
        if (await targetHasCommand(ctx, checkExe))
          ctx.log.debug(`${checkExe} found, not installing ${packages.join(', ')}`);
        else {
          ctx.log.debug(`${checkExe} not found, installing ${packages.join(', ')}`);
          await installPackages(ctx, 'rsyslog', [...packages]);
        }
      }
      if (configs.length === 0) {
        ctx.log.debug("Empty config rsyslog['configs'], nothing to do");
        return;
      }
      const configDir = my.config_dir ?? DEF_DIR;
      const files: string[] = [];
      for (const entry of configs) {
        const content = typeof entry === 'string' ? entry : entry.content;
        const filename = (typeof entry === 'string' ? configFilename : (entry.filename ?? configFilename)).trim();
        const path = posix.join(configDir, filename);
        const append = files.includes(path);
        if (!append) files.push(path);
        await ctx.platform.writeFile(path, content.endsWith('\n') ? content : `${content}\n`, { append });
      }
      if (files.length === 0) {
        ctx.log.debug('restart of syslog not necessary, no changes made');
        return;
      }
      // reload_syslog: 'auto' is manage_service('try-reload', system_info's rsyslog_svcname or 'rsyslog'); any other
      // command goes to subp as it is, without a shell (a string is one program name).
      const reload = my.service_reload_command ?? 'auto';
      let argv: string[];
      let shown: string | undefined;
      if (reload === 'auto') {
        if (ctx.platform.root !== '/') {
          ctx.log.debug('rsyslog: the target is not the running system, not reloading rsyslog');
          return;
        }
        const svcname = cfg.system_info?.rsyslog_svcname;
        argv = await serviceCommand(ctx, 'try-reload', typeof svcname === 'string' ? svcname : 'rsyslog');
      } else {
        argv = [...reload];
        if (RELOAD_STRINGS.has(reload)) shown = argv[0];
      }
      const program = argv[0] ?? '';
      let failure: string | undefined;
      if (!(await whichInTarget(ctx.platform, program))) {
        // Popen's OSError, as subp wraps it.
        failure = processExecutionMessage({
          argv: shown ?? argv,
          reason: `[Errno 2] No such file or directory: ${bytesRepr(Buffer.from(program))}`,
        });
      } else {
        const r = await ctx.platform.run(argv, { allowFailure: true });
        if (r.code !== 0)
          failure = processExecutionMessage({ argv: shown ?? argv, code: r.code, stdout: r.stdout, stderr: r.stderr });
      }
      if (failure !== undefined) ctx.log.warn(`Failed to reload syslog ${failure}`);
      else ctx.log.debug(`rsyslog configured ${pyRepr(files)} files`);
    },
  }),
);
