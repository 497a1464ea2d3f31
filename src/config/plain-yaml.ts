// A fast reader for the plain YAML configuration files are written in (block mappings and sequences, plain
// and quoted one-line scalars, literal block scalars, one-line flow collections, anchors and aliases), with
// YAML 1.2's core schema as the yaml package applies it. Anything else, or anything it is not sure of, is
// answered NOT_PLAIN and the caller parses the text with the yaml package, which also reports every error.
//
// Why: the yaml package builds a full document model through generators; cold, as every boot runs it, that was
// ~19 ms for the ~6 KB of a Debian system's cloud.cfg files. This reader's answers are checked against the
// yaml package's over every YAML file in the repository and generated documents (test/config/plain-yaml.test.ts).

export const NOT_PLAIN: unique symbol = Symbol('not plain YAML');

class NotPlain extends Error {}

const bail = (): never => {
  throw new NotPlain();
};

/** The value of TEXT (a single YAML document) as the yaml package's core schema gives it, or NOT_PLAIN. */
export function readPlainYaml(text: string): unknown {
  try {
    return new PlainYamlReader(text).document();
  } catch (err) {
    if (err instanceof NotPlain) return NOT_PLAIN;
    throw err;
  }
}

/** Characters that cannot start a plain scalar (YAML's indicators); '-', '?' and ':' may when a non-space follows. */
const INDICATOR = /^[[\]{},#&*!|>'"%@`]/;
const NULL = /^(?:~|null|Null|NULL)?$/;
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
const SIMPLE_INT = /^(?:0|-?[1-9][0-9]*)$/;
/** Plain scalars the core schema may read as numbers (or special floats): left to the yaml package unless SIMPLE_INT. */
const NUMBER_LIKE = /^[-+]?[.0-9]/;

/** A plain scalar's value in the core schema. */
function resolvePlain(s: string): unknown {
  if (NULL.test(s)) return null;
  if (TRUE.test(s)) return true;
  if (FALSE.test(s)) return false;
  if (SIMPLE_INT.test(s)) {
    const n = Number(s);
    return Number.isSafeInteger(n) ? n : bail();
  }
  if (NUMBER_LIKE.test(s)) bail();
  return s;
}

/** Where a comment starts in LINE (a '#' at the start or after a space), or LINE's length. */
function commentAt(line: string, from = 0): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === '#' && (i === 0 || line[i - 1] === ' ' || line[i - 1] === '\t')) return i;
  }
  return line.length;
}

/** The escapes of double-quoted scalars that this reader follows (the common ones). */
const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', '/': '/', r: '\r', '0': '\0' };

/** The value of a double-quoted scalar's body (without quotes). */
function unescapeDouble(body: string): string {
  return body.replace(/\\(.)/g, (_, c: string) => SIMPLE_ESCAPES[c] ?? bail());
}

/** A block mapping entry's key and the text after its ': '. */
interface MappingEntry {
  key: string;
  rest: string;
}

class PlainYamlReader {
  private readonly lines: string[];
  private at = 0;
  private readonly anchors = new Map<string, unknown>();

  constructor(text: string) {
    if (/[\r\uFEFF]/.test(text)) bail();
    this.lines = text.split('\n');
  }

  /** The next line, which must hold no tab outside a literal block scalar (tabs as separators are not followed). */
  private line(): string {
    const line = this.lines[this.at] as string;
    if (line.includes('\t')) bail();
    return line;
  }

