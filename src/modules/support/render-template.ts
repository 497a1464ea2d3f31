// Renders cloud-init's file templates: '## template:jinja' (the subset host/config templates use) or basic $var substitution.
import { ModuleError } from '../module';

export type TemplateParams = Record<string, unknown>;

function lookup(params: TemplateParams, path: string): unknown {
  let cur: unknown = params;
  for (const key of path.split('.')) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function show(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null) return 'None';
  return String(v);
}

/** basic_render: $name, ${name} and dotted paths; unknown names are left as they are. */
export function renderBasic(text: string, params: TemplateParams): string {
  return text.replace(/\$(?:\{([A-Za-z0-9_.]+)\}|([A-Za-z0-9_.]+))/g, (whole, a: string | undefined, b: string | undefined) => {
    const v = lookup(params, (a ?? b) as string);
    return v === undefined ? whole : show(v);
  });
}

/**
 * The jinja subset of cloud-init's shipped templates: {# comments #} and {{ variables }} with '-' whitespace control,
 * trim_blocks, the trailing newline kept. Statements ({% … %}) are refused with a clear error naming the template.
 */
export function renderJinjaSubset(text: string, params: TemplateParams, name: string): string {
  const keepNewline = text.endsWith('\n');
  let out = '';
  let i = 0;
  const tag = /\{([#{%])(-?)/g;
  while (i < text.length) {
    tag.lastIndex = i;
    const m = tag.exec(text);
    if (!m) {
      out += text.slice(i);
      break;
    }
    let before = text.slice(i, m.index);
    if (m[2] === '-') before = before.replace(/\s+$/, '');
    out += before;
    const kind = m[1] as string;
    const close = kind === '#' ? '#}' : kind === '{' ? '}}' : '%}';
    const end = text.indexOf(close, m.index + 2);
    if (end < 0) throw new ModuleError('templates', `${name}: unclosed '{${kind}' tag`);
    const trimAfter = text[end - 1] === '-';
    const inner = text.slice(m.index + 2 + (m[2] ?? '').length, trimAfter ? end - 1 : end).trim();
    if (kind === '%') throw new ModuleError('templates', `${name}: jinja statements ('{% ${inner} %}') are not supported in file templates`);
    if (kind === '{') {
      if (!/^[A-Za-z_][A-Za-z0-9_.]*$/.test(inner)) throw new ModuleError('templates', `${name}: only plain variables are supported in '{{ }}', got '${inner}'`);
      out += show(lookup(params, inner));
    }
    i = end + 2;
    if (trimAfter) {
      while (i < text.length && /\s/.test(text[i] as string)) i++;
    } else if (kind === '#' && text[i] === '\n') i++; // trim_blocks
  }
  if (keepNewline && !out.endsWith('\n')) out += '\n';
  return out;
}

/** detect_template + render: the first line '## template:jinja' or '## template:basic' picks the renderer. */
export function renderTemplate(text: string, params: TemplateParams, name: string): string {
  const nl = text.indexOf('\n');
  const ident = nl < 0 ? text : text.slice(0, nl);
  const rest = nl < 0 ? '' : text.slice(nl + 1);
  const m = /^##\s*template:(.*)$/i.exec(ident);
  if (!m) return renderBasic(text, params);
  const type = (m[1] as string).trim().toLowerCase();
  if (type === 'jinja') return renderJinjaSubset(rest, params, name);
  if (type === 'basic') return renderBasic(rest, params);
  throw new ModuleError('templates', `${name}: unknown template type '${type}'`);
}
