// cc_apt_configure: debconf selections, sources.list from cloud-init's template or kiln's built-in one (mirrors by
// region/zone), proxies, apt.conf, extra sources and keys.
import { posix } from 'node:path';
import type { InstanceData } from '../sources/datasource';
import { describeError } from '../util/errors';
import { builtinSourcesListTemplate } from './support/builtin-templates';
import { readSystemTemplate, renderTemplateText } from './support/cloud-template';
import { isRecord } from './support/config-shapes';
import { isFalse, isTrue } from './support/config-values';
import { whichInTarget } from './support/distro-facts';
import { updatePackageSources } from './support/install-packages';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';
import { dearmorKey } from '../keys/openpgp-armor';
import { dpkgArchitecture } from '../platform/linux/dpkg-architecture';
import { readOsRelease } from '../platform/os-release';

const MODULE = 'apt_configure';
export const APT_CONFIG_FILE = '/etc/apt/apt.conf.d/94cloud-init-config';
export const APT_PROXY_FILE = '/etc/apt/apt.conf.d/90cloud-init-aptproxy';
export const APT_TRUSTED_GPG_DIR = '/etc/apt/trusted.gpg.d/';
export const CLOUD_INIT_GPG_DIR = '/etc/apt/cloud-init.gpg.d/';
const APT_LISTS = '/var/lib/apt/lists';
const DEFAULT_KEYSERVER = 'keyserver.ubuntu.com';
const ADD_APT_REPO_MATCH = '^[\\w-]+:\\w';
const PRIMARY_ARCH_MIRRORS = {
  PRIMARY: 'http://archive.ubuntu.com/ubuntu/',
  SECURITY: 'http://security.ubuntu.com/ubuntu/',
};
const PORTS_MIRRORS = {
  PRIMARY: 'http://ports.ubuntu.com/ubuntu-ports',
  SECURITY: 'http://ports.ubuntu.com/ubuntu-ports',
};
const EC2_AZ = /^[a-z][a-z]-(?:[a-z]+-)+[0-9][a-z]$/;

export interface AptDeps {
  /**
   * Fetches the armored key KEYID from KEYSERVER (cloud-init: gpg --recv-keys + --export --armor). Never used in tests.
   */
  fetchKey: (keyid: string, keyserver: string) => Promise<string>;
  /** True when the URL's host resolves (cloud-init's is_resolvable_url, used by mirror `search`). */
  resolvable: (url: string) => Promise<boolean>;
}

type Mirrors = Record<string, string>;

function defaultMirrors(arch: string): Mirrors {
  if (['amd64', 'i386'].includes(arch)) return { ...PRIMARY_ARCH_MIRRORS };
  if (['s390x', 'arm64', 'armhf', 'powerpc', 'ppc64el', 'riscv64'].includes(arch)) return { ...PORTS_MIRRORS };
  throw new ModuleError(MODULE, `No default mirror known for arch ${arch}`);
}

