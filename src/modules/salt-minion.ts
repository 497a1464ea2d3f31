// cc_salt_minion: installs salt-minion, writes the minion config and grains as YAML, the minion key pair into pki_dir,
// enables and restarts the service (a masterless minion, conf.file_client 'local': disables and stops it, then runs
// `salt-call --local state.apply`).
import { posix } from 'node:path';
import { pyyamlDump } from '../config/pyyaml-dump';
import { installPackages } from './support/install-packages';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { ModuleError, type Module, type ModuleContext } from './module';
import { configModule } from './support/config-module';
import { isRecord } from './support/config-shapes';
import { manageService } from './support/service-control';
import { pyTruthy } from '../util/python-truthy';
import { pyTypeName } from '../util/python-type-name';

const MODULE = 'salt_minion';

/**
 * SaltConstants on Linux (kiln has no FreeBSD family, where cloud-init uses py-salt, salt_minion and
 * /usr/local/etc/salt).
 */
export function saltConstants(scfg: CloudConfigValue<'salt_minion'>): {
  pkgName: string;
  confDir: string;
  srvName: string;
} {
  return {
    pkgName: scfg.pkg_name ?? 'salt-minion',
    confDir: scfg.config_dir ?? '/etc/salt',
    srvName: scfg.service_name ?? 'salt-minion',
  };
}

/** cloud-init's safeyaml.dumps: '---', PyYAML's block style with indent 4, '...'. */
function safeyamlDumps(v: unknown): string {
  if (v === null || v === undefined) return '--- null\n...\n';
  if (typeof v !== 'object') return `--- ${pyyamlDump(v)}`;
  if (Object.keys(v).length === 0) return `--- ${Array.isArray(v) ? '[]' : '{}'}\n...\n`;
  return `---\n${pyyamlDump(v)}...\n`;
}

/** ensure_dir under umask 077: each folder made on the way is 0700 (existing ones are left alone). */
async function ensurePrivateDir(ctx: ModuleContext, dir: string): Promise<void> {
  const parts = dir.split('/').filter(Boolean);
  for (let i = 1; i <= parts.length; i++) {
    const p = `/${parts.slice(0, i).join('/')}`;
    if (!(await ctx.platform.exists(p))) await ctx.platform.mkdir(p, { mode: 0o700 });
  }
}

export const saltMinionModule: Module = configModule({
  name: 'salt_minion',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['salt_minion'],
  // SaltConstants reads pkg_name, config_dir and service_name with get_cfg_option_str; the rest are used as given.
  configKeys: {
    salt_minion: {
      pkg_name: 'str',
      config_dir: 'str',
      service_name: 'str',
      conf: 'as-is',
      grains: 'as-is',
      public_key: 'as-is',
      private_key: 'as-is',
      pki_dir: 'as-is',
    },
  },
  async run(ctx, cfg): Promise<void> {
    const scfg = cfg.salt_minion;
    if (scfg === undefined) {
      ctx.log.debug("Skipping module named salt_minion, no 'salt_minion' key in configuration");
      return;
    }
    const c = saltConstants(scfg);
    await installPackages(ctx, MODULE, [c.pkgName]);
    await ctx.platform.mkdir(c.confDir);
    if ('conf' in scfg)
      await ctx.platform.writeFile(posix.join(c.confDir, 'minion'), safeyamlDumps(scfg.conf), { mode: 0o644 });
    if ('grains' in scfg)
      await ctx.platform.writeFile(posix.join(c.confDir, 'grains'), safeyamlDumps(scfg.grains), { mode: 0o644 });
    if (scfg.public_key !== undefined && scfg.private_key !== undefined) {
      let pkiDefault = posix.join(c.confDir, 'pki/minion');
      if ((await ctx.platform.stat(pkiDefault))?.type !== 'directory') pkiDefault = posix.join(c.confDir, 'pki');
      const pki = scfg.pki_dir ?? pkiDefault;
      await ensurePrivateDir(ctx, pki);
      // As 22.4: the folder is private (umask 077), the files get write_file's 0644.
      await ctx.platform.writeFile(posix.join(pki, 'minion.pub'), scfg.public_key, { mode: 0o644 });
      await ctx.platform.writeFile(posix.join(pki, 'minion.pem'), scfg.private_key, { mode: 0o644 });
    }
    // conf.file_client 'local' is a masterless minion: no daemon, one local state run instead.
    const conf: unknown = scfg.conf;
    if (pyTruthy(conf) && !isRecord(conf))
      throw Object.assign(new ModuleError(MODULE, `'${pyTypeName(conf)}' object has no attribute 'get'`), {
        pythonName: 'AttributeError',
      });
    const daemon = !(isRecord(conf) && conf.file_client === 'local');
    await manageService(ctx, daemon ? 'enable' : 'disable', c.srvName);
    await manageService(ctx, daemon ? 'restart' : 'stop', c.srvName);
    if (!daemon) {
      const argv = ['salt-call', '--local', 'state.apply'];
      const r = await ctx.platform.run(argv, { allowFailure: true });
      if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
      if (r.code !== 0) throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
    }
  },
});
