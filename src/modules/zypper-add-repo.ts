// cc_zypper_add_repo: repo files in /etc/zypp/repos.d and settings appended to /etc/zypp/zypp.conf.
import { posix } from 'node:path';
import { pyStr } from '../util/python-str';
import { pyTruthy } from '../util/python-truthy';
import { configModule } from './support/config-module';
import { isMapping, type ReaderWarn } from './support/config-readers';
import { type Module, type ModuleContext, ModuleError } from './module';

/** Settings of a repo file or of zypp.conf, each value as formatValue writes it. */
type Settings = { readonly [key: string]: unknown };

function formatValue(v: unknown): string {
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (Array.isArray(v)) return v.map(formatValue).join('\n    ');
  return typeof v === 'string' ? v : String(v);
}

/**
 * ConfigObj's _quote for one string (stringify and list_values on, as a new ConfigObj has them): a value needing
 * it is quoted, in triple quotes (''' unless the value holds it) when it has a line break or both quote characters
 * and multiline is allowed (values, not keys or the section name); one that cannot be quoted fails the module, as
 * ConfigObjError does.
 */
function quote(v: string, multiline: boolean): string {
  if (v === '') return '""';
  const unquotable = (): never => {
    throw new ModuleError('zypper_add_repo', `Value "${v}" cannot be safely quoted.`);
  };
  const both = v.includes("'") && v.includes('"');
  const needTriple = multiline && (both || v.includes('\n'));
  const hashTriple = multiline && !needTriple && both && v.includes('#');
  if (needTriple || hashTriple) {
    if (v.includes('"""') && v.includes("'''")) unquotable();
    return v.includes('"""') ? `"""${v}"""` : `'''${v}'''`;
  }
  if (v.includes('\n')) unquotable();
  const ws = ' \r\n\v\t\'"';
  const plain = !ws.includes(v[0] as string) && !ws.includes(v[v.length - 1] as string) && !v.includes(',');
  if (plain && !v.includes('#')) return v;
  if (both) unquotable();
  return v.includes('"') ? `'${v}'` : `"${v}"`;
}

export function formatZypperRepo(id: string, config: Settings): string {
  return [
    `[${quote(id, false)}]`,
    ...Object.entries(config).map(([k, v]) => `${quote(k, false)} = ${quote(formatValue(v), true)}`),
  ].join('\n');
}

async function writeZyppConfig(ctx: ModuleContext, config: Settings): Promise<void> {
  if (Object.keys(config).length === 0) return;
  const path = '/etc/zypp/zypp.conf';
  const current = (await ctx.platform.readTextIfExists(path)) ?? '';
  const settings = ['# Added via cloud.cfg'];
  for (const [k, v] of Object.entries(config)) {
    if (k === 'configdir') {
      ctx.log.warn('Changing the location of the zypper configuration is not supported, skipping "configdir" setting');
      continue;
    }
    // '%s=%s' % (setting, value): Python's str() of the value (True, not 1).
    if (pyTruthy(v)) settings.push(`${k}=${pyStr(v)}`);
  }
  await ctx.platform.writeFile(path, settings.length > 1 ? current + settings.join('\n') : current);
}

/**
 * zypper.repos as _write_repos reads it: a repo without id or baseurl (one that is not a mapping has neither) is warned
 * about and skipped, as upstream (the schema requires both); baseurl is the text it is written as; the repos left
 * (maybe none: zypp.conf is still written).
 */
function readRepos(value: unknown, warn?: ReaderWarn): unknown {
  if (!pyTruthy(value)) return undefined;
  if (!Array.isArray(value)) return value;
  const repos: Settings[] = [];
  for (const [index, raw] of value.entries()) {
    const repo = isMapping(raw) ? raw : {};
    const missing = ['id', 'baseurl'].filter((k) => !(k in repo));
    if (missing.length) {
      warn?.(`Repo config at index ${index} is missing required config keys: ${missing.join(',')}`);
      continue;
    }
    repos.push({ ...repo, baseurl: formatValue(repo.baseurl) });
  }
  return repos;
}

/** zypper as handle reads it: a Python-false section is none; its repos (Python-false: none) and config, if set. */
function readZypper(value: unknown, warn?: ReaderWarn): unknown {
  if (!pyTruthy(value)) return undefined;
  if (!isMapping(value)) return value;
  const repos = readRepos(value.repos, warn);
  const config = pyTruthy(value.config) ? value.config : undefined;
  return { ...(repos === undefined ? {} : { repos }), ...(config === undefined ? {} : { config }) };
}

export const zypperAddRepoModule: Module = configModule({
  name: 'zypper_add_repo',
  stage: 'config',
  frequency: 'always',
  distros: ['opensuse', 'sles'],
  activateBy: ['zypper'],
  configKeys: { zypper: readZypper },
  async run(ctx, cfg): Promise<void> {
    const section = cfg.zypper;
    if (!section) {
      ctx.log.debug("Skipping module named zypper_add_repo, no 'zypper' relevant configuration found");
      return;
    }
    const repos = section.repos;
    if (!repos) {
      ctx.log.debug("Skipping module named zypper_add_repo, no 'repos' configuration found");
      return;
    }
    const config = section.config ?? {};
    const base = typeof config.reposdir === 'string' ? config.reposdir : '/etc/zypp/repos.d/';
    await writeZyppConfig(ctx, config);
    const valid = new Map<string, { path: string; config: Settings }>();
    for (const repo of repos) {
      const repoId = repo.id;
      const path = posix.join(base, `${repoId.replace(/ /g, '_')}.repo`);
      if (await ctx.platform.exists(path)) {
        ctx.log.info(`Skipping repo ${repoId}, file ${path} already exists!`);
        continue;
      }
      if (valid.has(repoId)) {
        ctx.log.info(`Skipping repo ${repoId}, file ${path} already pending!`);
        continue;
      }
      const conf: { [key: string]: unknown } = {};
      for (const [k, v] of Object.entries(repo))
        if (k && k !== 'id') conf[k.toLowerCase().trim().replace(/-/g, '_')] = v;
      for (const f of ['enabled', 'autorefresh']) if (!(f in conf)) conf[f] = '1';
      valid.set(repoId, { path, config: conf });
    }
    for (const [id, { path, config: conf }] of valid) await ctx.platform.writeFile(path, formatZypperRepo(id, conf));
  },
});