/** convert_to_v3_apt_format: old top-level apt_* keys and the v1 apt_sources list become `apt:`. */
export function convertToV3(cfgIn: CloudConfig, warn: (m: string) => void): CloudConfig {
  const cfg: CloudConfig = { ...cfgIn };
  if (cfg.apt_sources !== undefined && cfg.apt_sources !== null) {
    warn("DEPRECATION: 'apt_sources' deprecated config key found. Use 'apt' instead");
    if (Array.isArray(cfg.apt_sources)) {
      const dict: Record<string, unknown> = {};
      let n = 0;
      for (const ent of cfg.apt_sources) {
        if (!isRecord(ent)) continue;
        const key =
          typeof ent.filename === 'string'
            ? ent.filename
            : n++ === 0
              ? 'cloud_config_sources.list'
              : `cloud_config_sources.list_${n}`;
        dict[key] = { filename: 'cloud_config_sources.list', ...ent };
      }
      cfg.apt_sources = dict;
    } else if (!isRecord(cfg.apt_sources)) throw new ModuleError(MODULE, 'unknown apt_sources format');
  }
  const map: Record<string, string | null> = {
    apt_sources: 'sources',
    apt_mirror: null,
    apt_mirror_search: null,
    apt_mirror_search_dns: null,
    apt_proxy: 'proxy',
    apt_http_proxy: 'http_proxy',
    apt_ftp_proxy: 'https_proxy',
    apt_https_proxy: 'ftp_proxy',
    apt_preserve_sources_list: 'preserve_sources_list',
    apt_custom_sources_list: 'sources_list',
    add_apt_repo_match: 'add_apt_repo_match',
  };
  const present = Object.keys(map).filter((k) => k in cfg && cfg[k] !== null && cfg[k] !== '');
  for (const k of Object.keys(map)) if (k in cfg && (cfg[k] === null || cfg[k] === '')) delete cfg[k];
  if (present.length === 0) return cfg;
  warn(
    `DEPRECATION apt: converted deprecated config V2 to V3 format for keys '${present.join(', ')}'. Use updated config keys.`,
  );
  if (isRecord(cfg.apt)) {
    for (const k of present) {
      const nk = map[k];
      const old = cfg[k];
      delete cfg[k];
      if (!nk || cfg.apt[nk] === undefined || cfg.apt[nk] === null) continue;
      if (JSON.stringify(old) !== JSON.stringify(cfg.apt[nk]))
        throw new ModuleError(MODULE, `Old and New apt format defined with unequal values for ${k}`);
    }
    return cfg;
  }
  const apt: Record<string, unknown> = {};
  for (const k of present) {
    const nk = map[k];
    if (nk) apt[nk] = cfg[k];
  }
  const mirror: Record<string, unknown> = { arches: ['default'] };
  let hasMirror = false;
  for (const [ok, nk] of [
    ['apt_mirror', 'uri'],
    ['apt_mirror_search', 'search'],
    ['apt_mirror_search_dns', 'search_dns'],
  ] as const) {
    if (cfg[ok] !== undefined) {
      mirror[nk] = cfg[ok];
      hasMirror = true;
    }
  }
  if (hasMirror) apt.primary = [mirror];
  for (const k of present) delete cfg[k];
  cfg.apt = apt;
  return cfg;
}

/** The mirror config entry for ARCH (or the 'default' one) from primary/security. */
function archMirrorConfig(
  apt: Record<string, unknown>,
  type: string,
  arch: string,
): Record<string, unknown> | undefined {
  const list = apt[type];
  if (!Array.isArray(list)) return undefined;
  let dflt: Record<string, unknown> | undefined;
  for (const e of list) {
    if (!isRecord(e)) continue;
    const arches = Array.isArray(e.arches) ? e.arches.map(String) : [];
    if (arches.includes(arch)) return e;
    if (arches.includes('default')) dflt = e;
  }
  return dflt;
}

async function searchMirror(deps: AptDeps, candidates: unknown): Promise<string | undefined> {
  if (!Array.isArray(candidates)) return undefined;
  for (const c of candidates.map(String)) if (await deps.resolvable(c).catch(() => false)) return c;
  return undefined;
}

/** %(name)s substitution as Python's % operator does; undefined when a name is missing (the template is skipped). */
function pyPercent(tmpl: string, subst: Record<string, string>): string | undefined {
  let missing = false;
  const out = tmpl.replace(/%\(([^)]+)\)s/g, (_w, k: string) => {
    if (!(k in subst)) missing = true;
    return subst[k] ?? '';
  });
  return missing ? undefined : out;
}

/** The package mirrors of system_info.package_mirrors for ARCH, with region and availability zone filled in. */
export async function packageMirrorInfo(
  cfg: CloudConfig,
  arch: string,
  instance: InstanceData | undefined,
  deps: AptDeps,
): Promise<Mirrors> {
  const si = isRecord(cfg.system_info) ? cfg.system_info : {};
  const list = Array.isArray(si.package_mirrors) ? si.package_mirrors.filter(isRecord) : [];
  let info: Record<string, unknown> | undefined;
  for (const item of list) {
    const arches = Array.isArray(item.arches) ? item.arches.map(String) : [];
    if (arches.includes(arch)) {
      info = item;
      break;
    }
    if (arches.includes('default')) info = item;
  }
  const subst: Record<string, string> = {};
  const az = instance?.availabilityZone;
  if (az) {
    subst.availability_zone = az;
    if (EC2_AZ.test(az) && instance?.platform === 'ec2') subst.ec2_region = az.slice(0, -1);
  }
  if (instance?.region) subst.region = instance.region;
  const out: Mirrors = {};
  if (info && isRecord(info.failsafe)) for (const [k, v] of Object.entries(info.failsafe)) out[k] = String(v);
  if (info && isRecord(info.search)) {
    for (const [name, templates] of Object.entries(info.search)) {
      if (!Array.isArray(templates)) continue;
      const cands = templates
        .map((t) => pyPercent(String(t), subst))
        .filter((x): x is string => x !== undefined)
        .map(sanitizeMirrorUrl)
        .filter((x): x is string => !!x);
      const found = await searchMirror(deps, cands);
      if (found) out[name] = found;
    }
  }
  return out;
}

