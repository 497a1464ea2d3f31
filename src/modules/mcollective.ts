// cc_mcollective: installs mcollective, merges `conf` into server.cfg (keeping the file's other lines), writes the SSL
// certificates and restarts the service.
import { isRecord } from './support/config-shapes';
import {
  emptyConfigObj,
  emptySection,
  parseConfigObj,
  writeConfigObj,
  type ConfigObjFile,
  type ConfigObjValue,
} from './support/configobj-file';
import { installPackages } from './support/install-packages';
import { pyStr } from '../util/python-str';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';

const MODULE = 'mcollective';
export const SERVER_CFG = '/etc/mcollective/server.cfg';
export const PUBCERT_FILE = '/etc/mcollective/ssl/server-public.pem';
export const PRICERT_FILE = '/etc/mcollective/ssl/server-private.pem';

/** A YAML value as ConfigObj stores it when assigned (lists stay lists, the rest becomes Python's str()). */
function toValue(v: unknown): ConfigObjValue {
  return Array.isArray(v) ? v.map(pyStr) : pyStr(v);
}

/** cloud-init's configure(): the merged server.cfg text, the certificates written on the way. */
export async function configureMcollective(ctx: ModuleContext, conf: Record<string, unknown>): Promise<void> {
  const old = await ctx.platform.readTextIfExists(SERVER_CFG);
  if (old === undefined) ctx.log.debug(`Did not find file ${SERVER_CFG} (starting with an empty config)`);
  const file: ConfigObjFile = old === undefined ? emptyConfigObj() : parseConfigObj(MODULE, old);
  const root = file.root;
  const setScalar = (k: string, v: ConfigObjValue) => root.scalars.set(k, v);
  for (const [name, value] of Object.entries(conf)) {
    if (name === 'public-cert') {
      await ctx.platform.writeFile(PUBCERT_FILE, pyStr(value), { mode: 0o644 });
      setScalar('plugin.ssl_server_public', PUBCERT_FILE);
      setScalar('securityprovider', 'ssl');
    } else if (name === 'private-cert') {
      await ctx.platform.writeFile(PRICERT_FILE, pyStr(value), { mode: 0o600 });
      setScalar('plugin.ssl_server_private', PRICERT_FILE);
      setScalar('securityprovider', 'ssl');
    } else if (isRecord(value)) {
      if (!root.sections.has(name)) {
        root.scalars.delete(name);
        root.sections.set(name, emptySection());
      }
      const sec = root.sections.get(name) as ReturnType<typeof emptySection>;
      for (const [k, v] of Object.entries(value)) sec.scalars.set(k, toValue(v));
    } else {
      if (root.sections.has(name))
        throw new ModuleError(
          MODULE,
          `mcollective.conf.${name}: a section of server.cfg cannot be replaced by a value`,
        );
      setScalar(name, typeof value === 'string' ? value : pyStr(value));
    }
  }
  if (old !== undefined) await ctx.platform.writeFile(`${SERVER_CFG}.old`, old, { mode: 0o644 });
  await ctx.platform.writeFile(SERVER_CFG, writeConfigObj(MODULE, file), { mode: 0o644 });
}

export const mcollectiveModule: Module = {
  name: 'mcollective',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['mcollective'],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    if (!('mcollective' in cfg)) {
      ctx.log.debug("Skipping module named mcollective, no 'mcollective' key in configuration");
      return;
    }
    const mcfg = cfg.mcollective;
    if (!isRecord(mcfg)) throw new ModuleError(MODULE, `'mcollective' must be a mapping, not ${JSON.stringify(mcfg)}`);
    await installPackages(ctx, MODULE, ['mcollective']);
    if ('conf' in mcfg) {
      if (!isRecord(mcfg.conf)) throw new ModuleError(MODULE, "'mcollective.conf' must be a mapping");
      await configureMcollective(ctx, mcfg.conf);
    }
    const argv = ['service', 'mcollective', 'restart'];
    const r = await ctx.platform.run(argv, { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
  },
};
