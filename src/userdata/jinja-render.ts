// Renders a parsed jinja template against a context: an undefined name prints as cloud-init's marker, type errors name
// the line.
import { TemplateError } from './errors';
import { FILTERS, TESTS, toStr, truthy } from './jinja-filters';
import { parseTemplate, type Expr, type Node } from './jinja-parse';
import { describeError } from '../util/errors';

/** What cloud-init's jinja writes in place of an undefined variable, followed by the variable's last name. */
export const MISSING_JINJA_PREFIX = 'CI_MISSING_JINJA_VAR/';

/**
 * A name or key the context does not hold. Printed, it is cloud-init's marker `CI_MISSING_JINJA_VAR/<name>` (its
 * UndefinedJinjaVariable); any other use (an attribute of it, a filter, a loop) is an error naming the line;
 * `is defined` and `default` see it.
 */
export class Undefined {
  constructor(
    readonly path: string,
    /** The last name of the path (an attribute or key), as jinja's undefined keeps it. */
    readonly name: string = path,
  ) {}
}

/**
 * cloud-init's warning (render_jinja_payload's) about the names RENDERED, the rendering of the template read from
 * PAYLOAD_NAME, left undefined, quoted in the order they occur; undefined when every name was defined.
 */
export function missingJinjaWarning(payloadName: string, rendered: string): string | undefined {
  const missing = [...rendered.matchAll(/CI_MISSING_JINJA_VAR\/(\S+)/g)].map((m) => `'${m[1] as string}'`);
  return missing.length
    ? `Could not render jinja template variables in file '${payloadName}': ${missing.join(', ')}`
    : undefined;
}

type Scope = Map<string, unknown>;

class Frame {
  constructor(
    private readonly vars: Scope,
    private readonly parent?: Frame,
  ) {}
  get(name: string): unknown {
    if (this.vars.has(name)) return this.vars.get(name);
    return this.parent ? this.parent.get(name) : new Undefined(name);
  }
  set(name: string, v: unknown): void {
    this.vars.set(name, v);
  }
  child(): Frame {
    return new Frame(new Map(), this);
  }
}

const GLOBALS: Record<string, (...a: unknown[]) => unknown> = {
  range: (a, b, c) => {
    const [start, stop, step] =
      b === undefined ? [0, Number(a), 1] : [Number(a), Number(b), c === undefined ? 1 : Number(c)];
    if (step === 0) throw new Error('range() step must not be zero');
    const out: number[] = [];
    for (let i = start; step > 0 ? i < stop : i > stop; i += step) {
      out.push(i);
      if (out.length > 1_000_000) throw new Error('range() too long');
    }
    return out;
  },
  dict: (...a) => Object.assign({}, ...a.filter((x) => x && typeof x === 'object')),
};

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Undefined);
}

