// cc_landscape: installs landscape-client, writes /etc/landscape/client.conf merged as ConfigObj merges, and registers.
import { parseIni } from '../config/ini-file';
import { isRecord } from './support/config-shapes';
import { configModule } from './support/config-module';
import { OwnParser } from './support/config-readers';
import { pyStr } from '../util/python-str';
import { installPackages } from './support/install-packages';
import { ModuleError, type Module } from './module';

export const LANDSCAPE_CLIENT_CONF = '/etc/landscape/client.conf';
export const LANDSCAPE_DEFAULT_FILE = '/etc/default/landscape-client';

/** ConfigObj's sections in insertion order: section name → key → value (strings, as ConfigObj holds them). */
type Sections = Map<string, Map<string, string>>;

/** cloud-init 22.4's built-in [client] defaults, in its order (ConfigObj keeps insertion order when writing). */
function builtinSections(): Sections {
  return new Map([
    [
      'client',
      new Map([
        ['log_level', 'info'],
        ['url', 'https://landscape.canonical.com/message-system'],
        ['ping_url', 'http://landscape.canonical.com/ping'],
        ['data_path', '/var/lib/landscape/client'],
      ]),
    ],
  ]);
}

/** ConfigObj.merge: a key already present keeps its place and takes the new value; a new key goes last. */
function mergeInto(into: Sections, from: Sections): void {
  for (const [name, keys] of from) {
    const section = into.get(name) ?? new Map<string, string>();
    for (const [k, v] of keys) section.set(k, v);
    into.set(name, section);
  }
}

/**
 * landscape as the module reads it: its entries as ConfigObj sections, up to the first that is not a mapping, which
 * the module fails on once the client is installed.
 */
interface LandscapeSetting {
  readonly sections: Sections;
  /** The name of the first entry that is not a mapping, if any. */
  readonly notASection?: string;
}

/**
 * landscape's mapping as ConfigObj sections (values their Python str(), lists ConfigObj's "a, b"); any other value is
 * refused in the module's words.
 */
function readLandscape(value: unknown): LandscapeSetting {
  if (!isRecord(value))
    throw new ModuleError(
      'landscape',
      `'landscape' key existed in config, but not a dictionary type, is a ${Array.isArray(value) ? 'list' : typeof value} instead`,
    );
  const sections: Sections = new Map();
  for (const [name, body] of Object.entries(value)) {
    if (!isRecord(body)) return { sections, notASection: name };
    sections.set(
      name,
      new Map(
        Object.entries(body).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => pyStr(x)).join(', ') : pyStr(v)]),
      ),
    );
  }
  return { sections };
}

/** An existing client.conf as ConfigObj reads a plain one (surrounding quotes removed). */
function sectionsFromFile(text: string): Sections {
  const out: Sections = new Map();
  for (const [name, keys] of parseIni(text, LANDSCAPE_CLIENT_CONF)) {
    out.set(
      name,
      new Map(
        [...keys].map(([k, raw]) => [
          k,
          raw.value.replace(/^"(.*)"$|^'(.*)'$/s, (_m, a?: string, b?: string) => a ?? b ?? ''),
        ]),
      ),
    );
  }
  return out;
}

/** ConfigObj's quoting of a written value: empty, comma, '#', quotes or outer blanks need quotes. */
function configObjValue(v: string): string {
  if (v === '') return '""';
  if (!/[,#"']|^\s|\s$/.test(v)) return v;
  return v.includes('"') ? `'${v}'` : `"${v}"`;
}

/** ConfigObj.write: each section header, then `key = value` lines; the file ends with a newline. */
export function renderClientConf(sections: Sections): string {
  const lines: string[] = [];
  for (const [name, keys] of sections) {
    lines.push(`[${name}]`);
    for (const [k, v] of keys) lines.push(`${k} = ${configObjValue(v)}`);
  }
  return `${lines.join('\n')}\n`;
}

export const landscapeModule: Module = configModule({
  name: 'landscape',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['landscape'],
  // 25.1's module registers with any client mapping (its schema requires account_name and computer_title, and a
  // client section) and does nothing for an empty landscape.
  configKeys: { landscape: new OwnParser(readLandscape) },
  async run(ctx, cfg): Promise<void> {
    const ls = cfg.landscape;
    if (ls === undefined || (ls.sections.size === 0 && ls.notASection === undefined)) return;
    await installPackages(ctx, 'landscape', ['landscape-client']);
    // Later entries win: built-in defaults, then the file as it is (the package ships one), then the cloud-config.
    const merged = builtinSections();
    const existing = await ctx.platform.readTextIfExists(LANDSCAPE_CLIENT_CONF);
    if (existing !== undefined) mergeInto(merged, sectionsFromFile(existing));
    if (ls.notASection !== undefined)
      throw new ModuleError(
        'landscape',
        `'landscape.${ls.notASection}' must be a mapping of client.conf settings (it becomes the [${ls.notASection}] section)`,
      );
    mergeInto(merged, ls.sections);
    await ctx.platform.writeFile(LANDSCAPE_CLIENT_CONF, renderClientConf(merged));
    ctx.log.debug(`Wrote landscape config file to ${LANDSCAPE_CLIENT_CONF}`);
    await ctx.platform.writeFile(LANDSCAPE_DEFAULT_FILE, 'RUN=1\n');
    // Newer cloud-init registers through landscape-config: exit 5 means "not registered yet", 0 "already registered".
    const check = await ctx.platform.run(['landscape-config', '--silent', '--is-registered'], { allowFailure: true });
    if (check.code === 0) {
      ctx.log.warn('Client already registered to Landscape');
      return;
    }
    if (check.code !== 5)
      throw new ModuleError(
        'landscape',
        `Failure registering client: 'landscape-config --silent --is-registered' exited with code ${check.code}${check.stderr.trim() ? `: ${check.stderr.trim()}` : ''}`,
      );
    const client = merged.get('client') ?? new Map<string, string>();
    const params = [...client.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .flatMap(([k, v]) => [`--${k.replace(/_/g, '-')}`, v]);
    const r = await ctx.platform.run(['landscape-config', '--silent', ...params], { allowFailure: true });
    if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
    if (r.code !== 0)
      throw new ModuleError('landscape', `Failure registering client: landscape-config exited with code ${r.code}`);
  },
});
