// cc_apt_configure: debconf selections, sources.list from cloud-init's template or kiln's built-in one (mirrors by
// region/zone), proxies, apt.conf, extra sources and keys.
import { posix } from 'node:path';
import type { InstanceData } from '../sources/datasource';
import { describeError } from '../util/errors';
import { builtinSourcesListTemplate } from './support/builtin-templates';
import { readSystemTemplate, renderTemplateText } from './support/cloud-template';
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { readingAptV3 } from './support/apt-v3-format';
import { configModule, type ReadSlice } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { isRecord } from './support/config-shapes';
import { isFalse, isTrue } from './support/config-values';
import { whichInTarget } from './support/distro-facts';
import { installPackages, updatePackageSources } from './support/install-packages';
import { ModuleError, type Module, type ModuleContext } from './module';
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

export { convertToV3 } from './support/apt-v3-format';

export interface AptDeps {
  /**
   * Fetches the armored key KEYID from KEYSERVER (cloud-init: gpg --recv-keys + --export --armor). Never used in tests.
   */
  fetchKey: (keyid: string, keyserver: string) => Promise<string>;
  /** True when the URL's host resolves (cloud-init's is_resolvable_url, used by mirror `search`). */
  resolvable: (url: string) => Promise<boolean>;
}

type Mirrors = Record<string, string>;

/** The key of an apt mirror or source, as add_apt_key reads it. */
interface AptKeySpec {
  /** The armored key (its text), when given. */
  readonly key?: string;
  /** The key's id (its text), fetched from the keyserver when no key is given. */
  readonly keyid?: string;
  /** The keyserver to fetch it from, when a string (else the default one). */
  readonly keyserver?: string;
}

/** One entry of apt.primary or apt.security, as get_arch_mirrorconfig, get_mirror and add_mirror_keys read it. */
interface AptMirrorConfig extends AptKeySpec {
  /** The architectures it is for ('default' for any other), each its text; none when not a list. */
  readonly arches: readonly string[];
  /** The mirror, when a string. */
  readonly uri?: string;
  /** The mirrors to search (each its text), when a list. */
  readonly search?: readonly string[];
  /** search_dns by is_true. */
  readonly searchDns: boolean;
}

/** One entry of apt.sources, as add_apt_sources reads it. */
interface AptSource extends AptKeySpec {
  /** Its file name: filename's text, else the entry's key. */
  readonly filename: string;
  /** The source line (or deb822 text) to render, when a string. */
  readonly source?: string;
  /** Append to the file (append absent or true), else replace it. */
  readonly append: boolean;
}

/** An apt.sources that is no mapping: add_apt_sources refuses it (unknown apt format) once it gets there. */
interface UnknownAptSourcesFormat {
  /** The value as JSON, for the module's error. */
  readonly unknownFormat: string;
}

type AptProxyKey = 'proxy' | 'http_proxy' | 'ftp_proxy' | 'https_proxy';

/** apt as the module reads it (after the old formats are converted: support/apt-v3-format.ts). */
export interface AptConfig {
  /** apt has any key at all (`if not cfg`: with none and no apt commands there is nothing to do). */
  readonly hasKeys: boolean;
  /** debconf_selections, when a mapping with keys: each value's text, in order. */
  readonly debconfSelections?: ReadonlyMap<string, string>;
  /** The mapping entries of apt.primary and apt.security (none when not a list). */
  readonly primary: readonly AptMirrorConfig[];
  readonly security: readonly AptMirrorConfig[];
  /** generate_mirrorlists by is_true (Debian's patch to 25.1 reads it; upstream 25.1's schema has no such key). */
  readonly generateMirrorlists: boolean;
  /**
   * preserve_sources_list not is_false: absent, false, 'no' … write the sources list; null, as any other value, keeps
   * it.
   */
  readonly preserveSourcesList: boolean;
  /** sources_list, the custom template, when a non-empty string. */
  readonly sourcesList?: string;
  /** disable_suites' suites (each its text), when a list. */
  readonly disableSuites?: readonly string[];
  /** Each proxy that is set (truthy), as its text. */
  readonly proxies: Readonly<Partial<Record<AptProxyKey, string>>>;
  /** conf's text, when set (truthy). */
  readonly conf?: string;
  /** sources, when the key is present. */
  readonly sources?: readonly AptSource[] | UnknownAptSourcesFormat;
  /** The pattern of sources for add-apt-repository (add_apt_repo_match, else the default); none when empty. */
  readonly addAptRepoMatch?: string;
}

