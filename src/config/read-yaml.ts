// The one YAML reader: every YAML kiln is given is read here with the yaml package, resolved as PyYAML's
// SafeLoader resolves YAML 1.1 for cloud-init, with errors that name the file, line and column.
import {
  isCollection,
  isPair,
  LineCounter,
  parseDocument,
  visit,
  type Document,
  type ScalarTag,
  type Tags,
} from 'yaml';
import { ConfigError, describeError } from '../util/errors';

/** A YAML text that cannot be read: where (LINE and COLUMN are 1-based, absent when the fault has no place) and why. */
export class YamlError extends ConfigError {
  constructor(
    readonly source: string,
    readonly reason: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(`${line === undefined ? source : `${source}:${line}:${column}`}: invalid YAML: ${reason}`);
  }

  /**
   * The fault without the file name, for messages that already name the part: "invalid YAML at line L, column C: …".
   */
  get detail(): string {
    return this.line === undefined
      ? `invalid YAML: ${this.reason}`
      : `invalid YAML at line ${this.line}, column ${this.column}: ${this.reason}`;
  }
}

// PyYAML's implicit resolvers (resolver.py), which apply to plain scalars only. `08`, `1e3`, `0o17`, `0:30` and
// `2024-1-2` match none of them and stay strings, where the yaml package's own 1.1 schema would make numbers.
const PY_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const PY_FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const PY_INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const PY_NULL = /^(?:~|null|Null|NULL|)$/;
const PY_TIMESTAMP =
  /^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$/;
/** `=` resolves to tag:yaml.org,2002:value, which SafeLoader has no constructor for: PyYAML refuses the document. */
const PY_VALUE = /^=$/;

/** The pieces of a timestamp, as SafeConstructor.construct_yaml_timestamp reads them. */
const TIMESTAMP_PARTS =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?(?:[ \t]*(Z|([-+])([0-9]{1,2})(?::([0-9]{2}))?))?)?$/;

const DIGITS: Record<number, RegExp> = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ };

/** Python's int(TEXT, BASE) for the digit strings PyYAML passes it; anything else is its ValueError. */
function pyIntDigits(text: string, base: number): bigint {
  const digits = text.trim();
  if (!DIGITS[base]?.test(digits)) throw new Error(`invalid literal for int() with base ${base}: '${text}'`);
  const prefix = base === 2 ? '0b' : base === 8 ? '0o' : base === 16 ? '0x' : '';
  return BigInt(`${prefix}${digits}`);
}

/** SafeConstructor.construct_yaml_int: `_` dropped, 0b/0x/leading-0 bases, and base 60 for `a:b:c`. */
export function constructPyInt(source: string): number {
  let value = source.replace(/_/g, '');
  let sign = 1n;
  if (value.startsWith('-')) sign = -1n;
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1);
  let n: bigint;
  if (value === '0') n = 0n;
  else if (value.startsWith('0b')) n = pyIntDigits(value.slice(2), 2);
  else if (value.startsWith('0x')) n = pyIntDigits(value.slice(2), 16);
  else if (value.startsWith('0')) n = pyIntDigits(value, 8);
  else if (value.includes(':')) n = value.split(':').reduce((acc, part) => acc * 60n + pyIntDigits(part, 10), 0n);
  else n = pyIntDigits(value, 10);
  // Python's ints are unbounded; past 2^53 a JavaScript number keeps the nearest value it can hold.
  return Number(sign * n);
}

/** Python's float(TEXT). */
function pyFloat(text: string): number {
  const t = text.trim().toLowerCase();
  if (/^[-+]?(?:inf|infinity)$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?nan$/.test(t)) return NaN;
  if (!/^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[-+]?[0-9]+)?$/.test(t))
    throw new Error(`could not convert string to float: '${text}'`);
  return Number(t);
}

/** SafeConstructor.construct_yaml_float: `_` dropped, .inf/.nan, base 60 for `a:b.c`. */
export function constructPyFloat(source: string): number {
  let value = source.replace(/_/g, '').toLowerCase();
  let sign = 1;
  if (value.startsWith('-')) sign = -1;
  if (value.startsWith('-') || value.startsWith('+')) value = value.slice(1);
  if (value === '.inf') return sign * Infinity;
  if (value === '.nan') return NaN;
  if (value.includes(':')) return sign * value.split(':').reduce((acc, part) => acc * 60 + pyFloat(part), 0);
  return sign * pyFloat(value);
}

const PY_BOOL_VALUES: Record<string, boolean> = {
  yes: true,
  no: false,
  true: true,
  false: false,
  on: true,
  off: false,
};

/** SafeConstructor.construct_yaml_bool: the six words in any case. */
function constructPyBool(source: string): boolean {
  const value = PY_BOOL_VALUES[source.toLowerCase()];
  if (value === undefined) throw new Error(`'${source}' is not a YAML 1.1 boolean`);
  return value;
}

/**
 * SafeConstructor.construct_yaml_timestamp: a date, or a date and time (UTC unless an offset is given). PyYAML
 * makes a datetime.date or datetime.datetime; here it is a Date (milliseconds kept, not microseconds).
 */
function constructPyTimestamp(source: string): Date {
  const m = TIMESTAMP_PARTS.exec(source);
  if (!m) throw new Error(`'${source}' is not a YAML timestamp`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const ms = m[7] ? Math.floor(Number(`0.${m[7].slice(0, 6).padEnd(6, '0')}`) * 1000) : 0;
  let time = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const check = new Date(time);
  // Python's date() refuses what Date.UTC would roll over (February 30th, hour 25).
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    check.getUTCHours() !== hour ||
    check.getUTCMinutes() !== minute ||
    check.getUTCSeconds() !== second
  ) {
    throw new Error(`'${source}' is not a valid date or time`);
  }
  if (m[9]) time -= (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11] ?? 0)) * 60_000;
  return new Date(time);
}

