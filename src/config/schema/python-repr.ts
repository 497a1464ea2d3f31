// Python's repr() of a value read from YAML, as cloud-init's schema messages print it: 'text', b'bytes', True,
// None, [1, 2], {'key': 'value'}, datetime.date(2024, 1, 2).

function quoted(body: string, escapeChar: (ch: string, code: number) => string | undefined): string {
  const quote = body.includes("'") && !body.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of body) {
    const code = ch.codePointAt(0) as number;
    if (ch === '\\' || ch === quote) out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else out += escapeChar(ch, code) ?? ch;
  }
  return `${quote}${out}${quote}`;
}

const hex2 = (code: number): string => `\\x${code.toString(16).padStart(2, '0')}`;

/** A str's repr: control characters as \xNN, the rest as it is. */
export function strRepr(s: string): string {
  return quoted(s, (_, code) => (code < 0x20 || (code >= 0x7f && code < 0xa0) ? hex2(code) : undefined));
}

/** A bytes value's repr: printable ASCII as it is, every other byte as \xNN. */
export function bytesRepr(b: Uint8Array): string {
  return `b${quoted(Buffer.from(b).toString('latin1'), (_, code) => (code < 0x20 || code >= 0x7f ? hex2(code) : undefined))}`;
}

function floatRepr(n: number): string {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  const s = String(n);
  return /[.e]/.test(s) ? s.replace(/e([+-])(\d)$/, 'e$10$2') : s;
}

export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return strRepr(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : floatRepr(v);
  if (typeof v === 'bigint') return String(v);
  if (v instanceof Uint8Array) return bytesRepr(v);
  if (v instanceof Date) {
    const parts = [v.getUTCFullYear(), v.getUTCMonth() + 1, v.getUTCDate()];
    const time = [v.getUTCHours(), v.getUTCMinutes(), v.getUTCSeconds()];
    return time.every((t) => t === 0)
      ? `datetime.date(${parts.join(', ')})`
      : `datetime.datetime(${[...parts, ...time].join(', ')})`;
  }
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof Set) return v.size ? `{${[...v].map(pyRepr).join(', ')}}` : 'set()';
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  if (typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
      .join(', ')}}`;
  return String(v);
}
