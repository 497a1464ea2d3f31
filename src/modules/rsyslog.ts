// cc_rsyslog: writes rsyslog.configs and remotes into /etc/rsyslog.d and reloads rsyslog.
import { posix } from 'node:path';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { installPackages } from './support/install-packages';
import { describeError } from '../util/errors';

const DEF_FILENAME = '20-cloud-config.conf';
const DEF_DIR = '/etc/rsyslog.d';
const HOST_PORT = /^(@{0,2})(?:\[([^\]]*)\]|([^:]*))(?::([0-9]+))?$/;

interface RsyslogConfig {
  configs: unknown[];
  configDir: string;
  configFilename: string;
  reload: string | string[];
  remotes: Record<string, unknown>;
  installRsyslog: boolean;
  packages: string[];
  checkExe: string;
}

/** The PATH cloud-init's subp.which searches on a booting system (the target's, under --root). */
const SEARCH_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

async function targetHasCommand(ctx: ModuleContext, exe: string): Promise<boolean> {
  if (exe.startsWith('/')) return ctx.platform.exists(exe);
  for (const dir of SEARCH_PATH) if (await ctx.platform.exists(posix.join(dir, exe))) return true;
  return false;
}

function loadConfig(ctx: ModuleContext, cfg: CloudConfig): RsyslogConfig {
  let my: Record<string, unknown>;
  const raw = cfg.rsyslog;
  if (Array.isArray(raw)) {
    ctx.log.warn(
      'DEPRECATION: This rsyslog list format is deprecated and will be removed in a future version of cloud-init. Use documented keys.',
    );
    my = { configs: raw };
    if ('rsyslog_filename' in cfg) my.config_filename = cfg.rsyslog_filename;
    if ('rsyslog_dir' in cfg) my.config_dir = cfg.rsyslog_dir;
  } else if (raw && typeof raw === 'object') my = raw as Record<string, unknown>;
  else if (raw === null || raw === undefined) my = {};
  else throw new ModuleError('rsyslog', "'rsyslog' must be a mapping");
  const typed = <T>(key: string, dflt: T, ok: (v: unknown) => boolean, what: string): T => {
    if (!(key in my) || my[key] === undefined) return dflt;
    if (!ok(my[key])) throw new ModuleError('rsyslog', `rsyslog.${key}: invalid type, expected ${what}`);
    return my[key] as T;
  };
  const isMap = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  return {
    configs: [...typed<unknown[]>('configs', [], Array.isArray, 'a list')],
    configDir: typed('config_dir', DEF_DIR, (v) => typeof v === 'string', 'a string'),
    configFilename: typed('config_filename', DEF_FILENAME, (v) => typeof v === 'string', 'a string'),
    reload: typed<string | string[]>(
      'service_reload_command',
      'auto',
      (v) => typeof v === 'string' || Array.isArray(v),
      'a string or a list',
    ),
    remotes: typed<Record<string, unknown>>('remotes', {}, isMap, 'a mapping'),
    // Newer upstream: install rsyslog (the distro's default packages and program) when it is missing.
    installRsyslog: typed('install_rsyslog', false, (v) => typeof v === 'boolean', 'a boolean'),
    packages: typed<unknown[]>('packages', ['rsyslog'], Array.isArray, 'a list').map(String),
    checkExe: typed('check_exe', 'rsyslogd', (v) => typeof v === 'string', 'a string'),
  };
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

export const rsyslog: Module = {
  name: 'rsyslog',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['rsyslog'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('rsyslog' in cfg)) {
      ctx.log.debug("Skipping module named rsyslog, no 'rsyslog' key in configuration");
      return;
    }
    const my = loadConfig(ctx, cfg);
    if (Object.keys(my.remotes).length > 0) {
      const lines = ['# begin remotes'];
      for (const [name, line] of Object.entries(my.remotes)) {
        if (!line) continue;
        try {
          lines.push(remoteLine(String(line), name));
        } catch (err) {
          ctx.log.warn(`failed loading remote ${name}: ${String(line)} [${describeError(err)}]`);
        }
      }
      lines.push('# end remotes');
      my.configs.push(`${lines.join('\n')}\n`);
    }
    if (my.installRsyslog) {
      if (await targetHasCommand(ctx, my.checkExe))
        ctx.log.debug(`${my.checkExe} found, not installing ${my.packages.join(', ')}`);
      else {
        ctx.log.debug(`${my.checkExe} not found, installing ${my.packages.join(', ')}`);
        await installPackages(ctx, 'rsyslog', my.packages);
      }
    }
    if (my.configs.length === 0) {
      ctx.log.debug("Empty config rsyslog['configs'], nothing to do");
      return;
    }
    const files: string[] = [];
    for (const [i, ent] of my.configs.entries()) {
      let content: string;
      let filename = my.configFilename;
      if (ent && typeof ent === 'object' && !Array.isArray(ent)) {
        const e = ent as Record<string, unknown>;
        if (!('content' in e)) {
          ctx.log.warn(`No 'content' entry in config entry ${i + 1}`);
          continue;
        }
        content = String(e.content);
        if (typeof e.filename === 'string') filename = e.filename;
      } else content = String(ent);
      filename = filename.trim();
      if (!filename) {
        ctx.log.warn(`Entry ${i + 1} has an empty filename`);
        continue;
      }
      const path = posix.join(my.configDir, filename);
      const append = files.includes(path);
      if (!append) files.push(path);
      await ctx.platform.writeFile(path, content.endsWith('\n') ? content : `${content}\n`, { append });
    }
    if (files.length === 0) {
      ctx.log.debug('restart of syslog not necessary, no changes made');
      return;
    }
    let argv: string[];
    if (my.reload === 'auto') {
      if (ctx.platform.root !== '/') {
        ctx.log.debug('rsyslog: the target is not the running system, not reloading rsyslog');
        return;
      }
      const ops = await distroOpsFor(ctx.platform, ctx.distro);
      argv =
        ctx.distro.family === 'alpine'
          ? ['rc-service', '--ifstarted', 'rsyslog', 'reload']
          : ['systemctl', 'try-reload-or-restart', ops.serviceName('rsyslog')];
    } else argv = Array.isArray(my.reload) ? my.reload.map(String) : ['/bin/sh', '-c', my.reload];
    const r = await ctx.platform.run(argv, { allowFailure: true });
    if (r.code !== 0) ctx.log.warn(`Failed to reload syslog: ${r.stderr.trim()}`);
    else ctx.log.debug(`rsyslog configured ${JSON.stringify(files)} files`);
  },
};
