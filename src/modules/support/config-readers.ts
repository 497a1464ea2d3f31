// How a typed module reads each of its cloud-config keys before the schema checks it: the way the module's upstream
// code reads that key, so that the typed value is the one cloud-init's module would have worked with. cloud-init's
// modules read most keys through util.get_cfg_option_str / _bool / _list, is_false or plain truthiness, which take
// more than the schema allows: a number where a string is wanted is str()'d, a quoted 'yes' is true, a string where a
// list is wanted is a one-item list. A module declares one reader per key (config-module.ts).
import { pyRepr } from '../../config/schema/python-repr';
import { pyStr } from '../../util/python-str';
import { pyTruthy } from '../../util/python-truthy';
import { isFalse, isTrue } from './config-values';

/**
 * - 'as-is': the value itself.
 * - 'str': get_cfg_option_str: a string stays, anything else is Python's str() of it (null is 'None').
 * - 'bool': get_cfg_option_bool (translate_bool): Python-false values are false, booleans stay, else is_true.
 * - 'list': get_cfg_option_list: a list stays, null is [], anything else is a one-item list of its str().
 * - 'truthy': `if cfg.get(key):`, Python's truthiness, as a boolean.
 * - 'not-false': `not is_false(value)`: false only for false and the words off/0/no/false.
 * - 'truthy-str': `if value: str(value)`: a Python-false value is as if absent, anything else its str().
 * - a mapping of readers: the value, when a mapping, with each key it names read by that reader and the keys it
 *   does not name left out (the module never reads them, as its upstream code never does); any other value as it is.
 * - a function: the value it returns, undefined for "as if absent"; it may refuse a value with a ModuleError in
 *   the module's own words (kept where tests pin them), before the schema's check. It is given where warnings go,
 *   for the WarningReaders of the parts it reads.
 * - a WarningReader: for a key whose upstream module only warns on a value it cannot use (often one the schema
 *   rejects): its read's value, or, when that is undefined, upstream's warning logged and the key as if absent (or
 *   read as the reader's `instead`).
 * - an OwnParser: for a key the module's upstream code reads wider than 25.1's own schema allows (it acts on values
 *   the schema rejects, since 25.1's init stage only warns about them): the module's own parse of the value, typed,
 *   which the schema then does not judge (config-module.ts).
 */
export type ConfigReader =
  | 'as-is'
  | 'str'
  | 'bool'
  | 'list'
  | 'truthy'
  | 'not-false'
  | 'truthy-str'
  | { readonly [key: string]: ConfigReader }
  | ((value: unknown, warn?: ReaderWarn) => unknown)
  | WarningReader
  | OwnParser<unknown>;

/**
 * READ's value of a key, or (READ giving undefined) WARNING's words logged as a warning and the key as if absent, or
 * read as INSTEAD where absent means a default the upstream module does not use after its warning.
 */
export class WarningReader {
  constructor(
    readonly read: (value: unknown) => unknown,
    readonly warning: (value: unknown) => string,
    readonly instead?: unknown,
  ) {}
}

/**
 * A key read by the module's own PARSE, which gives the typed value the module works with (undefined for "as if
 * absent") or refuses the value with a ModuleError naming the key. The schema does not check what it gives: the
 * module's upstream code takes values its schema rejects (`{pip: …}` packages, lxd's `ipv4_nat: "true"`, a user's
 * `known`, …), and kiln's schema stays 25.1's, so that `kiln schema` judges as `cloud-init schema` does.
 */
export class OwnParser<T> {
  constructor(readonly parse: (value: unknown, warn?: ReaderWarn) => T | undefined) {}
}

/** Where a WarningReader's warning goes (the module's log). */
export type ReaderWarn = (message: string) => void;

/** Python's str() of a value parsed from YAML or JSON: lists and mappings as their repr. */
export function pythonStr(value: unknown): string {
  if (typeof value === 'string') return value;
  return typeof value === 'object' && value !== null && !(value instanceof Date) ? pyRepr(value) : pyStr(value);
}

/** A YAML or JSON mapping, its values not yet read. */
export type YamlMapping = Readonly<Record<string, unknown>>;

/** A YAML or JSON mapping (not a list, bytes or a date). */
export function isMapping(value: unknown): value is YamlMapping {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof Date)
  );
}

/** VALUE (present under its key) as READER reads it; undefined when the key is then as if absent. */
export function readConfigValue(reader: ConfigReader, value: unknown, warn?: ReaderWarn): unknown {
  if (reader instanceof WarningReader) {
    const read = reader.read(value);
    if (read !== undefined) return read;
    warn?.(reader.warning(value));
    return reader.instead;
  }
  if (reader instanceof OwnParser) return reader.parse(value, warn);
  if (typeof reader === 'function') return reader(value, warn);
  if (typeof reader === 'object') {
    if (!isMapping(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, keyReader] of Object.entries(reader)) {
      if (!Object.hasOwn(value, key)) continue;
      const read = readConfigValue(keyReader, value[key], warn);
      if (read !== undefined) out[key] = read;
    }
    return out;
  }
  switch (reader) {
    case 'as-is':
      return value;
    case 'str':
      return pythonStr(value);
    case 'bool':
      return pyTruthy(value) && (typeof value === 'boolean' || isTrue(pythonStr(value)));
    case 'list':
      if (value === null || value === undefined) return [];
      return Array.isArray(value) ? value : [pythonStr(value)];
    case 'truthy':
      return pyTruthy(value);
    case 'not-false':
      return !isFalse(typeof value === 'boolean' ? value : pythonStr(value));
    case 'truthy-str':
      return pyTruthy(value) ? pythonStr(value) : undefined;
  }
}

/** get_cfg_option_str as kiln's chef and puppet read their options: a null is as if absent (the option's default). */
export function strUnlessNull(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : pythonStr(value);
}
