// Python's RawConfigParser as cloud-init's DefaultingConfigParser reads and writes an INI file (puppet.conf).
import { ModuleError } from '../module';
import { pyStr } from '../../util/python-str';

/** Sections in file order, each with its options in order; DEFAULT holds configparser's defaults section. */
export type PyConfig = Map<string, Map<string, string>>;

/** Reads TEXT as configparser does: option names lower-cased, comments dropped, duplicates refused. */
export function parsePyConfig(module: string, text: string, source: string): PyConfig {
  const conf: PyConfig = new Map();
  let section: Map<string, string> | undefined;
  let last: { map: Map<string, string>; key: string } | undefined;
  text.split('\n').forEach((line, i) => {
    const lineNo = i + 1;
    const trimmed = line.trim();
    if (trimmed === '' || /^[#;]/.test(trimmed)) {
      if (trimmed === '' && last) last = undefined;
      return;
    }
    // A continuation line: indented and after an option (cloud-init lstrips puppet.conf first, so rare).
    if (/^\s/.test(line) && last) {
      last.map.set(last.key, `${last.map.get(last.key) ?? ''}\n${trimmed}`);
      return;
    }
    const header = /^\[(.+)\]/.exec(trimmed);
    if (header) {
      const name = header[1] as string;
      if (conf.has(name))
        throw new ModuleError(
          module,
          `While reading from '${source}' [line ${lineNo}]: section '${name}' already exists`,
        );
      section = new Map();
      conf.set(name, section);
      last = undefined;
      return;
    }
    if (!section)
      throw new ModuleError(module, `File contains no section headers.\nfile: '${source}', line: ${lineNo}\n'${line}'`);
    const m = /^(.*?)\s*[=:]\s*(.*)$/.exec(trimmed);
    if (!m?.[1])
      throw new ModuleError(module, `Source contains parsing errors: '${source}'\n\t[line ${lineNo}]: '${line}'`);
    const key = m[1].toLowerCase();
    if (section.has(key))
      throw new ModuleError(
        module,
        `While reading from '${source}' [line ${lineNo}]: option '${key}' in section already exists`,
      );
    section.set(key, m[2] as string);
    last = { map: section, key };
  });
  return conf;
}

/** configparser's set(): the section is made when missing (DefaultingConfigParser), the name lower-cased. */
export function setPyOption(module: string, conf: PyConfig, section: string, option: string, value: unknown): void {
  if (!conf.has(section)) {
    if (section.toLowerCase() === 'default' && section !== 'DEFAULT')
      throw new ModuleError(module, `No section: '${section}'`);
    conf.set(section, new Map());
  }
  (conf.get(section) as Map<string, string>).set(option.toLowerCase(), pyStr(value));
}

/** configparser.write: DEFAULT first, each section then its `key = value` lines and a blank line. */
export function stringifyPyConfig(conf: PyConfig): string {
  let out = '';
  const write = (name: string, opts: Map<string, string>) => {
    out += `[${name}]\n`;
    for (const [k, v] of opts) out += `${k} = ${v.replace(/\n/g, '\n\t')}\n`;
    out += '\n';
  };
  const defaults = conf.get('DEFAULT');
  if (defaults && defaults.size > 0) write('DEFAULT', defaults);
  for (const [name, opts] of conf) if (name !== 'DEFAULT') write(name, opts);
  return out;
}
