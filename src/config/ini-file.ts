// INI files as cloudbase-init (oslo.config) and cloud-init (configparser, for VMware's cust.cfg) read them: one reader
// for both.
import { ConfigError } from '../util/errors';

/** One raw value with where it came from, so errors can name file and line. */
export interface RawValue {
  value: string;
  file: string;
  line: number;
}

/**
 * A parsed INI file: section → key → raw value (last assignment wins, as oslo.config does for single-valued options).
 */
export type RawConf = Map<string, Map<string, RawValue>>;

/**
 * Parses INI text by the rules oslo.config and Python's configparser share: `[section]`, `key = value` or
 * `key: value`, `#`/`;` comment lines, indented continuation lines. A key set twice in a section: the last
 * wins (oslo.config, cloudbase-init.conf), or with `duplicates: 'error'` it is an error naming the line
 * (configparser's strict mode, VMware's cust.cfg as cloud-init reads it).
 */
export function parseIni(
  text: string,
  file: string,
  into: RawConf = new Map(),
  opts: { duplicates?: 'last-wins' | 'error' } = {},
): RawConf {
  let section: string | undefined;
  let last: RawValue | undefined;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    if (/^\s*$/.test(raw)) {
      last = undefined;
      return;
    }
    if (/^\s*[#;]/.test(raw)) return;
    if (/^\s/.test(raw) && last) {
      last.value += `\n${raw.trim()}`;
      return;
    }
    const header = /^\[([^\]]+)\]\s*$/.exec(raw.trim());
    if (header) {
      section = (header[1] as string).trim();
      if (!into.has(section)) into.set(section, new Map());
      last = undefined;
      return;
    }
    const kv = /^([^:=\s][^:=]*?)\s*[:=]\s*(.*)$/.exec(raw.trim());
    if (!kv) throw new ConfigError(`${file}:${lineNo}: not a 'key = value' line or a [section] header: ${raw.trim()}`);
    if (section === undefined)
      throw new ConfigError(`${file}:${lineNo}: '${kv[1]}' comes before any [section] header (put it under [DEFAULT])`);
    const key = (kv[1] as string).trim();
    if (opts.duplicates === 'error' && into.get(section)?.has(key))
      throw new ConfigError(`${file}:${lineNo}: '${key}' is set twice in [${section}]`);
    last = { value: (kv[2] as string).trim(), file, line: lineNo };
    into.get(section)?.set(key, last);
  });
  return into;
}