/** ENT's key settings, as add_apt_key reads them. */
function aptKeySpec(ent: { readonly [key: string]: unknown }): AptKeySpec {
  return {
    key: ent.key === undefined ? undefined : String(ent.key),
    keyid: ent.keyid === undefined ? undefined : String(ent.keyid),
    keyserver: typeof ent.keyserver === 'string' ? ent.keyserver : undefined,
  };
}

/** apt.primary or apt.security: its mapping entries, as get_arch_mirrorconfig and add_mirror_keys read them. */
function aptMirrorConfigs(list: unknown): AptMirrorConfig[] {
  if (!Array.isArray(list)) return [];
  return list.filter(isRecord).map((m) => ({
    ...aptKeySpec(m),
    arches: Array.isArray(m.arches) ? m.arches.map(String) : [],
    uri: typeof m.uri === 'string' ? m.uri : undefined,
    search: Array.isArray(m.search) ? m.search.map(String) : undefined,
    searchDns: isTrue(m.search_dns),
  }));
}

/** apt.sources as add_apt_sources reads it: each entry (one that is no mapping has no settings) in order. */
function aptSources(sources: unknown): AptSource[] | UnknownAptSourcesFormat {
  if (!isRecord(sources)) return { unknownFormat: JSON.stringify(sources) };
  return Object.entries(sources).map(([name, raw]) => {
    const ent = isRecord(raw) ? raw : {};
    return {
      ...aptKeySpec(ent),
      filename: ent.filename === undefined ? name : String(ent.filename),
      source: typeof ent.source === 'string' ? ent.source : undefined,
      append: !('append' in ent) || !!ent.append,
    };
  });
}

/** The apt mapping APT as the module reads it (AptConfig). */
function readAptConfig(apt: { readonly [key: string]: unknown }): AptConfig {
  const sel = apt.debconf_selections;
  const proxies: Partial<Record<AptProxyKey, string>> = {};
  for (const key of ['proxy', 'http_proxy', 'ftp_proxy', 'https_proxy'] as const)
    if (apt[key]) proxies[key] = String(apt[key]);
  const match = apt.add_apt_repo_match ?? ADD_APT_REPO_MATCH;
  return {
    hasKeys: Object.keys(apt).length > 0,
    debconfSelections:
      isRecord(sel) && Object.keys(sel).length > 0
        ? new Map(Object.entries(sel).map(([k, v]) => [k, String(v)]))
        : undefined,
    primary: aptMirrorConfigs(apt.primary),
    security: aptMirrorConfigs(apt.security),
    generateMirrorlists: isTrue(apt.generate_mirrorlists ?? false),
    preserveSourcesList: 'preserve_sources_list' in apt && !isFalse(apt.preserve_sources_list),
    // An empty template is none, as 25.1's `if not tmpl`: the target's (or kiln's) template is rendered.
    sourcesList: typeof apt.sources_list === 'string' && apt.sources_list !== '' ? apt.sources_list : undefined,
    disableSuites: Array.isArray(apt.disable_suites) ? apt.disable_suites.map(String) : undefined,
    proxies,
    conf: apt.conf ? String(apt.conf) : undefined,
    sources: 'sources' in apt ? aptSources(apt.sources) : undefined,
    addAptRepoMatch: match ? String(match) : undefined,
  };
}

/** apt absent or null: nothing configured. */
const NO_APT_CONFIG = readAptConfig({});

/**
 * apt as handle reads it: null as none (kiln's reading), another value that is no mapping refused in the module's
 * words, a mapping as the module reads it (readAptConfig).
 */
function aptSetting(value: unknown): AptConfig | undefined {
  if (value === null) return undefined;
  if (!isRecord(value))
    throw new ModuleError(
      MODULE,
      `Expected dictionary for 'apt' config, found ${Array.isArray(value) ? 'list' : typeof value}`,
    );
  return readAptConfig(value);
}

/**
 * fqdn as the mirror search by DNS reads it: a string; anything else is as if absent and the datasource's name is
 * used (upstream's get_hostname_fqdn fails on it).
 */
