// Parses the jinja subset kiln renders (cloud-init's `## template: jinja` user data) into a tree.
import { TemplateError } from './errors';

export type Expr =
  | { t: 'lit'; v: unknown; line: number }
  | { t: 'name'; name: string; line: number }
  | { t: 'attr'; obj: Expr; name: string; line: number }
  | { t: 'item'; obj: Expr; key: Expr; line: number }
  | { t: 'call'; fn: Expr; args: Expr[]; kwargs: Record<string, Expr>; line: number }
  | { t: 'filter'; value: Expr; name: string; args: Expr[]; kwargs: Record<string, Expr>; line: number }
  | { t: 'test'; value: Expr; name: string; args: Expr[]; negate: boolean; line: number }
  | { t: 'bin'; op: string; a: Expr; b: Expr; line: number }
  | { t: 'not'; a: Expr; line: number }
  | { t: 'neg'; a: Expr; line: number }
  | { t: 'cond'; test: Expr; yes: Expr; no: Expr | null; line: number }
  | { t: 'list'; items: Expr[]; line: number }
  | { t: 'dict'; items: Array<[Expr, Expr]>; line: number };

export type Node =
  | { t: 'text'; text: string }
  | { t: 'out'; expr: Expr; line: number }
  | { t: 'if'; branches: Array<{ test: Expr; body: Node[] }>; orelse: Node[]; line: number }
  | { t: 'for'; targets: string[]; iter: Expr; body: Node[]; orelse: Node[]; filter: Expr | null; line: number }
  | { t: 'set'; targets: string[]; value: Expr; line: number }
  | { t: 'setblock'; target: string; body: Node[]; line: number };

interface Chunk {
  kind: 'text' | 'var' | 'block';
  text: string;
  line: number;
}

/**
 * Splits the source into text, `{{ }}` and `{% %}` chunks; comments dropped; `-` whitespace control and trim_blocks
 * applied.
 */