/** _sanitize_mirror_url: hostname labels reduced to letters, digits and hyphens (IP hosts kept). */
export function sanitizeMirrorUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined; // not a URL: nothing to sanitize, the caller keeps the value as given
  }
  if (/^[\d.]+$/.test(u.hostname) || u.hostname.startsWith('[')) return url;
  const host = u.hostname
    .split('.')
    .map((label) => label.replace(/[^A-Za-z0-9-]/g, '-').replace(/^-+|-+$/g, ''))
    .join('.');
  if (host === u.hostname) return url;
  return url.replace(u.hostname, host);
}

async function findMirrors(
  ctx: ModuleContext,
  cfg: CloudConfig,
  apt: Record<string, unknown>,
  arch: string,
  deps: AptDeps,
): Promise<Mirrors> {
  const get = async (type: 'primary' | 'security'): Promise<string | undefined> => {
    const m = archMirrorConfig(apt, type, arch);
    if (!m) return undefined;
    if (typeof m.uri === 'string') return m.uri;
    const found = await searchMirror(deps, m.search);
    if (found) return found;
    if (isTrue(m.search_dns)) {
      const fqdn = typeof cfg.fqdn === 'string' ? cfg.fqdn : (ctx.instance?.localHostname ?? '');
      const dom = fqdn.split('.').slice(1).join('.');
      const doms = [...(dom ? [`.${dom}`] : []), '.localdomain', ''];
      const name = type === 'primary' ? 'mirror' : 'security-mirror';
      const d = ctx.distro.name;
      return searchMirror(
        deps,
        doms.map((post) => `http://${d}-${name}${post}/${d}`),
      );
    }
    return undefined;
  };
  const primary = await get('primary');
  const security = await get('security');
  let mirrors: Mirrors;
  if (primary !== undefined) mirrors = { PRIMARY: primary, SECURITY: security ?? primary };
  else {
    const info = await packageMirrorInfo(cfg, arch, ctx.instance, deps);
    if (info.primary !== undefined || info.security !== undefined)
      mirrors = { ...info, PRIMARY: info.primary ?? '', SECURITY: info.security ?? '' };
    else mirrors = defaultMirrors(arch);
  }
  mirrors.MIRROR = mirrors.PRIMARY as string;
  return mirrors;
}

function mapKnownSuite(s: string): string {
  const m: Record<string, string> = {
    updates: '$RELEASE-updates',
    backports: '$RELEASE-backports',
    security: '$RELEASE-security',
    proposed: '$RELEASE-proposed',
    release: '$RELEASE',
  };
  return m[s] ?? s;
}

/** disable_suites: comments out every line whose suite column is one of DISABLED. */
export function disableSuites(disabled: unknown, src: string, release: string): string {
  if (!Array.isArray(disabled) || disabled.length === 0) return src;
  if (isDeb822Sources(src))
    return disableSuitesDeb822(
      disabled.map((d) => renderTemplateText(mapKnownSuite(String(d)), { RELEASE: release })),
      src,
    );
  let out = src;
  for (const raw of disabled.map(String)) {
    const suite = renderTemplateText(mapKnownSuite(raw), { RELEASE: release });
    out = out
      .split(/(?<=\n)/)
      .map((line) => {
        if (line.startsWith('#')) return line;
        const cols = line.split(/\s+/).filter(Boolean);
        if (cols.length > 1) {
          let pcol = 2;
          if ((cols[1] as string).startsWith('[')) {
            for (const col of cols.slice(1)) {
              pcol++;
              if (col.endsWith(']')) break;
            }
          }
          if (cols[pcol] === suite) return `# suite disabled by cloud-init: ${line}`;
        }
        return line;
      })
      .join('');
  }
  return out;
}