function fqdnSetting(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

const APT_CONFIGURE_READERS = {
  // Debian's 25.1 module acts on apt values 25.1's schema rejects: generate_mirrorlists, 'no', mirrors without arches.
  apt: new OwnParser(aptSetting),
  fqdn: fqdnSetting,
  // package_mirrors and the templates folder.
  system_info: 'as-is',
} as const;

/** The keys apt_configure reads, as it reads them. */
type AptConfigureConfig = ReadSlice<typeof APT_CONFIGURE_READERS>;

function defaultMirrors(arch: string): Mirrors {
  if (['amd64', 'i386'].includes(arch)) return { ...PRIMARY_ARCH_MIRRORS };
  if (['s390x', 'arm64', 'armhf', 'powerpc', 'ppc64el', 'riscv64'].includes(arch)) return { ...PORTS_MIRRORS };
  throw new ModuleError(MODULE, `No default mirror known for arch ${arch}`);
}

/** The mirror config entry of LIST (primary or security) for ARCH, or the 'default' one. */
function archMirrorConfig(list: readonly AptMirrorConfig[], arch: string): AptMirrorConfig | undefined {
  let dflt: AptMirrorConfig | undefined;
  for (const e of list) {
    if (e.arches.includes(arch)) return e;
    if (e.arches.includes('default')) dflt = e;
  }
  return dflt;
}

async function searchMirror(deps: AptDeps, candidates: readonly string[] | undefined): Promise<string | undefined> {
  if (candidates === undefined) return undefined;
  for (const c of candidates) if (await deps.resolvable(c).catch(() => false)) return c;
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
  cfg: { readonly system_info?: CloudConfigValue<'system_info'> },
  arch: string,
  instance: InstanceData | undefined,
  deps: AptDeps,
): Promise<Mirrors> {
  const si = isRecord(cfg.system_info) ? cfg.system_info : {};
  const list = Array.isArray(si.package_mirrors) ? si.package_mirrors.filter(isRecord) : [];
  let info: { readonly [key: string]: unknown } | undefined;
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
  cfg: AptConfigureConfig,
  apt: AptConfig,
  arch: string,
  deps: AptDeps,
): Promise<Mirrors> {
  const get = async (type: 'primary' | 'security'): Promise<string | undefined> => {
    const m = archMirrorConfig(apt[type], arch);
    if (!m) return undefined;
    if (m.uri !== undefined) return m.uri;
    const found = await searchMirror(deps, m.search);
    if (found) return found;
    if (m.searchDns) {
      const fqdn = cfg.fqdn ?? ctx.instance?.localHostname ?? '';
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
export function disableSuites(disabled: readonly string[] | undefined, src: string, release: string): string {
  if (disabled === undefined || disabled.length === 0) return src;
  if (isDeb822Sources(src))
    return disableSuitesDeb822(
      disabled.map((d) => renderTemplateText(mapKnownSuite(d), { RELEASE: release })),
      src,
    );
  let out = src;
  for (const raw of disabled) {
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
  spec: AptKeySpec,
  fileName: string,
  hardened: boolean,
): Promise<string | undefined> {
  let key = spec.key;
  if (spec.keyid !== undefined && key === undefined)
    key = await deps.fetchKey(spec.keyid, spec.keyserver ?? DEFAULT_KEYSERVER);
  if (key === undefined) return undefined;
  const name = posix.basename(fileName).replace(/\.[^.]*$/, '');
  const dir = hardened ? CLOUD_INIT_GPG_DIR : APT_TRUSTED_GPG_DIR;
  const path = `${dir}${name}.gpg`;
  await ctx.platform.writeFile(path, dearmorKey(key, MODULE, `key for ${fileName}`), { mode: 0o644 });
  return path;
}

async function applyDebconfSelections(ctx: ModuleContext, apt: AptConfig): Promise<void> {
  const sel = apt.debconfSelections;
  if (sel === undefined) {
    ctx.log.debug('debconf_selections was not set in config');
    return;
  }
  let selections = [...sel.keys()]
    .sort()
    .map((k) => sel.get(k))
    .join('\n');
  if (!selections.endsWith('\n')) selections += '\n';
  await ctx.platform.run(['debconf-set-selections'], { input: selections });
  const configured = new Set<string>();
  for (const content of sel.values()) {
    for (const line of content.split('\n')) if (!line.startsWith('#')) configured.add(line.replace(/[:\s].*/, ''));
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

async function applyAptConfig(ctx: ModuleContext, apt: AptConfig): Promise<void> {
  const proxies = (
    [
      ['proxy', 'Acquire::http::Proxy "%s";'],
      ['http_proxy', 'Acquire::http::Proxy "%s";'],
      ['ftp_proxy', 'Acquire::ftp::Proxy "%s";'],
      ['https_proxy', 'Acquire::https::Proxy "%s";'],
    ] as const
  ).flatMap(([k, fmt]) => {
    const proxy = apt.proxies[k];
    return proxy === undefined ? [] : [fmt.replace('%s', proxy)];
  });
  if (proxies.length) await ctx.platform.writeFile(APT_PROXY_FILE, `${proxies.join('\n')}\n`);
  else if (await ctx.platform.exists(APT_PROXY_FILE)) await ctx.platform.remove(APT_PROXY_FILE);
  if (apt.conf !== undefined) await ctx.platform.writeFile(APT_CONFIG_FILE, apt.conf);
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
  cfg: AptConfigureConfig,
  apt: AptConfig,
  release: string,
  mirrors: Mirrors,
): Promise<void> {
  const params: Record<string, string> = { RELEASE: release, codename: release };
  for (const [k, v] of Object.entries(mirrors)) {
    params[k] = v;
    params[k.toLowerCase()] = v;
  }
  const distro = ctx.distro.name;
  let tmpl = apt.sourcesList;
  if (tmpl === undefined) {
    ctx.log.info('No custom template provided, fall back to builtin');
    const templates = { system_info: cfg.system_info };
    // A deb822 template (newer cloud-init ships sources.list.<distro>.deb822.tmpl) wins when the target has one.
    tmpl =
      (await readSystemTemplate(ctx.platform, templates, `sources.list.${distro}.deb822`)) ??
      (await readSystemTemplate(ctx.platform, templates, `sources.list.${distro}`)) ??
      (await readSystemTemplate(ctx.platform, templates, 'sources.list'));
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
  const rendered = disableSuites(apt.disableSuites, renderTemplateText(tmpl, params), release);
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

/**
 * 25.1's _ensure_dependencies, up front so the index is refreshed once: software-properties-common when a source is
 * for add-apt-repository (its unrendered text matches) and the target has no such command. 25.1 also installs gnupg
 * for keys when gpg is missing; kiln reads and fetches keys itself, so it needs no gpg.
 */
async function ensureDependencies(ctx: ModuleContext, apt: AptConfig, matcher: RegExp | undefined): Promise<void> {
  if (matcher === undefined || apt.sources === undefined || 'unknownFormat' in apt.sources) return;
  if (!apt.sources.some((ent) => matcher.test(ent.source ?? ''))) return;
  if (await whichInTarget(ctx.platform, 'add-apt-repository')) return;
  await installPackages(ctx, MODULE, ['software-properties-common']);
}

async function addAptSources(
  ctx: ModuleContext,
  deps: AptDeps,
  sources: readonly AptSource[] | UnknownAptSourcesFormat,
  params: Record<string, string>,
  matcher: RegExp | undefined,
): Promise<void> {
  if ('unknownFormat' in sources) throw new ModuleError(MODULE, `unknown apt format: ${sources.unknownFormat}`);
  for (const ent of sources) {
    let filename = ent.filename;
    const source = ent.source;
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
    await ctx.platform.writeFile(filename, `${rendered}\n`, { append: ent.append });
  }
  // 25.1 refreshes the index after adding sources whatever ran before (force=True: no update_sources semaphore).
  await updatePackageSources(ctx, MODULE, { force: true });
}

export function createAptConfigureModule(deps: AptDeps): Module {
  return readingAptV3(
    configModule({
      name: 'apt_configure',
      stage: 'config',
      frequency: 'once-per-instance',
      distros: ['ubuntu', 'debian'],
      activateBy: [],
      configKeys: APT_CONFIGURE_READERS,
      async run(ctx, cfg): Promise<void> {
        const apt = cfg.apt ?? NO_APT_CONFIG;
        await applyDebconfSelections(ctx, apt);
        if (
          !apt.hasKeys &&
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
        const matcher = apt.addAptRepoMatch === undefined ? undefined : new RegExp(apt.addAptRepoMatch, 'u');
        await ensureDependencies(ctx, apt, matcher);
        if (apt.generateMirrorlists) {
          await ctx.platform.writeFile(`/etc/apt/mirrors/${ctx.distro.name}.list`, `${mirrors.PRIMARY}\n`, {
            mode: 0o644,
          });
          await ctx.platform.writeFile(`/etc/apt/mirrors/${ctx.distro.name}-security.list`, `${mirrors.SECURITY}\n`, {
            mode: 0o644,
          });
        } else if (!apt.preserveSourcesList) {
          for (const type of ['primary', 'security'] as const)
            for (const m of apt[type]) await addAptKey(ctx, deps, m, type, false);
          await generateSourcesList(ctx, cfg, apt, release, mirrors);
          await renameAptLists(ctx, mirrors, arch);
        }
        try {
          await applyAptConfig(ctx, apt);
        } catch (err) {
          ctx.log.error(`Failed to apply proxy or apt config info: ${describeError(err)}`);
        }
        if (apt.sources !== undefined) {
          const params: Record<string, string> = { ...mirrors, RELEASE: release };
          await addAptSources(ctx, deps, apt.sources, params, matcher);
        }
      },
    }),
  );
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