function lex(src: string): Chunk[] {
  const chunks: Chunk[] = [];
  let i = 0;
  let line = 1;
  let trimNextLeading = false;
  let trimNextNewline = false;
  const pushText = (text: string, startLine: number) => {
    let t = text;
    if (trimNextLeading) t = t.replace(/^\s+/, '');
    else if (trimNextNewline) t = t.replace(/^\r?\n/, '');
    trimNextLeading = false;
    trimNextNewline = false;
    if (t) chunks.push({ kind: 'text', text: t, line: startLine });
  };
  while (i < src.length) {
    const open = src.slice(i).search(/\{[{%#]/);
    if (open < 0) {
      pushText(src.slice(i), line);
      break;
    }
    const start = i + open;
    let text = src.slice(i, start);
    const tagLine = line + countNl(text);
    const kind = src[start + 1] as '{' | '%' | '#';
    const close = kind === '{' ? '}}' : kind === '%' ? '%}' : '#}';
    const end = src.indexOf(close, start + 2);
    if (end < 0) throw new TemplateError(tagLine, `unclosed '${src.slice(start, start + 2)}' (no '${close}' found)`);
    let inner = src.slice(start + 2, end);
    if (inner.startsWith('-')) {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    } else if (inner.startsWith('+')) inner = inner.slice(1);
    let stripAfter = false;
    // `+%}` turns trim_blocks off for this tag: the newline after it stays (Debian 13's deb822 sources template).
    let keepNewline = false;
    if (inner.endsWith('-')) {
      stripAfter = true;
      inner = inner.slice(0, -1);
    } else if (inner.endsWith('+')) {
      keepNewline = true;
      inner = inner.slice(0, -1);
    }
    pushText(text, line);
    if (kind === '%' && inner.trim() === 'raw') {
      // {% raw %}…{% endraw %}: the text between is output as it is.
      const endRe = /\{%([-+]?)\s*endraw\s*([-+]?)%\}/g;
      endRe.lastIndex = end + 2;
      const m = endRe.exec(src);
      if (!m) throw new TemplateError(tagLine, "'raw' opened here is never closed with 'endraw'");
      let rawText = src.slice(end + 2, m.index);
      if (stripAfter) rawText = rawText.replace(/^\s+/, '');
      else rawText = rawText.replace(/^\r?\n/, '');
      if (m[1] === '-') rawText = rawText.replace(/\s+$/, '');
      if (rawText) chunks.push({ kind: 'text', text: rawText, line: tagLine });
      line = tagLine + countNl(src.slice(start, m.index + m[0].length));
      i = m.index + m[0].length;
      trimNextLeading = m[2] === '-';
      trimNextNewline = m[2] !== '-';
      continue;
    }
    if (kind === '{') chunks.push({ kind: 'var', text: inner, line: tagLine });
    else if (kind === '%') chunks.push({ kind: 'block', text: inner, line: tagLine });
    line = tagLine + countNl(src.slice(start, end + 2));
    i = end + 2;
    trimNextLeading = stripAfter;
    // cloud-init renders with trim_blocks: the newline after a block tag (or comment) goes.
    trimNextNewline = !stripAfter && !keepNewline && kind !== '{';
  }
  return chunks;
}

function countNl(s: string): number {
  let n = 0;
  for (const c of s) if (c === '\n') n++;
  return n;
}

type Tok = { k: 'name' | 'num' | 'str' | 'op'; v: string; line: number };

function tokenize(text: string, line: number): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  let ln = line;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '\n') {
      ln++;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = text.slice(i);
    let m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    if (m) {
      toks.push({ k: 'name', v: m[0], line: ln });
      i += m[0].length;
      continue;
    }
    m = /^\d+(\.\d+)?([eE][+-]?\d+)?/.exec(rest);
    if (m) {
      toks.push({ k: 'num', v: m[0], line: ln });
      i += m[0].length;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== c) {
        if (text[j] === '\\' && j + 1 < text.length) {
          const e = text[j + 1] as string;
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else s += text[j++];
      }
      if (j >= text.length) throw new TemplateError(ln, `unterminated string ${text.slice(i, i + 20)}`);
      toks.push({ k: 'str', v: s, line: ln });
      i = j + 1;
      continue;
    }
    m = /^(\/\/|\*\*|==|!=|<=|>=|[-+*/%~<>()[\]{}.,:|=])/.exec(rest);
    if (m) {
      toks.push({ k: 'op', v: m[0], line: ln });
      i += m[0].length;
      continue;
    }
    throw new TemplateError(ln, `unexpected character '${c}'`);
  }
  return toks;
}

/** A recursive-descent parser over one tag's tokens. */
/**
 * How deep expressions and blocks may nest. Python's jinja2 stops at the interpreter's recursion limit (~1000
 * frames, a few per level) with a RecursionError; kiln says so in a TemplateError rather than exhausting the stack.
 */
const MAX_NESTING = 200;

class ExprParser {
  private pos = 0;
  private depth = 0;
  constructor(
    private readonly toks: Tok[],
    private readonly line: number,
  ) {}

  peek(off = 0): Tok | undefined {
    return this.toks[this.pos + off];
  }
  atEnd(): boolean {
    return this.pos >= this.toks.length;
  }
  private next(): Tok {
    const t = this.toks[this.pos++];
    if (!t) throw new TemplateError(this.line, 'unexpected end of expression');
    return t;
  }
  isOp(v: string): boolean {
    const t = this.peek();
    return t !== undefined && t.k === 'op' && t.v === v;
  }
  isName(v: string): boolean {
    const t = this.peek();
    return t !== undefined && t.k === 'name' && t.v === v;
  }
  expectOp(v: string): void {
    const t = this.next();
    if (t.k !== 'op' || t.v !== v) throw new TemplateError(t.line, `expected '${v}', found '${t.v}'`);
  }
  expectName(v?: string): string {
    const t = this.next();
    if (t.k !== 'name' || (v !== undefined && t.v !== v))
      throw new TemplateError(t.line, `expected ${v ? `'${v}'` : 'a name'}, found '${t.v}'`);
    return t.v;
  }
  end(): void {
    const t = this.peek();
    if (t) throw new TemplateError(t.line, `unexpected '${t.v}'`);
  }

  expr(): Expr {
    if (++this.depth > MAX_NESTING)
      throw new TemplateError(this.peek()?.line ?? this.line, `expression nested more than ${MAX_NESTING} levels deep`);
    try {
      return this.cond();
    } finally {
      this.depth--;
    }
  }
  /** An expression without the `x if y else z` form (for `for ... in X if cond`). */
  orExpr(): Expr {
    return this.or();
  }
  private cond(): Expr {
    const yes = this.or();
    if (this.isName('if')) {
      const line = this.next().line;
      const test = this.or();
      let no: Expr | null = null;
      if (this.isName('else')) {
        this.next();
        no = this.cond();
      }
      return { t: 'cond', test, yes, no, line };
    }
    return yes;
  }
  private or(): Expr {
    let a = this.and();
    while (this.isName('or')) {
      const line = this.next().line;
      a = { t: 'bin', op: 'or', a, b: this.and(), line };
    }
    return a;
  }
  private and(): Expr {
    let a = this.not();
    while (this.isName('and')) {
      const line = this.next().line;
      a = { t: 'bin', op: 'and', a, b: this.not(), line };
    }
    return a;
  }
  private not(): Expr {
    if (this.isName('not')) {
      const line = this.next().line;
      return { t: 'not', a: this.not(), line };
    }
    return this.compare();
  }
  private compare(): Expr {
    let a = this.concat();
    for (;;) {
      const t = this.peek();
      if (!t) return a;
      if (t.k === 'op' && ['==', '!=', '<', '>', '<=', '>='].includes(t.v)) {
        this.next();
        a = { t: 'bin', op: t.v, a, b: this.concat(), line: t.line };
      } else if (t.k === 'name' && t.v === 'in') {
        this.next();
        a = { t: 'bin', op: 'in', a, b: this.concat(), line: t.line };
      } else if (t.k === 'name' && t.v === 'not' && this.peek(1)?.v === 'in') {
        this.next();
        this.next();
        a = { t: 'not', a: { t: 'bin', op: 'in', a, b: this.concat(), line: t.line }, line: t.line };
      } else if (t.k === 'name' && t.v === 'is') {
        this.next();
        let negate = false;
        if (this.isName('not')) {
          this.next();
          negate = true;
        }
        const name = this.expectName();
        const args: Expr[] = [];
        if (this.isOp('(')) {
          this.next();
          while (!this.isOp(')')) {
            args.push(this.expr());
            if (!this.isOp(')')) this.expectOp(',');
          }
          this.next();
        } else if (
          this.peek() &&
          !this.isName('and') &&
          !this.isName('or') &&
          !this.isName('else') &&
          !this.isName('if') &&
          !this.isOp(')') &&
          !this.isOp(',') &&
          !this.isOp(']') &&
          !this.isOp('}')
        ) {
          args.push(this.concat());
        }
        a = { t: 'test', value: a, name, args, negate, line: t.line };
      } else return a;
    }
  }
  private concat(): Expr {
    let a = this.add();
    while (this.isOp('~')) {
      const line = this.next().line;
      a = { t: 'bin', op: '~', a, b: this.add(), line };
    }
    return a;
  }
  private add(): Expr {
    let a = this.mul();
    while (this.isOp('+') || this.isOp('-')) {
      const t = this.next();
      a = { t: 'bin', op: t.v, a, b: this.mul(), line: t.line };
    }
    return a;
  }
  private mul(): Expr {
    let a = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('//') || this.isOp('%')) {
      const t = this.next();
      a = { t: 'bin', op: t.v, a, b: this.unary(), line: t.line };
    }
    return a;
  }
  private unary(): Expr {
    if (this.isOp('-')) {
      const line = this.next().line;
      return { t: 'neg', a: this.unary(), line };
    }
    if (this.isOp('+')) this.next();
    return this.filtered();
  }
  private filtered(): Expr {
    let v = this.postfix();
    while (this.isOp('|')) {
      const line = this.next().line;
      const name = this.expectName();
      const { args, kwargs } = this.isOp('(') ? this.callArgs() : { args: [], kwargs: {} };
      v = { t: 'filter', value: v, name, args, kwargs, line };
    }
    return v;
  }
  private callArgs(): { args: Expr[]; kwargs: Record<string, Expr> } {
    this.expectOp('(');
    const args: Expr[] = [];
    const kwargs: Record<string, Expr> = {};
    while (!this.isOp(')')) {
      const t = this.peek();
      if (t?.k === 'name' && this.peek(1)?.k === 'op' && this.peek(1)?.v === '=') {
        this.next();
        this.next();
        kwargs[t.v] = this.expr();
      } else args.push(this.expr());
      if (!this.isOp(')')) this.expectOp(',');
    }
    this.next();
    return { args, kwargs };
  }
  private postfix(): Expr {
    let v = this.primary();
    for (;;) {
      if (this.isOp('.')) {
        const line = this.next().line;
        const t = this.next();
        if (t.k !== 'name' && t.k !== 'num')
          throw new TemplateError(t.line, `expected an attribute name after '.', found '${t.v}'`);
        v =
          t.k === 'num'
            ? { t: 'item', obj: v, key: { t: 'lit', v: Number(t.v), line }, line }
            : { t: 'attr', obj: v, name: t.v, line };
      } else if (this.isOp('[')) {
        const line = this.next().line;
        const key = this.expr();
        this.expectOp(']');
        v = { t: 'item', obj: v, key, line };
      } else if (this.isOp('(')) {
        const line = this.peek()?.line ?? this.line;
        const { args, kwargs } = this.callArgs();
        v = { t: 'call', fn: v, args, kwargs, line };
      } else return v;
    }
  }
  private primary(): Expr {
    const t = this.next();
    const line = t.line;
    if (t.k === 'num') return { t: 'lit', v: Number(t.v), line };
    if (t.k === 'str') {
      let s = t.v;
      while (this.peek()?.k === 'str') s += this.next().v;
      return { t: 'lit', v: s, line };
    }
    if (t.k === 'name') {
      if (t.v === 'true' || t.v === 'True') return { t: 'lit', v: true, line };
      if (t.v === 'false' || t.v === 'False') return { t: 'lit', v: false, line };
      if (t.v === 'none' || t.v === 'None') return { t: 'lit', v: null, line };
      return { t: 'name', name: t.v, line };
    }
    if (t.v === '(') {
      const e = this.expr();
      if (this.isOp(',')) {
        const items = [e];
        while (this.isOp(',')) {
          this.next();
          if (this.isOp(')')) break;
          items.push(this.expr());
        }
        this.expectOp(')');
        return { t: 'list', items, line };
      }
      this.expectOp(')');
      return e;
    }
    if (t.v === '[') {
      const items: Expr[] = [];
      while (!this.isOp(']')) {
        items.push(this.expr());
        if (!this.isOp(']')) this.expectOp(',');
      }
      this.next();
      return { t: 'list', items, line };
    }
    if (t.v === '{') {
      const items: Array<[Expr, Expr]> = [];
      while (!this.isOp('}')) {
        const k = this.expr();
        this.expectOp(':');
        items.push([k, this.expr()]);
        if (!this.isOp('}')) this.expectOp(',');
      }
      this.next();
      return { t: 'dict', items, line };
    }
    throw new TemplateError(line, `unexpected '${t.v}' in expression`);
  }
}

function parseExpr(text: string, line: number): Expr {
  const p = new ExprParser(tokenize(text, line), line);
  if (p.atEnd()) throw new TemplateError(line, 'empty expression');
  const e = p.expr();
  p.end();
  return e;
}

function parseTargets(p: ExprParser): string[] {
  const names = [p.expectName()];
  while (p.isOp(',')) {
    p.expectOp(',');
    names.push(p.expectName());
  }
  return names;
}

/** Parses a template into nodes; a syntax error names its line. */
export function parseTemplate(src: string): Node[] {
  const chunks = lex(src);
  let pos = 0;
  let depth = 0;
  const parseBody = (stops: string[]): { nodes: Node[]; stop: string; stopChunk?: Chunk } => {
    if (++depth > MAX_NESTING)
      throw new TemplateError(chunks[pos - 1]?.line ?? 1, `blocks nested more than ${MAX_NESTING} levels deep`);
    try {
      return parseBlock(stops);
    } finally {
      depth--;
    }
  };
  const parseBlock = (stops: string[]): { nodes: Node[]; stop: string; stopChunk?: Chunk } => {
    const nodes: Node[] = [];
    while (pos < chunks.length) {
      const c = chunks[pos++] as Chunk;
      if (c.kind === 'text') {
        nodes.push({ t: 'text', text: c.text });
        continue;
      }
      if (c.kind === 'var') {
        nodes.push({ t: 'out', expr: parseExpr(c.text, c.line), line: c.line });
        continue;
      }
      const toks = tokenize(c.text, c.line);
      const p = new ExprParser(toks, c.line);
      const kw = p.atEnd() ? '' : p.expectName();
      if (stops.includes(kw)) return { nodes, stop: kw, stopChunk: c };
      if (kw === 'if') {
        const branches: Array<{ test: Expr; body: Node[] }> = [];
        let test = p.expr();
        p.end();
        let orelse: Node[] = [];
        for (;;) {
          const r = parseBody(['elif', 'else', 'endif']);
          branches.push({ test, body: r.nodes });
          if (r.stop === 'elif') {
            const q = new ExprParser(tokenize(r.stopChunk?.text ?? '', r.stopChunk?.line ?? c.line), c.line);
            q.expectName('elif');
            test = q.expr();
            q.end();
            continue;
          }
          if (r.stop === 'else') {
            const e = parseBody(['endif']);
            if (e.stop !== 'endif') throw new TemplateError(c.line, "'if' opened here is never closed with 'endif'");
            orelse = e.nodes;
          } else if (r.stop !== 'endif')
            throw new TemplateError(c.line, "'if' opened here is never closed with 'endif'");
          break;
        }
        nodes.push({ t: 'if', branches, orelse, line: c.line });
      } else if (kw === 'for') {
        const targets = parseTargets(p);
        p.expectName('in');
        const iter = p.orExpr();
        let filter: Expr | null = null;
        if (p.isName('if')) {
          p.expectName('if');
          filter = p.orExpr();
        }
        p.end();
        const r = parseBody(['else', 'endfor']);
        let orelse: Node[] = [];
        if (r.stop === 'else') {
          const e = parseBody(['endfor']);
          if (e.stop !== 'endfor') throw new TemplateError(c.line, "'for' opened here is never closed with 'endfor'");
          orelse = e.nodes;
        } else if (r.stop !== 'endfor')
          throw new TemplateError(c.line, "'for' opened here is never closed with 'endfor'");
        nodes.push({ t: 'for', targets, iter, body: r.nodes, orelse, filter, line: c.line });
      } else if (kw === 'set') {
        const targets = parseTargets(p);
        if (p.atEnd()) {
          if (targets.length !== 1) throw new TemplateError(c.line, 'a set block takes one name');
          const r = parseBody(['endset']);
          if (r.stop !== 'endset')
            throw new TemplateError(c.line, "'set' block opened here is never closed with 'endset'");
          nodes.push({ t: 'setblock', target: targets[0] as string, body: r.nodes, line: c.line });
        } else {
          p.expectOp('=');
          const value = p.expr();
          p.end();
          nodes.push({ t: 'set', targets, value, line: c.line });
        }
      } else if (kw === 'do') {
        const value = p.expr();
        p.end();
        nodes.push({ t: 'set', targets: [], value, line: c.line });
      } else if (['elif', 'else', 'endif', 'endfor', 'endset'].includes(kw)) {
        throw new TemplateError(c.line, `unexpected '${kw}' (no matching opening tag)`);
      } else {
        throw new TemplateError(
          c.line,
          `unknown tag '${kw || c.text.trim()}' (kiln renders if/elif/else, for, set, do)`,
        );
      }
    }
    return { nodes, stop: '' };
  };
  const r = parseBody([]);
  return r.nodes;
}