const DISABLE_SUITES_REDACT_PREFIX = '# cloud-init disable_suites redacted: ';

/** Prefixes every line of TEXT that is not blank (Python's textwrap.indent). */
function indentLines(text: string, prefix: string): string {
  return text.replace(/^(?=.*\S)/gm, prefix);
}

/**
 * 25.1's disable_deb822_section_without_suites: an entry left without a named suite (a `Suites:` line after the
 * entry's first, as its pattern reads) is commented out whole under a heading, its original Suites line restored.
 */
function disableDeb822EntryWithoutSuites(entry: string): string {
  if (/\nSuites:[ \t]+[\w-]+/.test(entry)) return entry;
  const restored = entry
    .replace(/\nSuites:.*/g, '')
    .split(DISABLE_SUITES_REDACT_PREFIX)
    .join('');
  return `## Entry disabled by cloud-init, due to disable_suites\n${indentLines(restored, '# disabled by cloud-init: ')}`;
}

/**
 * deb822 as 25.1's disable_suites_deb822: each Suites line naming a disabled suite is kept as a redacted comment
 * and rewritten without it; an entry left with none is disabled whole; comments outside entries are kept.
 */
function disableSuitesDeb822(suites: string[], src: string): string {
  const out: string[] = [];
  let entry = '';
  for (const line of src.split(/\r?\n/).filter((l, i, all) => i < all.length - 1 || l !== '')) {
    if (line.startsWith('#')) {
      if (entry) entry += `${line}\n`;
      else out.push(line);
      continue;
    }
    if (line.trim() === '') {
      if (entry) out.push(disableDeb822EntryWithoutSuites(entry));
      entry = '';
      out.push(line);
      continue;
    }
    if (!line.startsWith('Suites:')) {
      entry += `${line}\n`;
      continue;
    }
    let kept = line;
    const orig = line.split(/\s+/).filter(Boolean).slice(1);
    const left = orig.filter((x) => !suites.includes(x));
    if (left.length !== orig.length) {
      entry += `${DISABLE_SUITES_REDACT_PREFIX}${line}\n`;
      kept = `Suites: ${left.join(' ')}`;
    }
    entry += `${kept}\n`;
  }
  if (entry) out.push(disableDeb822EntryWithoutSuites(entry));
  return out.join('\n');
}

async function addAptKey(
  ctx: ModuleContext,
  deps: AptDeps,
  ent: Record<string, unknown>,
  fileName: string,
  hardened: boolean,
): Promise<string | undefined> {
  if (ent.keyid !== undefined && ent.key === undefined) {
    const server = typeof ent.keyserver === 'string' ? ent.keyserver : DEFAULT_KEYSERVER;
    ent.key = await deps.fetchKey(String(ent.keyid), server);
  }
  if (ent.key === undefined) return undefined;
  const name = posix.basename(fileName).replace(/\.[^.]*$/, '');
  const dir = hardened ? CLOUD_INIT_GPG_DIR : APT_TRUSTED_GPG_DIR;
  const path = `${dir}${name}.gpg`;
  await ctx.platform.writeFile(path, dearmorKey(String(ent.key), MODULE, `key for ${fileName}`), { mode: 0o644 });
  return path;
}

