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
import { ModuleError, type Module, type ModuleContext } from './module';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';

const MODULE = 'mcollective';
export const SERVER_CFG = '/etc/mcollective/server.cfg';
export const PUBCERT_FILE = '/etc/mcollective/ssl/server-public.pem';
export const PRICERT_FILE = '/etc/mcollective/ssl/server-private.pem';

/** A YAML value as ConfigObj stores it when assigned (lists stay lists, the rest becomes Python's str()). */
function toValue(v: unknown): ConfigObjValue {
  return Array.isArray(v) ? v.map(pyStr) : pyStr(v);
}

/** One entry of mcollective.conf, as configure() applies it to server.cfg. */
export type ServerCfgEntry =
  /** A certificate's text, written to its file and named in server.cfg. */
  | { readonly kind: 'public-cert'; readonly text: string }
  | { readonly kind: 'private-cert'; readonly text: string }
  /** A mapping: the settings of the section NAME, made when missing. */
  | { readonly kind: 'section'; readonly name: string; readonly settings: ReadonlyMap<string, ConfigObjValue> }
  /** Any other value: the main section's setting NAME, its str(). */
  | { readonly kind: 'value'; readonly name: string; readonly value: string };

/** mcollective as handle reads it. */
export interface McollectiveConfig {
  /** conf's entries in order; null for a conf that is no mapping, which configure() cannot read. */
  readonly conf?: readonly ServerCfgEntry[] | null;
}

/** CONF's entry NAME as configure() reads it. */
function serverCfgEntry(name: string, value: unknown): ServerCfgEntry {
  if (name === 'public-cert' || name === 'private-cert') return { kind: name, text: pyStr(value) };
  if (isRecord(value))
    return {
      kind: 'section',
      name,
      settings: new Map(Object.entries(value).map(([k, v]) => [k, toValue(v)])),
    };
  return { kind: 'value', name, value: typeof value === 'string' ? value : pyStr(value) };
}

/**
 * mcollective as handle reads it: a mapping, else refused in the module's words before anything is installed; its
 * conf's entries each as configure() assigns it (a nested mapping is a section of settings, which 25.1's schema
 * rejects and its module writes).
 */
function mcollectiveSetting(value: unknown): McollectiveConfig {
  if (!isRecord(value)) throw new ModuleError(MODULE, `'mcollective' must be a mapping, not ${JSON.stringify(value)}`);
  if (!('conf' in value)) return {};
  const conf = value.conf;
  return { conf: isRecord(conf) ? Object.entries(conf).map(([name, v]) => serverCfgEntry(name, v)) : null };
}

/** cloud-init's configure(): the merged server.cfg text, the certificates written on the way. */
export async function configureMcollective(ctx: ModuleContext, conf: readonly ServerCfgEntry[]): Promise<void> {
  const old = await ctx.platform.readTextIfExists(SERVER_CFG);
  if (old === undefined) ctx.log.debug(`Did not find file ${SERVER_CFG} (starting with an empty config)`);
  const file: ConfigObjFile = old === undefined ? emptyConfigObj() : parseConfigObj(MODULE, old);
  const root = file.root;
  const setScalar = (k: string, v: ConfigObjValue) => root.scalars.set(k, v);
  for (const entry of conf) {
    if (entry.kind === 'public-cert') {
      await ctx.platform.writeFile(PUBCERT_FILE, entry.text, { mode: 0o644 });
      setScalar('plugin.ssl_server_public', PUBCERT_FILE);
      setScalar('securityprovider', 'ssl');
    } else if (entry.kind === 'private-cert') {
      await ctx.platform.writeFile(PRICERT_FILE, entry.text, { mode: 0o600 });
      setScalar('plugin.ssl_server_private', PRICERT_FILE);
      setScalar('securityprovider', 'ssl');
    } else if (entry.kind === 'section') {
      let sec = root.sections.get(entry.name);
      if (sec === undefined) {
        root.scalars.delete(entry.name);
        sec = emptySection();
        root.sections.set(entry.name, sec);
      }
      for (const [k, v] of entry.settings) sec.scalars.set(k, v);
    } else {
      if (root.sections.has(entry.name))
        throw new ModuleError(
          MODULE,
          `mcollective.conf.${entry.name}: a section of server.cfg cannot be replaced by a value`,
        );
      setScalar(entry.name, entry.value);
    }
  }
  if (old !== undefined) await ctx.platform.writeFile(`${SERVER_CFG}.old`, old, { mode: 0o644 });
  await ctx.platform.writeFile(SERVER_CFG, writeConfigObj(MODULE, file), { mode: 0o644 });
}

export const mcollectiveModule: Module = configModule({
  name: 'mcollective',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: ['mcollective'],
  // 25.1's module writes conf's nested mappings as sections of server.cfg; its schema rejects them.
  configKeys: { mcollective: new OwnParser(mcollectiveSetting) },
  async run(ctx, cfg): Promise<void> {
    const mcfg = cfg.mcollective;
    if (mcfg === undefined) {
      ctx.log.debug("Skipping module named mcollective, no 'mcollective' key in configuration");
      return;
    }
    await installPackages(ctx, MODULE, ['mcollective']);
    if (mcfg.conf === null) throw new ModuleError(MODULE, "'mcollective.conf' must be a mapping");
    if (mcfg.conf !== undefined) await configureMcollective(ctx, mcfg.conf);
    const argv = ['service', 'mcollective', 'restart'];
    const r = await ctx.platform.run(argv, { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0) throw new ModuleError(MODULE, `'${argv.join(' ')}' exited with code ${r.code}`);
  },
});
