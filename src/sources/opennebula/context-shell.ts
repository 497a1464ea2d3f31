// OpenNebula's context.sh read as the variables bash would set from it (what cloud-init's parse_shell_config
// learns by running bash), without running a shell: assignments, the quoting forms, comments; anything that would
// run a command is refused.
import { KilnError } from '../../util/errors';

/** context.sh asks for something only a running shell could answer (a command, $(…), an unknown $VAR). */
export class ContextShellError extends KilnError {
  override readonly name = 'ContextShellError';
}

/**
 * Variables cloud-init never reports: the ones bash changes on its own and its own loop variable
 * (parse_shell_config's `excluded`), and IFS, which its script unsets again after the content ran.
 */
const NEVER_REPORTED = new Set([
  'EPOCHREALTIME',
  'EPOCHSECONDS',
  'RANDOM',
  'LINENO',
  'SECONDS',
  '_',
  'SRANDOM',
  '__v',
  'IFS',
]);
/** bash's read-only variables: assigning one stops `bash -e`, and cloud-init then calls the drive broken. */
const READ_ONLY = new Set(['BASHOPTS', 'BASH_VERSINFO', 'EUID', 'PPID', 'SHELLOPTS', 'UID']);
/** Builtins whose arguments are assignments or names and that change nothing else at the top level. */
const DECLARING = new Set(['export', 'readonly', 'declare', 'typeset']);
/** Characters that end an unquoted word (bash's metacharacters). */
const METACHARS = ' \t\n;&|<>()';
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One word of a command: its text after quote removal and expansion, and whether it was an assignment. */
interface Word {
  text: string;
  /** Set when the word is NAME=value / NAME+=value (the name part unquoted, as bash requires). */
  assign?: { name: string; append: boolean; value: string };
  line: number;
}

/**
 * Reads context.sh TEXT; the result holds every variable it set, in the order first set, as cloud-init reports them.
 */
export function parseContextShell(text: string): Record<string, string> {
  return new ContextReader(text).read();
}

class ContextReader {
  private pos = 0;
  private line = 1;
  private readonly vars = new Map<string, string>();

  constructor(private readonly src: string) {}

  read(): Record<string, string> {
    for (;;) {
      const words = this.command();
      if (words === undefined) break;
      this.run(words);
    }
    const out: Record<string, string> = {};
    for (const [k, v] of this.vars) if (!NEVER_REPORTED.has(k)) out[k] = v;
    return out;
  }