  document(): unknown {
    // Blank and comment lines, then an optional `---` that starts the one document.
    while (this.at < this.lines.length && /^[ ]*(?:#.*)?$/.test(this.lines[this.at] as string)) this.at++;
    if (this.at < this.lines.length && /^---(?:[ \t]+#.*|[ \t]*)$/.test(this.lines[this.at] as string)) {
      this.at++;
      this.skipInsignificant();
    }
    if (this.at >= this.lines.length) return null;
    const value = this.block(0);
    this.skipInsignificant();
    if (this.at < this.lines.length) bail(); // more documents, or something this reader does not follow
    return value;
  }

  /** Moves past blank and comment-only lines; a directive, document marker or tab indentation is not followed. */
  private skipInsignificant(): void {
    while (this.at < this.lines.length) {
      const line = this.lines[this.at] as string;
      const body = line.trimStart();
      if (line.slice(0, line.length - body.length).includes('\t')) bail(); // tabs before content or a comment, or on a blank line
      if (body !== '' && !body.startsWith('#')) {
        if (/^(?:---|\.\.\.)/.test(line) || line.startsWith('%')) bail();
        return;
      }
      this.at++;
    }
  }

  private indentOf(line: string): number {
    const n = line.length - line.trimStart().length;
    if (line.slice(0, n).includes('\t')) bail();
    return n;
  }

  /** The node whose first line is the next significant line, indented at least MIN (a mapping, a sequence or a scalar line). */
  private block(min: number): unknown {
    this.skipInsignificant();
    const line = this.line();
    const indent = this.indentOf(line);
    if (indent < min) bail();
    const body = line.slice(indent);
    if (/^-(?:[ ]|$)/.test(body)) return this.sequence(indent);
    if (this.entryKey(body) !== undefined) return this.mapping(indent, undefined);
    // A scalar on a line of its own: one line only, and not plain (a plain one there is rare, and its reading subtle).
    if (!/^["'[{*]/.test(body)) bail();
    this.at++;
    const value = this.inline(body, indent);
    this.skipInsignificant();
    if (this.at < this.lines.length && this.indentOf(this.lines[this.at] as string) > indent) bail();
    return value;
  }

  /**
   * The key of a mapping entry starting BODY and where its value starts, or undefined when BODY is no entry.
   * Keys are plain or quoted strings that the core schema reads as strings.
   */
  private entryKey(body: string): MappingEntry | undefined {
    let key: string;
    let end: number;
    if (body.startsWith('"') || body.startsWith("'")) {
      const q = readQuoted(body);
      key = q.value;
      end = q.end;
    } else {
      if (INDICATOR.test(body) || /^[-?:](?:[ ]|$)/.test(body)) return undefined;
      const colon = body.search(/:(?:[ ]|$)/);
      if (colon < 0) return undefined;
      key = body.slice(0, colon).trimEnd();
      if (key === '' || commentAt(key) < key.length || resolvePlain(key) !== key) return undefined;
      end = colon;
    }
    if (body[end] !== ':' || !(end + 1 === body.length || body[end + 1] === ' ')) return undefined;
    if (key === '__proto__' || key === '<<') bail();
    let restAt = end + 1;
    while (body[restAt] === ' ') restAt++;
    return { key, rest: body.slice(restAt) };
  }

  /** The next significant line if it is at INDENT; undefined at the end or at a lesser indent (the block ends). A deeper one bails. */
  private lineAtIndent(indent: number): string | undefined {
    this.skipInsignificant();
    if (this.at >= this.lines.length) return undefined;
    const line = this.line();
    const lineIndent = this.indentOf(line);
    if (lineIndent < indent) return undefined;
    if (lineIndent > indent) bail();
    return line;
  }

  /** A block mapping at INDENT; FIRST is an entry already read from the current line (a compact mapping in a sequence item). */
  private mapping(indent: number, first: MappingEntry | undefined): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    let entry = first;
    for (;;) {
      if (!entry) {
        const line = this.lineAtIndent(indent);
        if (line === undefined) break;
        const found = this.entryKey(line.slice(indent));
        if (!found) {
          if (/^-(?:[ ]|$)/.test(line.slice(indent))) break; // a sequence at the parent's indent ends this mapping
          bail();
        }
        entry = found as MappingEntry;
        this.at++;
      }
      map[entry.key] = this.entryValue(entry.rest, indent, true);
      entry = undefined;
    }
    return map;
  }

  /**
   * The value of a mapping entry (or sequence item) at INDENT whose text after the indicator is REST. Only a
   * mapping entry's value may be a sequence at the entry's own indent.
   */
  private entryValue(rest: string, indent: number, ofMapping: boolean): unknown {
    const content = rest.slice(0, commentAt(rest)).trimEnd();
    if (content === '' || /^&[^ \t[\]{},]+$/.test(content)) {
      // The value is on the following lines: more indented, or a sequence at this same indent.
      const anchor = content === '' ? undefined : content.slice(1);
      this.skipInsignificant();
      let value: unknown = null;
      if (this.at < this.lines.length) {
        const line = this.line();
        const next = this.indentOf(line);
        if (next > indent) value = this.block(indent + 1);
        else if (ofMapping && next === indent && /^-(?:[ ]|$)/.test(line.slice(next))) value = this.sequence(indent);
      }
      if (anchor !== undefined) this.anchors.set(anchor, value);
      return value;
    }
    const value = this.inline(rest, indent);
    // A plain scalar continued on more indented lines is not followed.
    this.skipInsignificant();
    if (this.at < this.lines.length && this.indentOf(this.lines[this.at] as string) > indent) bail();
    return value;
  }

  /** A block sequence at INDENT. */
  private sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (;;) {
      const line = this.lineAtIndent(indent);
      if (line === undefined) break;
      const body = line.slice(indent);
      if (!/^-(?:[ ]|$)/.test(body)) break;
      this.at++;
      let restAt = 1;
      while (body[restAt] === ' ') restAt++;
      const rest = body.slice(restAt);
      if (/^-(?:[ ]|$)/.test(rest)) bail(); // "- - x": nested compact sequences are not followed
      const entry = rest.startsWith('&') || rest.startsWith('*') ? undefined : this.entryKey(rest);
      if (entry) items.push(this.mapping(indent + restAt, entry));
      else items.push(this.entryValue(rest, indent, false));
    }
    return items;
  }

  /** A value written on the line (TEXT) of a node whose block indent is INDENT. */
  private inline(text: string, indent: number): unknown {
    let t = text;
    let anchor: string | undefined;
    const anchored = /^&([^ \t[\]{},]+)[ ]+/.exec(t);
    if (anchored) {
      anchor = anchored[1];
      t = t.slice(anchored[0].length);
    }
    if (anchor !== undefined && t.startsWith('*')) bail(); // an alias cannot carry an anchor
    const value = this.inlineValue(t, indent);
    if (anchor !== undefined) this.anchors.set(anchor, value);
    return value;
  }

  private inlineValue(t: string, indent: number): unknown {
    const first = t[0];
    if (first === '*') {
      const alias = /^\*([^ \t[\]{},]+)[ ]*(?:#.*)?$/.exec(t);
      return aliased(this.anchors, alias?.[1]);
    }
    if (first === '|') return this.literal(t, indent);
    if (first === '"' || first === "'") {
      const q = readQuoted(t);
      if (t.slice(q.end).trim() !== '' && !/^[ ]+#/.test(t.slice(q.end))) bail();
      return q.value;
    }
    if (first === '[' || first === '{') {
      const flow = new FlowReader(t, this.anchors);
      const value = flow.value();
      flow.end();
      return value;
    }
    const plain = t.slice(0, commentAt(t)).trimEnd();
    if (INDICATOR.test(plain) || /^[?:-](?:[ ]|$)/.test(plain) || /:(?:[ ]|$)/.test(plain)) bail();
    return resolvePlain(plain);
  }

  /** A literal block scalar (`|`, `|-`, `|+`) whose header is T, its lines indented more than INDENT. */
  private literal(t: string, indent: number): string {
    const header = /^\|([-+]?)(?:[ ]+#.*|[ ]*)$/.exec(t);
    if (!header) return bail();
    const chomp = header[1];
    const lines: string[] = [];
    let contentIndent = -1;
    while (this.at < this.lines.length) {
      const line = this.lines[this.at] as string;
      if (line.trim() === '') {
        if (line.includes('\t')) bail();
        lines.push(line);
        this.at++;
        continue;
      }
      const n = this.indentOf(line);
      if (contentIndent < 0) {
        if (n <= indent) break;
        contentIndent = n;
      }
      if (n < contentIndent) break;
      lines.push(line);
      this.at++;
    }
    // Blank lines after the scalar belong to what follows: give them back, keeping them for chomping.
    let last = lines.length;
    while (last > 0 && (lines[last - 1] as string).trim() === '') last--;
    if (contentIndent < 0) return bail(); // an empty block scalar: left to the yaml package
    const body = lines.slice(0, last).map((l) => {
      if (l.trim() === '') {
        if (l.length > contentIndent) bail(); // spaces beyond the indent on a blank line: content the reader does not follow
        return '';
      }
      return l.slice(contentIndent);
    });
    const trailing = lines.length - last;
    for (let i = last; i < lines.length; i++) if ((lines[i] as string).length > contentIndent) bail();
    this.at -= trailing;
    const text = body.join('\n');
    if (chomp === '-') return text;
    if (chomp === '+') return `${text}\n${'\n'.repeat(trailing)}`;
    return `${text}\n`;
  }
}

/** A quoted scalar at the start of T, on one line: its value and the index after its closing quote. */
function readQuoted(t: string): { value: string; end: number } {
  if (t[0] === "'") {
    let value = '';
    for (let i = 1; i < t.length; i++) {
      if (t[i] === "'") {
        if (t[i + 1] === "'") {
          value += "'";
          i++;
          continue;
        }
        return { value, end: i + 1 };
      }
      value += t[i];
    }
    return bail();
  }
  for (let i = 1; i < t.length; i++) {
    if (t[i] === '\\') {
      i++;
      continue;
    }
    if (t[i] === '"') return { value: unescapeDouble(t.slice(1, i)), end: i + 1 };
  }
  return bail();
}

/**
 * The value of the anchor NAME, if it is a scalar. An alias of a list or mapping is left to the yaml package,
 * whose alias count stops documents that grow exponentially when expanded ("billion laughs").
 */
function aliased(anchors: Map<string, unknown>, name: string | undefined): unknown {
  if (name === undefined || !anchors.has(name)) return bail();
  const value = anchors.get(name);
  if (value !== null && typeof value === 'object') return bail();
  return value;
}

/** A one-line flow collection: sequences and mappings of scalars, aliases and flow collections. */
class FlowReader {
  private i = 0;

  constructor(
    private readonly t: string,
    private readonly anchors: Map<string, unknown>,
  ) {}

  private spaces(): void {
    while (this.t[this.i] === ' ') this.i++;
  }

  value(): unknown {
    this.spaces();
    const c = this.t[this.i];
    if (c === '[') return this.sequence();
    if (c === '{') return this.mapping();
    if (c === '"' || c === "'") {
      const q = readQuoted(this.t.slice(this.i));
      this.i += q.end;
      return q.value;
    }
    if (c === '*') {
      const m = /^\*([^ \t[\]{},]+)/.exec(this.t.slice(this.i));
      const value = aliased(this.anchors, m?.[1]);
      this.i += (m as RegExpExecArray)[0].length;
      return value;
    }
    const m = /^[^,[\]{}#]*/.exec(this.t.slice(this.i)) as RegExpExecArray;
    const plain = m[0].trimEnd();
    if (plain === '' || INDICATOR.test(plain) || /^[?:-](?:[ ]|$)/.test(plain) || plain.includes(': ') || plain.endsWith(':')) bail();
    this.i += m[0].length;
    return resolvePlain(plain);
  }

  /** A flow mapping's key: quoted, or plain up to its ': ', read as a string by the core schema. */
  private key(): string {
    this.spaces();
    const c = this.t[this.i];
    if (c === '"' || c === "'") {
      const q = readQuoted(this.t.slice(this.i));
      this.i += q.end;
      return q.value;
    }
    const m = /^[^,[\]{}#:]*/.exec(this.t.slice(this.i)) as RegExpExecArray;
    const plain = m[0].trimEnd();
    if (plain === '' || INDICATOR.test(plain) || /^[?-](?:[ ]|$)/.test(plain) || resolvePlain(plain) !== plain) bail();
    this.i += m[0].length;
    return plain;
  }

  private sequence(): unknown[] {
    this.i++;
    const items: unknown[] = [];
    this.spaces();
    if (this.t[this.i] === ']') {
      this.i++;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.spaces();
      const c = this.t[this.i++];
      if (c === ']') return items;
      if (c !== ',') bail();
      this.spaces();
      if (this.t[this.i] === ']') bail(); // a trailing comma: left to the yaml package
    }
  }

  private mapping(): Record<string, unknown> {
    this.i++;
    const map: Record<string, unknown> = {};
    this.spaces();
    if (this.t[this.i] === '}') {
      this.i++;
      return map;
    }
    for (;;) {
      const key = this.key();
      if (key === '__proto__' || key === '<<') bail();
      this.spaces();
      if (this.t[this.i] !== ':' || this.t[this.i + 1] !== ' ') bail();
      this.i += 2;
      map[key as string] = this.value();
      this.spaces();
      const c = this.t[this.i++];
      if (c === '}') return map;
      if (c !== ',') bail();
      this.spaces();
      if (this.t[this.i] === '}') bail();
    }
  }

  /** Only spaces or a comment may follow the collection on its line. */
  end(): void {
    const rest = this.t.slice(this.i);
    if (rest.trim() !== '' && !/^[ ]+#/.test(rest)) bail();
  }
}