async function applyDebconfSelections(ctx: ModuleContext, apt: Record<string, unknown>): Promise<void> {
  const sel = apt.debconf_selections;
  if (!isRecord(sel) || Object.keys(sel).length === 0) {
    ctx.log.debug('debconf_selections was not set in config');
    return;
  }
  let selections = Object.keys(sel)
    .sort()
    .map((k) => String(sel[k]))
    .join('\n');
  if (!selections.endsWith('\n')) selections += '\n';
  await ctx.platform.run(['debconf-set-selections'], { input: selections });
  const configured = new Set<string>();
  for (const content of Object.values(sel)) {
    for (const line of String(content).split('\n'))
      if (!line.startsWith('#')) configured.add(line.replace(/[:\s].*/, ''));
  }
  const listed = await ctx.platform.run(['dpkg-query', '--list']);
  const installed = new Set<string>();
  for (const line of listed.stdout.split('\n')) {
    const [state, pkg] = line.split(/\s+/);
    if (pkg && (state?.startsWith('ii') || state?.startsWith('hi'))) installed.add(pkg.replace(/:.*/, ''));
  }
  const need = [...configured].filter((p) => installed.has(p));
  if (need.length === 0) return;
  const unhandled = need.filter((p) => p !== 'cloud-init');
  if (unhandled.length)
    ctx.log.warn(
      `The following packages were installed and preseeded, but cannot be unconfigured: ${unhandled.join(', ')}`,
    );
  if (need.includes('cloud-init')) {
    for (const f of await ctx.platform.listDir('/etc/cloud/cloud.cfg.d').catch(() => [] as string[])) {
      if (f.includes('dpkg')) await ctx.platform.remove(`/etc/cloud/cloud.cfg.d/${f}`);
    }
    await ctx.platform.run(['dpkg-reconfigure', '--frontend=noninteractive', 'cloud-init']);
  }
}

async function applyAptConfig(ctx: ModuleContext, apt: Record<string, unknown>): Promise<void> {
  const proxies = (
    [
      ['proxy', 'Acquire::http::Proxy "%s";'],
      ['http_proxy', 'Acquire::http::Proxy "%s";'],
      ['ftp_proxy', 'Acquire::ftp::Proxy "%s";'],
      ['https_proxy', 'Acquire::https::Proxy "%s";'],
    ] as const
  )
    .filter(([k]) => apt[k])
    .map(([k, fmt]) => fmt.replace('%s', String(apt[k])));
  if (proxies.length) await ctx.platform.writeFile(APT_PROXY_FILE, `${proxies.join('\n')}\n`);
  else if (await ctx.platform.exists(APT_PROXY_FILE)) await ctx.platform.remove(APT_PROXY_FILE);
  if (apt.conf) await ctx.platform.writeFile(APT_CONFIG_FILE, String(apt.conf));
  else if (await ctx.platform.exists(APT_CONFIG_FILE)) await ctx.platform.remove(APT_CONFIG_FILE);
}

