// The jinja filters and tests user-data templates use in practice, with Python's string forms.
import { pyTruthy } from '../util/python-truthy';

/** Python's str() of a value: True/False/None, lists and dicts in repr form. */
export function toStr(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : pyFloat(v);
  return pyRepr(v);
}

function pyFloat(n: number): string {
  const s = String(n);
  return /[.e]/.test(s) ? s : `${s}.0`;
}

export function pyRepr(v: unknown): string {
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return toStr(v);
}

/** Python truthiness. */
export const truthy = pyTruthy;

type Filter = (v: unknown, args: unknown[], kwargs: Record<string, unknown>) => unknown;

function seq(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...v];
  if (v && typeof v === 'object') return Object.keys(v);
  throw new Error(`expected a list, found ${v === null ? 'none' : typeof v}`);
}

function attrOf(x: unknown, path: string): unknown {
  let cur: unknown = x;
  for (const p of path.split('.')) {
    if (cur && typeof cur === 'object') cur = (cur as Record<string, unknown>)[p];
    else return undefined;
  }
  return cur;
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = toStr(a);
  const y = toStr(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function toInt(v: unknown, dflt: unknown): unknown {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const s = v.trim();
    if (/^[+-]?\d+$/.test(s)) return parseInt(s, 10);
    if (/^[+-]?\d*\.\d+$/.test(s)) return Math.trunc(parseFloat(s));
  }
  return dflt ?? 0;
}

export const FILTERS: Record<string, Filter> = {
  default: (v, [d = '', boolean = false]) => (v === undefined || (boolean && !truthy(v)) ? d : v),
  upper: (v) => toStr(v).toUpperCase(),
  lower: (v) => toStr(v).toLowerCase(),
  capitalize: (v) => {
    const s = toStr(v);
    return s.charAt(0).toUpperCase() + s.slice(1).toLowerCase();
  },
  title: (v) => toStr(v).replace(/\w\S*/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()),
  trim: (v, [chars]) =>
    chars === undefined
      ? toStr(v).trim()
      : toStr(v).replace(new RegExp(`^[${escapeClass(toStr(chars))}]+|[${escapeClass(toStr(chars))}]+$`, 'g'), ''),
  replace: (v, [a, b, count]) => {
    let s = toStr(v);
    const from = toStr(a);
    const to = toStr(b);
    if (count === undefined) return s.split(from).join(to);
    let n = Number(count);
    let out = '';
    while (n-- > 0 && s.includes(from)) {
      const i = s.indexOf(from);
      out += s.slice(0, i) + to;
      s = s.slice(i + from.length);
    }
    return out + s;
  },
  join: (v, [sep = '', attribute], kw) => {
    const attr = attribute ?? kw.attribute;
    return seq(v)
      .map((x) => toStr(attr !== undefined ? attrOf(x, String(attr)) : x))
      .join(toStr(sep));
  },
  length: (v) => seq(v).length,
  count: (v) => seq(v).length,
  first: (v) => seq(v)[0],
  last: (v) => {
    const s = seq(v);
    return s[s.length - 1];
  },
  int: (v, [d]) => toInt(v, d),
  float: (v, [d]) => {
    const n = typeof v === 'number' ? v : parseFloat(toStr(v));
    return Number.isNaN(n) ? (d ?? 0) : n;
  },
  abs: (v) => Math.abs(Number(v)),
  round: (v, [precision = 0, method = 'common']) => {
    const f = 10 ** Number(precision);
    const n = Number(v) * f;
    return (method === 'ceil' ? Math.ceil(n) : method === 'floor' ? Math.floor(n) : Math.round(n)) / f;
  },
  string: (v) => toStr(v),
  list: (v) => [...seq(v)],
  reverse: (v) => (typeof v === 'string' ? [...v].reverse().join('') : [...seq(v)].reverse()),
  sort: (v, [reverse = false], kw) => {
    const attr = kw.attribute;
    const out = [...seq(v)].sort((a, b) =>
      compare(attr ? attrOf(a, String(attr)) : a, attr ? attrOf(b, String(attr)) : b),
    );
    return reverse || kw.reverse ? out.reverse() : out;
  },
  unique: (v) => {
    const seen: string[] = [];
    return seq(v).filter((x) => {
      const k = JSON.stringify(x);
      if (seen.includes(k)) return false;
      seen.push(k);
      return true;
    });
  },
  min: (v) => [...seq(v)].sort(compare)[0],
  max: (v) => [...seq(v)].sort(compare).pop(),
  sum: (v, [attribute], kw) =>
    seq(v).reduce(
      (acc: number, x) => acc + Number((attribute ?? kw.attribute) ? attrOf(x, String(attribute ?? kw.attribute)) : x),
      0,
    ),
  map: (v, [name], kw) => {
    if (kw.attribute !== undefined) return seq(v).map((x) => attrOf(x, String(kw.attribute)) ?? kw.default);
    const f = FILTERS[String(name)];
    if (!f) throw new Error(`map: unknown filter '${String(name)}'`);
    return seq(v).map((x) => f(x, [], {}));
  },
  select: (v, [test, ...a]) => seq(v).filter((x) => (test === undefined ? truthy(x) : runTest(String(test), x, a))),
  reject: (v, [test, ...a]) => seq(v).filter((x) => !(test === undefined ? truthy(x) : runTest(String(test), x, a))),
  selectattr: (v, [attr, test, ...a]) =>
    seq(v).filter((x) => {
      const y = attrOf(x, String(attr));
      return test === undefined ? truthy(y) : runTest(String(test), y, a);
    }),
  rejectattr: (v, [attr, test, ...a]) =>
    seq(v).filter((x) => {
      const y = attrOf(x, String(attr));
      return !(test === undefined ? truthy(y) : runTest(String(test), y, a));
    }),
  items: (v) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : []),
  dictsort: (v) => (v && typeof v === 'object' ? Object.entries(v).sort((a, b) => compare(a[0], b[0])) : []),
  tojson: (v, [indent]) => htmlSafeJson(pyJson(v ?? null, indent === undefined ? undefined : Number(indent), 0)),
  indent: (v, [width = 4, first = false, blank = false]) => {
    const pad = typeof width === 'string' ? width : ' '.repeat(Number(width));
    return toStr(v)
      .split('\n')
      .map((l, i) => ((i === 0 && !first) || (!blank && l.trim() === '') ? l : pad + l))
      .join('\n');
  },
  wordcount: (v) => toStr(v).split(/\s+/).filter(Boolean).length,
  center: (v, [width = 80]) => {
    const s = toStr(v);
    const w = Number(width);
    const left = Math.floor((w - s.length) / 2);
    return s.length >= w ? s : ' '.repeat(left) + s + ' '.repeat(w - s.length - left);
  },
  format: (v, args) => {
    let i = 0;
    return toStr(v).replace(/%[sdr%]/g, (m) => (m === '%%' ? '%' : m === '%r' ? pyRepr(args[i++]) : toStr(args[i++])));
  },
  e: (v) => escapeHtml(toStr(v)),
  escape: (v) => escapeHtml(toStr(v)),
  safe: (v) => v,
  b64encode: (v) => Buffer.from(toStr(v), 'utf8').toString('base64'),
  b64decode: (v) => Buffer.from(toStr(v), 'base64').toString('utf8'),
  batch: (v, [n, fill]) => {
    const s = seq(v);
    const out: unknown[][] = [];
    for (let i = 0; i < s.length; i += Number(n)) out.push(s.slice(i, i + Number(n)));
    const last = out[out.length - 1];
    if (fill !== undefined && last) while (last.length < Number(n)) last.push(fill);
    return out;
  },
};
FILTERS.d = FILTERS.default as Filter;

