// A YAML emitter that writes what PyYAML's safe_dump(default_flow_style=False, indent=4) writes, so files match
// cloud-init's.

type Value = unknown;

const BOOL_NULL =
  /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$/;
const INT =
  /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const FLOAT =
  /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;
const TIMESTAMP =
  /^(?:[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)$/;

/** Whether PyYAML would write S without quotes in block context. */
function plainOk(s: string): boolean {
  if (s === '') return false;
  if (BOOL_NULL.test(s) || INT.test(s) || FLOAT.test(s) || TIMESTAMP.test(s) || s === '<<' || s === '=') return false;
  if (/^\s|\s$/.test(s)) return false;
  if (/[\x00-\x1f\x7f-\x9f]/.test(s) || /[^\x00-\x7e]/.test(s)) return false;
  const first = s[0] as string;
  const second = s[1];
  const followedBySpace = second === undefined || second === ' ';
  if ('#,[]{}&*!|>\'"%@`'.includes(first)) return false;
  if ((first === '?' || first === ':' || first === '-') && followedBySpace) return false;
  if (s.includes(': ') || s.includes(' #') || s.endsWith(':')) return false;
  return true;
}

/** Whether PyYAML's analysis allows a multi-line string in single quotes (no control characters, no ' \n' or '\n '). */
function singleQuotedMultilineOk(s: string): boolean {
  if (!s.includes('\n')) return false;
  if (/[\x00-\x09\x0b-\x1f\x7f-\x9f]/.test(s) || /[^\x00-\x7e]/.test(s)) return false;
  return !/ \n|\n /.test(s);
}

/**
 * PyYAML's write_single_quoted: line breaks doubled, continuation lines at INDENT, long lines folded at spaces past
 * column 80.
 */
function singleQuoted(text: string, indent: number, startColumn: number): string {
  let out = "'";
  let column = startColumn + 1;
  const write = (d: string) => {
    out += d;
    column += d.length;
  };
  const lineBreak = () => {
    out += '\n';
    column = 0;
  };
  const writeIndent = () => {
    out += ' '.repeat(indent);
    column = indent;
  };
  let spaces = false;
  let breaks = false;
  let start = 0;
  for (let end = 0; end <= text.length; end++) {
    const ch = end < text.length ? (text[end] as string) : undefined;
    if (spaces) {
      if (ch === undefined || ch !== ' ') {
        if (start + 1 === end && column > 80 && start !== 0 && end !== text.length) {
          lineBreak();
          writeIndent();
        } else write(text.slice(start, end));
        start = end;
      }
    } else if (breaks) {
      if (ch === undefined || ch !== '\n') {
        if (text[start] === '\n') lineBreak();
        for (let i = start; i < end; i++) lineBreak();
        writeIndent();
        start = end;
      }
    } else if (ch === undefined || ch === ' ' || ch === '\n' || ch === "'") {
      if (start < end) {
        write(text.slice(start, end));
        start = end;
      }
    }
    if (ch === "'") {
      write("''");
      start = end + 1;
    }
    if (ch !== undefined) {
      spaces = ch === ' ';
      breaks = ch === '\n';
    }
  }
  return `${out}'`;
}

/** PyYAML's write_plain: a single space past column 80 becomes a line break and INDENT. */
function plainWrapped(text: string, indent: number, startColumn: number): string {
  let out = '';
  let column = startColumn;
  let spaces = false;
  let start = 0;
  for (let end = 0; end <= text.length; end++) {
    const ch = end < text.length ? text[end] : undefined;
    if (spaces) {
      if (ch !== ' ') {
        if (start + 1 === end && column > 80) {
          out += `\n${' '.repeat(indent)}`;
          column = indent;
        } else {
          out += text.slice(start, end);
          column += end - start;
        }
        start = end;
      }
    } else if (ch === undefined || ch === ' ') {
      out += text.slice(start, end);
      column += end - start;
      start = end;
    }
    if (ch !== undefined) spaces = ch === ' ';
  }
  return out;
}

/** PyYAML's ESCAPE_REPLACEMENTS: characters written as a backslash and one letter in double quotes. */
const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\b': 'b',
  '\t': 't',
  '\n': 'n',
  '\v': 'v',
  '\f': 'f',
  '\r': 'r',
  '\x1b': 'e',
  '"': '"',
  '\\': '\\',
  '\x85': 'N',
  '\xa0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

/**
 * A string with characters PyYAML writes only in double quotes: anything but printable ASCII and line feeds (safe_dump
 * keeps allow_unicode off).
 */
function needsDoubleQuotes(s: string): boolean {
  return /[^\n\x20-\x7e]/.test(s);
}

/**
 * PyYAML's write_double_quoted: what is not printable ASCII escaped (\\xXX, \\uXXXX, \\UXXXXXXXX or a letter), and,
 * when SPLIT, a long line broken with a backslash at a space past column 80, continuing at INDENT.
 */
function doubleQuoted(text: string, indent: number, startColumn: number, split: boolean): string {
  const chars = Array.from(text);
  let out = '"';
  let column = startColumn + 1;
  const write = (d: string) => {
    out += d;
    column += d.length;
  };
  let start = 0;
  for (let end = 0; end <= chars.length; end++) {
    const ch = end < chars.length ? (chars[end] as string) : undefined;
    if (ch === undefined || '"\\\x85\u2028\u2029\ufeff'.includes(ch) || !(ch >= '\x20' && ch <= '\x7e')) {
      if (start < end) {
        write(chars.slice(start, end).join(''));
        start = end;
      }
      if (ch !== undefined) {
        const code = ch.codePointAt(0) as number;
        const hex = code.toString(16).toUpperCase();
        write(
          ESCAPES[ch] !== undefined
            ? `\\${ESCAPES[ch]}`
            : code <= 0xff
              ? `\\x${hex.padStart(2, '0')}`
              : code <= 0xffff
                ? `\\u${hex.padStart(4, '0')}`
                : `\\U${hex.padStart(8, '0')}`,
        );
        start = end + 1;
      }
    }
    if (split && end > 0 && end < chars.length - 1 && (ch === ' ' || start >= end) && column + (end - start) > 80) {
      out += `${chars.slice(start, end).join('')}\\\n${' '.repeat(indent)}`;
      if (start < end) start = end;
      column = indent;
      if (chars[start] === ' ') write('\\');
    }
  }
  return `${out}"`;
}

/**
 * A number as PyYAML's representer writes it. JavaScript has one number type: integral values are written as
 * Python ints (all digits), others as Python's repr of a float (exponent below 1e-4, with '.0' and two digits).
 */
function numberText(v: number): string {
  if (Number.isNaN(v)) return '.nan';
  if (!Number.isFinite(v)) return v > 0 ? '.inf' : '-.inf';
  if (Number.isInteger(v)) return BigInt(v).toString();
  const [mantissa, exp] = v.toExponential().split('e') as [string, string];
  if (Number(exp) >= -4) return String(v);
  const digits = mantissa.includes('.') ? mantissa : `${mantissa}.0`;
  return `${digits}e-${String(-Number(exp)).padStart(2, '0')}`;
}

/**
 * Scalar V. A value (COLUMN given: where it starts on its line) is folded as PyYAML folds it, continuing at
 * INDENT (the block's indent + 4); keys (no COLUMN) are never folded.
 */
export function scalar(v: Value, indent = 0, column?: number): string {
  if (typeof v === 'string') return stringScalar(v, indent, column);
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return numberText(v);
  return stringScalar(String(v), indent, column);
}

/** PyYAML's choice of style for a string: plain where nothing reads it otherwise, else single quotes, else double. */
function stringScalar(s: string, indent: number, column: number | undefined): string {
  const split = column !== undefined;
  if (needsDoubleQuotes(s)) return doubleQuoted(s, indent, column ?? 0, split);
  if (s.includes('\n'))
    return split && singleQuotedMultilineOk(s)
      ? singleQuoted(s, indent, column)
      : doubleQuoted(s, indent, column ?? 0, split);
  if (plainOk(s)) return split ? plainWrapped(s, indent, column) : s;
  return split ? singleQuoted(s, indent, column) : `'${s.replace(/'/g, "''")}'`;
}

function isMap(v: Value): v is Record<string, Value> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyOrder(o: Record<string, Value>, sort: boolean): string[] {
  const keys = Object.keys(o).filter((k) => o[k] !== undefined);
  return sort ? keys.sort() : keys;
}

function emit(v: Value, indent: number, out: string[], sort: boolean, firstPrefix: string | null, step = 4): void {
  const pad = ' '.repeat(indent);
  if (isMap(v)) {
    const keys = keyOrder(v, sort);
    if (keys.length === 0) {
      out.push(`${firstPrefix ?? pad}{}`);
      return;
    }
    keys.forEach((k, i) => {
      const prefix = i === 0 && firstPrefix !== null ? firstPrefix : pad;
      const val = v[k];
      if (isMap(val) && keyOrder(val, sort).length > 0) {
        out.push(`${prefix}${scalar(k)}:`);
        emit(val, indent + step, out, sort, null, step);
      } else if (Array.isArray(val) && val.length > 0) {
        out.push(`${prefix}${scalar(k)}:`);
        emit(val, indent, out, sort, null, step);
      } else
        out.push(
          `${prefix}${scalar(k)}: ${Array.isArray(val) ? '[]' : isMap(val) ? '{}' : scalar(val, indent + step, prefix.length + scalar(k).length + 2)}`,
        );
    });
    return;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push(`${firstPrefix ?? pad}[]`);
      return;
    }
    v.forEach((item, i) => {
      const dash =
        i === 0 && firstPrefix !== null ? `${firstPrefix}-${' '.repeat(step - 1)}` : `${pad}-${' '.repeat(step - 1)}`;
      if (isMap(item) && keyOrder(item, sort).length > 0) emit(item, indent + step, out, sort, dash, step);
      else if (Array.isArray(item) && item.length > 0) emit(item, indent + step, out, sort, dash, step);
      else {
        const lead = `${i === 0 && firstPrefix !== null ? firstPrefix : pad}- `;
        out.push(
          `${lead}${Array.isArray(item) ? '[]' : isMap(item) ? '{}' : scalar(item, indent + step, lead.length)}`,
        );
      }
    });
    return;
  }
  out.push(`${firstPrefix ?? pad}${scalar(v)}`);
}

/**
 * YAML text for V as PyYAML writes it (keys sorted unless SORT is false), ending in a newline. INDENT is
 * PyYAML's indent: 4 as cloud-init's safeyaml.dumps, 2 for a plain yaml.dump (puppet's csr_attributes.yaml).
 */
export function pyyamlDump(v: Value, sort = true, indent = 4): string {
  const out: string[] = [];
  if (!isMap(v) && !Array.isArray(v)) return `${scalar(v)}\n...\n`;
  emit(v, 0, out, sort, null, indent);
  return `${out.join('\n')}\n`;
}