/** rename_apt_lists: keeps cached package lists when the primary/security mirror changes. */
async function renameAptLists(ctx: ModuleContext, mirrors: Mirrors, arch: string): Promise<void> {
  const prefix = (m: string) =>
    m
      .replace(/\/$/, '')
      .replace(/^[a-z]+:\/\//, '')
      .replace(/\//g, '_');
  let names: string[];
  try {
    names = await ctx.platform.listDir(APT_LISTS);
  } catch {
    return; // no apt lists folder: no cached lists to keep (cloud-init's glob finds none)
  }
  for (const [name, old] of Object.entries(defaultMirrors(arch))) {
    const nm = mirrors[name];
    if (!nm) continue;
    const op = prefix(old);
    const np = prefix(nm);
    if (op === np) continue;
    for (const f of names.filter((n) => n.startsWith(`${op}_`))) {
      const from = `${APT_LISTS}/${f}`;
      await ctx.platform.writeFile(`${APT_LISTS}/${np}${f.slice(op.length)}`, await ctx.platform.readFile(from));
      await ctx.platform.remove(from);
    }
  }
}

/** Whether apt source text is in deb822 form (Types:/URIs: stanzas) rather than one-line `deb …` entries. */
export function isDeb822Sources(text: string): boolean {
  if (/^\s*(deb|deb-src)\s/m.test(text)) return false;
  return /^Types:/im.test(text);
}

async function generateSourcesList(
  ctx: ModuleContext,
  cfg: CloudConfig,
  apt: Record<string, unknown>,
  release: string,
  mirrors: Mirrors,
): Promise<void> {
  const params: Record<string, unknown> = { RELEASE: release, codename: release };
  for (const [k, v] of Object.entries(mirrors)) {
    params[k] = v;
    params[k.toLowerCase()] = v;
  }
  const distro = ctx.distro.name;
  let tmpl = typeof apt.sources_list === 'string' ? apt.sources_list : undefined;
  if (tmpl === undefined) {
    ctx.log.info('No custom template provided, fall back to builtin');
    // A deb822 template (newer cloud-init ships sources.list.<distro>.deb822.tmpl) wins when the target has one.
    tmpl =
      (await readSystemTemplate(ctx.platform, cfg, `sources.list.${distro}.deb822`)) ??
      (await readSystemTemplate(ctx.platform, cfg, `sources.list.${distro}`)) ??
      (await readSystemTemplate(ctx.platform, cfg, 'sources.list'));
    // An image with kiln but without cloud-init's package has no templates: kiln's own keeps the boot clean.
    if (tmpl === undefined) {
      tmpl = builtinSourcesListTemplate(distro);
      if (tmpl !== undefined)
        ctx.log.info(`No sources.list template in the target, using kiln's built-in ${distro} template`);
    }
    if (tmpl === undefined) {
      ctx.log.warn('No template found, not rendering /etc/apt/sources.list');
      return;
    }
  }
  const rendered = disableSuites(apt.disable_suites, renderTemplateText(tmpl, params), release);
  if (!isDeb822Sources(rendered)) {
    await ctx.platform.writeFile('/etc/apt/sources.list', rendered, { mode: 0o644 });
    return;
  }
  // deb822: /etc/apt/sources.list.d/<distro>.sources. An old one-line sources.list is removed, as 25.1 does outside
  // Ubuntu; on Ubuntu (where 25.1 writes its own pointer text) it is left as a pointer only.
  const target = `/etc/apt/sources.list.d/${distro}.sources`;
  await ctx.platform.writeFile(target, rendered, { mode: 0o644 });
  if (await ctx.platform.exists('/etc/apt/sources.list')) {
    if (distro === 'ubuntu')
      await ctx.platform.writeFile('/etc/apt/sources.list', `# ${distro} sources have moved to ${target}\n`, {
        mode: 0o644,
      });
    else {
      ctx.log.info('Removing /etc/apt/sources.list to favor deb822 source format');
      await ctx.platform.remove('/etc/apt/sources.list');
    }
  }
}

async function addAptSources(
  ctx: ModuleContext,
  deps: AptDeps,
  sources: unknown,
  params: Record<string, unknown>,
  matcher: RegExp | undefined,
): Promise<void> {
  if (!isRecord(sources)) throw new ModuleError(MODULE, `unknown apt format: ${JSON.stringify(sources)}`);
  for (const [key, raw] of Object.entries(sources)) {
    const ent: Record<string, unknown> = isRecord(raw) ? { ...raw } : {};
    if (ent.filename === undefined) ent.filename = key;
    let filename = String(ent.filename);
    const source = typeof ent.source === 'string' ? ent.source : undefined;
    if (source?.includes('$KEY_FILE')) {
      const keyFile = await addAptKey(ctx, deps, ent, filename, true);
      params.KEY_FILE = keyFile ?? '/dev/null';
    } else await addAptKey(ctx, deps, ent, filename, false);
    if (source === undefined) continue;
    const rendered = renderTemplateText(source, params);
    if (!filename.startsWith('/')) filename = posix.join('/etc/apt/sources.list.d/', filename);
    const ext = isDeb822Sources(rendered) ? '.sources' : '.list';
    if (!filename.endsWith(ext)) filename = filename.replace(/\.(list|sources)$/, '') + ext;
    if (matcher?.test(rendered)) {
      await ctx.platform.run(['add-apt-repository', '--no-update', rendered]);
      continue;
    }
    const append = !('append' in ent) || !!ent.append;
    await ctx.platform.writeFile(filename, `${rendered}\n`, { append });
  }
  // 25.1 refreshes the index after adding sources whatever ran before (force=True: no update_sources semaphore).
  await updatePackageSources(ctx, MODULE, { force: true });
}

export function createAptConfigureModule(deps: AptDeps): Module {
  return {
    name: 'apt_configure',
    stage: 'config',
    frequency: 'once-per-instance',
    distros: ['ubuntu', 'debian'],
    activateBy: [],
    async run(ctx, cfgIn): Promise<void> {
      const cfg = convertToV3(cfgIn, (m) => ctx.log.warn(m));
      const apt = cfg.apt ?? {};
      if (!isRecord(apt))
        throw new ModuleError(
          MODULE,
          `Expected dictionary for 'apt' config, found ${Array.isArray(apt) ? 'list' : typeof apt}`,
        );
      await applyDebconfSelections(ctx, apt);
      if (
        Object.keys(apt).length === 0 &&
        !(await whichInTarget(ctx.platform, 'apt-get')) &&
        !(await whichInTarget(ctx.platform, 'apt'))
      ) {
        ctx.log.debug('Nothing to do: No apt config and no apt commands.');
        return;
      }
      const release = await codename(ctx);
      const arch = await dpkgArchitecture(ctx.platform);
      const mirrors = await findMirrors(ctx, cfg, apt, arch, deps);
      ctx.log.debug(`Apt Mirror info: ${JSON.stringify(mirrors)}`);
      if (isTrue(apt.generate_mirrorlists ?? false)) {
        await ctx.platform.writeFile(`/etc/apt/mirrors/${ctx.distro.name}.list`, `${mirrors.PRIMARY}\n`, {
          mode: 0o644,
        });
        await ctx.platform.writeFile(`/etc/apt/mirrors/${ctx.distro.name}-security.list`, `${mirrors.SECURITY}\n`, {
          mode: 0o644,
        });
      } else if (isFalse(apt.preserve_sources_list ?? false)) {
        for (const type of ['primary', 'security']) {
          const list = Array.isArray(apt[type]) ? (apt[type] as unknown[]) : [];
          for (const m of list) if (isRecord(m)) await addAptKey(ctx, deps, { ...m }, type, false);
        }
        await generateSourcesList(ctx, cfg, apt, release, mirrors);
        await renameAptLists(ctx, mirrors, arch);
      }
      try {
        await applyAptConfig(ctx, apt);
      } catch (err) {
        ctx.log.error(`Failed to apply proxy or apt config info: ${describeError(err)}`);
      }
      if ('sources' in apt) {
        const params: Record<string, unknown> = { ...mirrors, RELEASE: release, MIRROR: mirrors.MIRROR };
        const matchCfg = apt.add_apt_repo_match ?? ADD_APT_REPO_MATCH;
        const matcher = matchCfg ? new RegExp(String(matchCfg), 'u') : undefined;
        await addAptSources(ctx, deps, apt.sources, params, matcher);
      }
    },
  };
}

/**
 * util.lsb_release()['codename'], 'UNAVAILABLE' when lsb_release cannot run (as cloud-init). Debian's lsb_release
 * prints os-release's VERSION_CODENAME (Ubuntu's the same name, from /etc/lsb-release), so that is read
 * directly; lsb_release runs only for a target whose os-release has none.
 */
async function codename(ctx: ModuleContext): Promise<string> {
  const fromOsRelease = (await readOsRelease(ctx.platform)).VERSION_CODENAME;
  if (fromOsRelease) return fromOsRelease;
  const r = await ctx.platform.run(['lsb_release', '--all'], { allowFailure: true });
  if (r.code !== 0) {
    ctx.log.warn(`Unable to get lsb_release --all: exit ${r.code}`);
    return 'UNAVAILABLE';
  }
  for (const line of r.stdout.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0 && line.slice(0, i) === 'Codename') return line.slice(i + 1).trim();
  }
  return 'UNAVAILABLE';
}

/** HKP lookup of an armored key over HTTPS (the keyserver's /pks/lookup), cloud-init's gpg --recv-keys. */
export async function fetchKeyFromKeyserver(keyid: string, keyserver: string): Promise<string> {
  const id = keyid.replace(/\s+/g, '');
  const host = keyserver.replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '');
  const res = await fetch(`https://${host}/pks/lookup?op=get&options=mr&search=0x${encodeURIComponent(id)}`, {
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok || !text.includes('BEGIN PGP PUBLIC KEY BLOCK'))
    throw new ModuleError(MODULE, `keyserver ${host} returned no key for ${id} (HTTP ${res.status})`);
  return text;
}

export const aptConfigureModule: Module = createAptConfigureModule({
  fetchKey: fetchKeyFromKeyserver,
  resolvable: async (url) => {
    const host = new URL(url).hostname;
    // Loaded on use: most boots never look a mirror up, and node:dns costs every start a few ms.
    const { lookup } = await import('node:dns/promises');
    await lookup(host);
    return true;
  },
});