  private fail(reason: string, line = this.line): never {
    throw new ContextShellError(`context.sh line ${line}: ${reason}`);
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private next(): string {
    const ch = this.src[this.pos++] as string;
    if (ch === '\n') this.line++;
    return ch;
  }

  /** The words of the next simple command (possibly none); undefined at the end of the text. */
  private command(): Word[] | undefined {
    const words: Word[] = [];
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) return words.length > 0 ? words : undefined;
      if (ch === ' ' || ch === '\t') {
        this.next();
        continue;
      }
      if (ch === '\\' && this.peek(1) === '\n') {
        // A line continuation between words is nothing.
        this.next();
        this.next();
        continue;
      }
      if (ch === '#') {
        while (this.peek() !== undefined && this.peek() !== '\n') this.next();
        continue;
      }
      if (ch === '\n' || ch === ';') {
        this.next();
        if (ch === ';' && this.peek() === ';') this.fail("';;' outside a case statement");
        return words;
      }
      if ('&|<>()'.includes(ch))
        this.fail(
          `'${ch}' (a pipeline, redirection, background job or subshell) would need a running shell; kiln reads variable assignments only`,
        );
      const leading = words.every((w) => w.assign);
      const declaring = words.length > 0 && DECLARING.has((words[0] as Word).text) && !(words[0] as Word).assign;
      const w = this.word(leading || declaring);
      // bash applies leading assignments left to right as it reads them (B=x A=$B gives A=x); a command word
      // after them is refused in run(), so applying them early never leaks a temporary value.
      if (leading && w.assign) this.assign(w);
      words.push(w);
    }
  }

  /** Applies one simple command: assignments, export/readonly/declare of assignments, ':', 'true', unset. */
  private run(words: Word[]): void {
    if (words.length === 0) return;
    const first = words.findIndex((w) => !w.assign);
    if (first < 0) return; // all assignments, applied as they were read
    const cmd = words[first] as Word;
    if (first > 0) this.fail(`'${cmd.text}' is run with temporary variables; kiln does not run commands`, cmd.line);
    const args = words.slice(1);
    if (cmd.text === ':' || cmd.text === 'true') return;
    if (DECLARING.has(cmd.text)) {
      for (const a of args) {
        if (a.assign) this.assign(a);
        else if (!NAME.test(a.text))
          this.fail(`'${cmd.text} ${a.text}': options and non-names are not read by kiln`, a.line);
      }
      return;
    }
    if (cmd.text === 'unset') {
      for (const a of args) {
        if (!NAME.test(a.text)) this.fail(`'unset ${a.text}': options and non-names are not read by kiln`, a.line);
        if (READ_ONLY.has(a.text)) this.fail(`${a.text}: cannot unset a readonly variable`, a.line);
        this.vars.delete(a.text);
      }
      return;
    }
    this.fail(`'${cmd.text}' is a command; kiln reads variable assignments only and runs no shell`, cmd.line);
  }

  private assign(w: Word): void {
    const a = w.assign as NonNullable<Word['assign']>;
    if (READ_ONLY.has(a.name)) this.fail(`${a.name}: readonly variable`, w.line);
    this.vars.set(a.name, a.append ? (this.vars.get(a.name) ?? '') + a.value : a.value);
  }

  /** Reads one word; when MAYASSIGN, a leading NAME= or NAME+= makes it an assignment. */
  private word(mayAssign: boolean): Word {
    const line = this.line;
    let assign: { name: string; append: boolean } | undefined;
    if (mayAssign) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)(\+?)=/.exec(this.src.slice(this.pos, this.pos + 256));
      if (m) {
        assign = { name: m[1] as string, append: m[2] === '+' };
        for (let i = 0; i < m[0].length; i++) this.next();
        if (this.peek() === '(') this.fail(`${assign.name}=(…): arrays are not read by kiln`);
      }
    }
    const parts: string[] = [];
    let started = false;
    for (;;) {
      const ch = this.peek();
      if (ch === undefined || METACHARS.includes(ch)) break;
      started = true;
      this.next();
      if (ch === '\\') {
        const esc = this.peek();
        if (esc === undefined) parts.push('\\');
        else if (esc === '\n') this.next();
        else parts.push(this.next());
      } else if (ch === "'") {
        parts.push(this.singleQuoted());
      } else if (ch === '"') {
        parts.push(this.doubleQuoted());
      } else if (ch === '$') {
        parts.push(this.dollar(false));
      } else if (ch === '`') {
        this.fail('`…` (command substitution) would run a command; kiln runs no shell');
      } else if (ch === '~' && assign && (parts.length === 0 || parts.join('').endsWith(':'))) {
        this.fail(`${assign.name}: '~' (tilde expansion) needs the shell's home directory; quote it`);
      } else {
        parts.push(ch);
      }
    }
    const text = parts.join('');
    if (!started && !assign) this.fail('an empty word');
    if (assign) return { text, assign: { ...assign, value: text }, line };
    return { text, line };
  }

  private singleQuoted(): string {
    const start = this.line;
    const end = this.src.indexOf("'", this.pos);
    if (end < 0) this.fail("unexpected end of file looking for the matching `''", start);
    let s = '';
    while (this.pos < end) s += this.next();
    this.next();
    return s;
  }

  private doubleQuoted(): string {
    const start = this.line;
    let s = '';
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) this.fail('unexpected end of file looking for the matching `"\'', start);
      this.next();
      if (ch === '"') return s;
      if (ch === '\\') {
        const esc = this.peek();
        if (esc === '\n') this.next();
        else if (esc !== undefined && '$`"\\'.includes(esc)) s += this.next();
        else s += '\\';
      } else if (ch === '$') {
        s += this.dollar(true);
      } else if (ch === '`') {
        this.fail('`…` (command substitution) would run a command; kiln runs no shell');
      } else {
        s += ch;
      }
    }
  }

  /** After a '$': $'…', $"…", $NAME, ${NAME}; a lone '$' is itself. */
  private dollar(inDouble: boolean): string {
    const ch = this.peek();
    if (ch === "'" && !inDouble) {
      this.next();
      return this.ansiC();
    }
    if (ch === '"' && !inDouble) {
      this.next();
      return this.doubleQuoted();
    }
    if (ch === '(') this.fail('$(…) (command substitution or arithmetic) would run the shell; kiln runs none');
    if (ch === '{') {
      const close = this.src.indexOf('}', this.pos);
      const inner = close < 0 ? '' : this.src.slice(this.pos + 1, close);
      if (!NAME.test(inner)) this.fail(`\${${inner}…}: only plain \${NAME} expansions are read by kiln`);
      while (this.pos <= close) this.next();
      return this.lookup(inner);
    }
    if (ch !== undefined && /[A-Za-z_]/.test(ch)) {
      let name = '';
      while (/[A-Za-z0-9_]/.test(this.peek() ?? '')) name += this.next();
      return this.lookup(name);
    }
    if (ch !== undefined && /[0-9@*#?$!-]/.test(ch))
      this.fail(`$${ch} is a special parameter of a running shell; kiln runs none`);
    return '$';
  }

  /**
   * A variable context.sh set earlier; any other would be the shell's own or its environment's, which kiln cannot know.
   */
  private lookup(name: string): string {
    const v = this.vars.get(name);
    if (v === undefined)
      this.fail(`$${name} is not set earlier in context.sh; its value would come from the shell kiln does not run`);
    return v;
  }

  /** $'…': bash's ANSI-C escapes; byte escapes (\xHH, \NNN) are gathered as bytes and read as UTF-8 at the end. */
  private ansiC(): string {
    const start = this.line;
    const bytes: number[] = [];
    const pushText = (t: string) => bytes.push(...Buffer.from(t, 'utf8'));
    const SIMPLE: Record<string, number> = {
      a: 7,
      b: 8,
      e: 27,
      E: 27,
      f: 12,
      n: 10,
      r: 13,
      t: 9,
      v: 11,
      '\\': 92,
      "'": 39,
      '"': 34,
      '?': 63,
    };
    for (;;) {
      const ch = this.peek();
      if (ch === undefined) this.fail("unexpected end of file looking for the matching `''", start);
      this.next();
      if (ch === "'") break;
      if (ch !== '\\') {
        pushText(ch);
        continue;
      }
      const e = this.peek();
      if (e === undefined) {
        bytes.push(92);
        continue;
      }
      if (e in SIMPLE) {
        this.next();
        bytes.push(SIMPLE[e] as number);
      } else if (/[0-7]/.test(e)) {
        let digits = '';
        while (digits.length < 3 && /[0-7]/.test(this.peek() ?? '')) digits += this.next();
        bytes.push(parseInt(digits, 8) & 0xff);
      } else if (e === 'x') {
        this.next();
        let digits = '';
        while (digits.length < 2 && /[0-9A-Fa-f]/.test(this.peek() ?? '')) digits += this.next();
        if (digits === '') pushText('\\x');
        else bytes.push(parseInt(digits, 16));
      } else if (e === 'u' || e === 'U') {
        this.next();
        let digits = '';
        while (digits.length < (e === 'u' ? 4 : 8) && /[0-9A-Fa-f]/.test(this.peek() ?? '')) digits += this.next();
        if (digits === '') pushText(`\\${e}`);
        else {
          const cp = parseInt(digits, 16);
          if (cp > 0x10ffff) this.fail(`\\${e}${digits} is past the last Unicode code point`);
          pushText(String.fromCodePoint(cp));
        }
      } else if (e === 'c') {
        this.next();
        const c = this.peek();
        if (c === undefined || c === "'") pushText('\\c');
        else {
          this.next();
          bytes.push(c.charCodeAt(0) & 0x1f);
        }
      } else {
        // An unknown escape keeps its backslash, as bash does.
        bytes.push(92);
      }
    }
    // bash stops a string at a NUL byte it made (\0, \x00): the rest of the $'…' is dropped.
    const nul = bytes.indexOf(0);
    return Buffer.from(nul < 0 ? bytes : bytes.slice(0, nul)).toString('utf8');
  }
}