type Resolve = (source: string) => unknown;

/**
 * A scalar tag twice: as an implicit resolver (DEFAULT with TEST, for plain scalars) and, for an explicit
 * `!!name` on any scalar, the constructor alone (as PyYAML runs it whatever the text).
 */
function pyTag(
  tag: string,
  test: RegExp | undefined,
  resolve: Resolve,
  identify: (v: unknown) => boolean,
): ScalarTag[] {
  const run = (source: string, onError: (message: string) => void): unknown => {
    try {
      return resolve(source);
    } catch (err) {
      onError(describeError(err));
      return source;
    }
  };
  const explicit: ScalarTag = { tag: `tag:yaml.org,2002:${tag}`, identify, resolve: run };
  return test ? [{ ...explicit, default: true, test }, explicit] : [explicit];
}

/** The scalar tags of PyYAML's SafeLoader (with cloud-init's !!python/unicode), in resolver order. */
const PY_SCALAR_TAGS: ScalarTag[] = [
  ...pyTag('bool', PY_BOOL, constructPyBool, (v) => typeof v === 'boolean'),
  ...pyTag('float', PY_FLOAT, constructPyFloat, (v) => typeof v === 'number' && !Number.isInteger(v)),
  ...pyTag('int', PY_INT, constructPyInt, (v) => typeof v === 'number' && Number.isInteger(v)),
  ...pyTag(
    'null',
    PY_NULL,
    () => null,
    (v) => v === null || v === undefined,
  ),
  ...pyTag('timestamp', PY_TIMESTAMP, constructPyTimestamp, (v) => v instanceof Date),
  ...pyTag(
    'value',
    PY_VALUE,
    () => {
      throw new Error("could not determine a constructor for the tag 'tag:yaml.org,2002:value'");
    },
    () => false,
  ),
  // cloud-init's loaders add this constructor to SafeLoader (cloudinit/safeyaml.py).
  ...pyTag(
    'python/unicode',
    undefined,
    (s) => s,
    () => false,
  ),
];

const REPLACED = new Set(['bool', 'float', 'int', 'null', 'timestamp'].map((t) => `tag:yaml.org,2002:${t}`));

/**
 * The yaml package's 1.1 schema (mappings, sequences, strings, merge keys, binary, omap, pairs, set) with PyYAML's
 * scalars.
 */
function pyYamlTags(tags: Tags): Tags {
  return [...PY_SCALAR_TAGS, ...tags.filter((t) => !(typeof t === 'object' && 'tag' in t && REPLACED.has(t.tag)))];
}

/** How far aliases may expand (the yaml package refuses a "billion laughs" document past it; PyYAML has no bound). */
export const MAX_ALIAS_COUNT = 1000;

/**
 * TEXT parsed as PyYAML parses a stream of one document; a LINECOUNTER gives positions to callers that map nodes back
 * to lines.
 */
export function parseYamlDocument(text: string, lineCounter?: LineCounter): Document {
  return parseDocument(text, {
    version: '1.1',
    merge: true,
    uniqueKeys: false, // PyYAML keeps the last of repeated keys
    prettyErrors: true,
    customTags: pyYamlTags,
    ...(lineCounter ? { lineCounter } : {}),
  });
}

/**
 * What PyYAML would refuse in DOC, first at the top: syntax errors, tags it has no constructor for, collections as
 * keys.
 */
export function yamlProblems(doc: Document): Array<{ pos: number; message: string }> {
  const problems = [...doc.errors, ...doc.warnings.filter((w) => w.code === 'TAG_RESOLVE_FAILED')].map((e) => ({
    pos: e.pos[0],
    message: firstLine(e.message),
  }));
  visit(doc, {
    Pair(_, pair) {
      if (isPair(pair) && isCollection(pair.key))
        problems.push({
          pos: pair.key.range?.[0] ?? 0,
          message: 'found unhashable key (a list or mapping used as a key)',
        });
    },
  });
  return problems.sort((a, b) => a.pos - b.pos);
}

/** The yaml package's message without the " at line L, column C:" and the excerpt its pretty errors add. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

/** DOC's value; YamlError (naming SOURCE) when PyYAML would refuse it or its aliases expand too far. */
export function yamlDocumentValue(doc: Document, source: string, lineCounter: LineCounter, lineOffset = 0): unknown {
  const first = yamlProblems(doc)[0];
  if (first) {
    const pos = lineCounter.linePos(first.pos);
    throw new YamlError(source, first.message, pos.line + lineOffset, pos.col);
  }
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new YamlError(source, describeError(err));
  }
}

/**
 * TEXT (from SOURCE, a file or part name for messages) read as cloud-init reads YAML: PyYAML's SafeLoader
 * rules for YAML 1.1 (`0644` is 420, `on`/`yes`/`off`/`no` are booleans, `0o17` and `1e3` are strings,
 * `190:20:30` is 685230). LINEOFFSET is added to reported lines (for a header line cut off the text).
 */
export function readYaml(text: string, source: string, opts: { lineOffset?: number } = {}): unknown {
  const lineCounter = new LineCounter();
  return yamlDocumentValue(parseYamlDocument(text, lineCounter), source, lineCounter, opts.lineOffset ?? 0);
}