/** Python's json.dumps(sort_keys=True) text: ', ' and ': ' separators, or an indented form. */
function pyJson(v: unknown, indent: number | undefined, depth: number): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  const pad = (d: number) => (indent === undefined ? '' : `\n${' '.repeat(indent * d)}`);
  const sep = indent === undefined ? ', ' : ',';
  if (Array.isArray(v))
    return v.length === 0
      ? '[]'
      : `[${pad(depth + 1)}${v.map((x) => pyJson(x, indent, depth + 1)).join(sep + pad(depth + 1))}${pad(depth)}]`;
  const keys = Object.keys(v).sort();
  if (keys.length === 0) return '{}';
  return `{${pad(depth + 1)}${keys.map((k) => `${JSON.stringify(k)}: ${pyJson((v as Record<string, unknown>)[k], indent, depth + 1)}`).join(sep + pad(depth + 1))}${pad(depth)}}`;
}

/** Jinja's tojson escapes <, >, & and ' so the output is safe inside HTML. */
function htmlSafeJson(s: string): string {
  return s.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027');
}

function escapeClass(s: string): string {
  return s.replace(/[\\\]^-]/g, '\\$&');
}

function escapeHtml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&#34;')
    .replace(/'/g, '&#39;');
}

type Test = (v: unknown, args: unknown[]) => boolean;

export const TESTS: Record<string, Test> = {
  none: (v) => v === null,
  string: (v) => typeof v === 'string',
  number: (v) => typeof v === 'number',
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  float: (v) => typeof v === 'number' && !Number.isInteger(v),
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  mapping: (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  sequence: (v) => Array.isArray(v) || typeof v === 'string',
  iterable: (v) => Array.isArray(v) || typeof v === 'string' || (typeof v === 'object' && v !== null),
  eq: (v, [x]) => JSON.stringify(v) === JSON.stringify(x),
  ne: (v, [x]) => JSON.stringify(v) !== JSON.stringify(x),
  gt: (v, [x]) => compare(v, x) > 0,
  ge: (v, [x]) => compare(v, x) >= 0,
  lt: (v, [x]) => compare(v, x) < 0,
  le: (v, [x]) => compare(v, x) <= 0,
  in: (v, [x]) =>
    Array.isArray(x)
      ? x.includes(v)
      : typeof x === 'string'
        ? x.includes(toStr(v))
        : !!x && typeof x === 'object' && Object.hasOwn(x, String(v)),
  divisibleby: (v, [x]) => Number(v) % Number(x) === 0,
  even: (v) => Number(v) % 2 === 0,
  odd: (v) => Math.abs(Number(v) % 2) === 1,
  lower: (v) => toStr(v) === toStr(v).toLowerCase(),
  upper: (v) => toStr(v) === toStr(v).toUpperCase(),
};
for (const [alias, name] of [
  ['equalto', 'eq'],
  ['==', 'eq'],
  ['!=', 'ne'],
  ['greaterthan', 'gt'],
  ['lessthan', 'lt'],
  ['>', 'gt'],
  ['<', 'lt'],
  ['>=', 'ge'],
  ['<=', 'le'],
] as const) {
  TESTS[alias] = TESTS[name] as Test;
}

function runTest(name: string, v: unknown, args: unknown[]): boolean {
  if (name === 'defined') return v !== undefined;
  if (name === 'undefined') return v === undefined;
  const t = TESTS[name];
  if (!t) throw new Error(`unknown test '${name}'`);
  return t(v, args);
}