/** Methods on strings, lists and dicts that templates call in practice. */
function method(obj: unknown, name: string): ((...a: unknown[]) => unknown) | undefined {
  if (typeof obj === 'string') {
    const s = obj;
    const m: Record<string, (...a: unknown[]) => unknown> = {
      upper: () => s.toUpperCase(),
      lower: () => s.toLowerCase(),
      strip: (c) => (c === undefined ? s.trim() : trimChars(s, String(c), true, true)),
      lstrip: (c) => (c === undefined ? s.trimStart() : trimChars(s, String(c), true, false)),
      rstrip: (c) => (c === undefined ? s.trimEnd() : trimChars(s, String(c), false, true)),
      split: (sep, max) =>
        pySplit(s, sep === undefined || sep === null ? undefined : String(sep), max === undefined ? -1 : Number(max)),
      startswith: (p) => s.startsWith(String(p)),
      endswith: (p) => s.endsWith(String(p)),
      replace: (a, b) => s.split(String(a)).join(String(b)),
      join: (items) => (Array.isArray(items) ? items.map((x) => toStr(x)).join(s) : ''),
      format: (...a) => {
        let i = 0;
        return s.replace(/\{\}/g, () => toStr(a[i++]));
      },
      capitalize: () => s.charAt(0).toUpperCase() + s.slice(1).toLowerCase(),
      title: () => s.replace(/\w\S*/g, (w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()),
      count: (x) => s.split(String(x)).length - 1,
      find: (x) => s.indexOf(String(x)),
      isdigit: () => /^\d+$/.test(s),
    };
    return m[name];
  }
  if (Array.isArray(obj)) {
    const l = obj;
    const m: Record<string, (...a: unknown[]) => unknown> = {
      append: (x) => {
        l.push(x);
        return null;
      },
      extend: (x) => {
        if (Array.isArray(x)) l.push(...x);
        return null;
      },
      index: (x) => l.indexOf(x),
      count: (x) => l.filter((y) => y === x).length,
    };
    return m[name];
  }
  if (isPlainObject(obj)) {
    const d = obj;
    const m: Record<string, (...a: unknown[]) => unknown> = {
      items: () => Object.entries(d),
      keys: () => Object.keys(d),
      values: () => Object.values(d),
      get: (k, dflt) => (Object.hasOwn(d, String(k)) ? d[String(k)] : (dflt ?? null)),
      update: (o) => {
        if (isPlainObject(o)) Object.assign(d, o);
        return null;
      },
    };
    if (Object.hasOwn(d, name)) return undefined;
    return m[name];
  }
  return undefined;
}

function trimChars(s: string, chars: string, left: boolean, right: boolean): string {
  let a = 0;
  let b = s.length;
  while (left && a < b && chars.includes(s[a] as string)) a++;
  while (right && b > a && chars.includes(s[b - 1] as string)) b--;
  return s.slice(a, b);
}

function pySplit(s: string, sep: string | undefined, max: number): string[] {
  if (sep === undefined) {
    const parts = s.trim().split(/\s+/).filter(Boolean);
    if (max < 0 || parts.length <= max + 1) return parts;
    const head = parts.slice(0, max);
    let rest = s.trim();
    for (const h of head) rest = rest.slice(rest.indexOf(h) + h.length).replace(/^\s+/, '');
    return [...head, rest];
  }
  const parts = s.split(sep);
  if (max < 0 || parts.length <= max + 1) return parts;
  return [...parts.slice(0, max), parts.slice(max).join(sep)];
}

function describe(e: Expr): string {
  switch (e.t) {
    case 'name':
      return e.name;
    case 'attr':
      return `${describe(e.obj)}.${e.name}`;
    case 'item':
      return `${describe(e.obj)}[${e.key.t === 'lit' ? JSON.stringify(e.key.v) : '…'}]`;
    default:
      return 'value';
  }
}

class Renderer {
  private steps = 0;
  constructor(private readonly maxSteps = 5_000_000) {}

  render(nodes: Node[], frame: Frame, out: string[]): void {
    for (const n of nodes) {
      if (++this.steps > this.maxSteps)
        throw new TemplateError(('line' in n ? n.line : 0) as number, 'template runs too long (loop limit reached)');
      switch (n.t) {
        case 'text':
          out.push(n.text);
          break;
        case 'out': {
          const v = this.eval(n.expr, frame);
          out.push(v instanceof Undefined ? `${MISSING_JINJA_PREFIX}${v.name}` : toStr(v));
          break;
        }
        case 'if': {
          let done = false;
          for (const b of n.branches) {
            if (this.truth(this.eval(b.test, frame))) {
              this.render(b.body, frame, out);
              done = true;
              break;
            }
          }
          if (!done) this.render(n.orelse, frame, out);
          break;
        }
        case 'for': {
          const it = this.eval(n.iter, frame);
          if (it instanceof Undefined)
            throw new TemplateError(n.line, `'${it.path}' is undefined (cannot loop over it)`);
          let items: unknown[];
          if (Array.isArray(it)) items = it;
          else if (typeof it === 'string') items = [...it];
          else if (isPlainObject(it)) items = Object.keys(it);
          else throw new TemplateError(n.line, `cannot loop over ${it === null ? 'none' : typeof it}`);
          const inner = frame.child();
          if (n.filter) {
            const f = n.filter;
            items = items.filter((x) => {
              this.bind(inner, n.targets, x, n.line);
              return this.truth(this.eval(f, inner));
            });
          }
          if (items.length === 0) {
            this.render(n.orelse, frame, out);
            break;
          }
          items.forEach((x, i) => {
            this.bind(inner, n.targets, x, n.line);
            inner.set('loop', {
              index: i + 1,
              index0: i,
              revindex: items.length - i,
              revindex0: items.length - i - 1,
              first: i === 0,
              last: i === items.length - 1,
              length: items.length,
              previtem: i > 0 ? items[i - 1] : new Undefined('loop.previtem', 'previtem'),
              nextitem: i < items.length - 1 ? items[i + 1] : new Undefined('loop.nextitem', 'nextitem'),
            });
            this.render(n.body, inner, out);
          });
          break;
        }
        case 'set': {
          const v = this.eval(n.value, frame);
          if (n.targets.length > 0) this.bind(frame, n.targets, v, n.line);
          break;
        }
        case 'setblock': {
          const buf: string[] = [];
          this.render(n.body, frame.child(), buf);
          frame.set(n.target, buf.join(''));
          break;
        }
      }
    }
  }

  private bind(frame: Frame, targets: string[], v: unknown, line: number): void {
    if (targets.length === 1) {
      frame.set(targets[0] as string, v);
      return;
    }
    const arr = Array.isArray(v) ? v : typeof v === 'string' ? [...v] : null;
    if (!arr || arr.length !== targets.length)
      throw new TemplateError(line, `cannot unpack into ${targets.length} names`);
    for (const [i, t] of targets.entries()) frame.set(t, arr[i]);
  }

  private truth(v: unknown): boolean {
    return v instanceof Undefined ? false : truthy(v);
  }

  private need(v: unknown, e: Expr): unknown {
    if (v instanceof Undefined) throw new TemplateError(e.line, `'${v.path}' is undefined`);
    return v;
  }

  eval(e: Expr, frame: Frame): unknown {
    switch (e.t) {
      case 'lit':
        return e.v;
      case 'name': {
        const v = frame.get(e.name);
        if (v instanceof Undefined && Object.hasOwn(GLOBALS, e.name)) return GLOBALS[e.name];
        return v;
      }
      case 'attr':
      case 'item': {
        const obj = this.eval(e.obj, frame);
        if (obj instanceof Undefined) throw new TemplateError(e.line, `'${obj.path}' is undefined`);
        const key = e.t === 'attr' ? e.name : this.need(this.eval(e.key, frame), e.key);
        const path = `${describe(e.obj)}${e.t === 'attr' ? `.${e.name}` : `[${JSON.stringify(key)}]`}`;
        if (Array.isArray(obj) || typeof obj === 'string') {
          if (typeof key === 'number') {
            const i = key < 0 ? obj.length + key : key;
            return i >= 0 && i < obj.length ? obj[i] : new Undefined(path, String(key));
          }
          if (e.t === 'attr') {
            const m = method(obj, e.name);
            if (m) return m;
            if (e.name === 'length') return obj.length;
          }
          return new Undefined(path, String(key));
        }
        if (isPlainObject(obj)) {
          const k = String(key);
          if (Object.hasOwn(obj, k)) return obj[k];
          if (e.t === 'attr') {
            const m = method(obj, e.name);
            if (m) return m;
          }
          return new Undefined(path, k);
        }
        if (obj === null || obj === undefined)
          throw new TemplateError(e.line, `'${describe(e.obj)}' is none, it has no '${String(key)}'`);
        return new Undefined(path, String(key));
      }
      case 'call': {
        const fn = this.eval(e.fn, frame);
        if (typeof fn !== 'function') throw new TemplateError(e.line, `'${describe(e.fn)}' is not callable`);
        const args = e.args.map((a) => this.need(this.eval(a, frame), a));
        const kw = Object.entries(e.kwargs).map(([, a]) => this.need(this.eval(a, frame), a));
        try {
          return (fn as (...a: unknown[]) => unknown)(...args, ...kw);
        } catch (err) {
          throw new TemplateError(e.line, describeError(err));
        }
      }
      case 'filter': {
        const f = FILTERS[e.name];
        if (!f) throw new TemplateError(e.line, `unknown filter '${e.name}'`);
        const v = this.eval(e.value, frame);
        if (v instanceof Undefined && e.name !== 'default' && e.name !== 'd')
          throw new TemplateError(e.line, `'${v.path}' is undefined`);
        // default's fallback may itself be undefined (`x | default(y, true) | default('z', true)`): Jinja passes the
        // undefined on, for the next default to replace, as Debian's deb822 sources template relies on.
        const isDefault = e.name === 'default' || e.name === 'd';
        const args = e.args.map((a) => (isDefault ? this.eval(a, frame) : this.need(this.eval(a, frame), a)));
        const kwargs: Record<string, unknown> = {};
        for (const [k, a] of Object.entries(e.kwargs)) kwargs[k] = this.need(this.eval(a, frame), a);
        try {
          return f(v instanceof Undefined ? undefined : v, args, kwargs);
        } catch (err) {
          throw new TemplateError(e.line, `filter '${e.name}': ${describeError(err)}`);
        }
      }
      case 'test': {
        const v = this.eval(e.value, frame);
        let r: boolean;
        if (e.name === 'defined') r = !(v instanceof Undefined);
        else if (e.name === 'undefined') r = v instanceof Undefined;
        else {
          const tf = TESTS[e.name];
          if (!tf) throw new TemplateError(e.line, `unknown test '${e.name}'`);
          this.need(v, e.value);
          r = tf(
            v,
            e.args.map((a) => this.need(this.eval(a, frame), a)),
          );
        }
        return e.negate ? !r : r;
      }
      case 'not':
        return !this.truth(this.eval(e.a, frame));
      case 'neg': {
        const v = this.need(this.eval(e.a, frame), e.a);
        if (typeof v !== 'number') throw new TemplateError(e.line, `cannot negate ${typeof v}`);
        return -v;
      }
      case 'cond':
        return this.truth(this.eval(e.test, frame)) ? this.eval(e.yes, frame) : e.no ? this.eval(e.no, frame) : '';
      case 'list':
        return e.items.map((x) => this.need(this.eval(x, frame), x));
      case 'dict': {
        const o: Record<string, unknown> = {};
        for (const [k, v] of e.items) o[String(this.need(this.eval(k, frame), k))] = this.need(this.eval(v, frame), v);
        return o;
      }
      case 'bin':
        return this.binary(e, frame);
    }
  }

  private binary(e: Extract<Expr, { t: 'bin' }>, frame: Frame): unknown {
    if (e.op === 'and') {
      const a = this.eval(e.a, frame);
      return this.truth(a) ? this.eval(e.b, frame) : a;
    }
    if (e.op === 'or') {
      const a = this.eval(e.a, frame);
      return this.truth(a) ? a : this.eval(e.b, frame);
    }
    const a = this.need(this.eval(e.a, frame), e.a);
    const b = this.need(this.eval(e.b, frame), e.b);
    switch (e.op) {
      case '~':
        return toStr(a) + toStr(b);
      case '==':
        return deepEqual(a, b);
      case '!=':
        return !deepEqual(a, b);
      case 'in':
        if (typeof b === 'string') return b.includes(toStr(a));
        if (Array.isArray(b)) return b.some((x) => deepEqual(x, a));
        if (isPlainObject(b)) return Object.hasOwn(b, String(a));
        throw new TemplateError(
          e.line,
          `'in' needs a string, list or mapping on the right, not ${b === null ? 'none' : typeof b}`,
        );
    }
    if (e.op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
    if (e.op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
    if (e.op === '*' && typeof a === 'string' && typeof b === 'number') return a.repeat(Math.max(0, b));
    if (typeof a === 'string' && typeof b === 'string' && ['<', '>', '<=', '>='].includes(e.op)) {
      return e.op === '<' ? a < b : e.op === '>' ? a > b : e.op === '<=' ? a <= b : a >= b;
    }
    if (typeof a !== 'number' || typeof b !== 'number') {
      throw new TemplateError(e.line, `unsupported operand types for ${e.op}: ${typeName(a)} and ${typeName(b)}`);
    }
    switch (e.op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        if (b === 0) throw new TemplateError(e.line, 'division by zero');
        return a / b;
      case '//':
        if (b === 0) throw new TemplateError(e.line, 'division by zero');
        return Math.floor(a / b);
      case '%':
        if (b === 0) throw new TemplateError(e.line, 'modulo by zero');
        return ((a % b) + b) % b;
      case '<':
        return a < b;
      case '>':
        return a > b;
      case '<=':
        return a <= b;
      case '>=':
        return a >= b;
    }
    throw new TemplateError(e.line, `unknown operator ${e.op}`);
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'none';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'object') return 'dict';
  return typeof v === 'number' ? (Number.isInteger(v) ? 'int' : 'float') : typeof v === 'string' ? 'str' : typeof v;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Renders SOURCE with CONTEXT as jinja would with cloud-init's settings (trim_blocks, no trailing newline
 * kept). Throws TemplateError naming the line for syntax errors and undefined names.
 */
export function renderJinja(source: string, context: Record<string, unknown>): string {
  // keep_trailing_newline=False drops the source's last newline before parsing, not the output's: after a
  // closing `{% endif %}` trim_blocks already ate it, and the line before keeps its own.
  const nodes = parseTemplate(source.replace(/\r?\n$/, ''));
  const out: string[] = [];
  new Renderer().render(nodes, new Frame(new Map(Object.entries(context))), out);
  return out.join('');
}
