import { isRecord } from './config-shapes';
// cloud-init's "basic" template renderer ($name, ${name}, ${a.b}) and the `{{ name }}` lookups final_message needs.

const BASIC = /\$\{([A-Za-z0-9_.]+)\}|\$([A-Za-z0-9_.]+)/g;

function lookup(params: Record<string, unknown>, dotted: string): unknown {
  let at: unknown = params;
  for (const part of dotted.split('.')) {
    if (!isRecord(at) || !(part in at)) return undefined;
    at = at[part];
  }
  return at;
}

/** Replaces $name and ${name}; unknown names are left as written (cloud-init raises, which its callers log). */
export function renderBasic(text: string, params: Record<string, unknown>): string {
  return text.replace(BASIC, (whole, braced: string | undefined, bare: string | undefined) => {
    const v = lookup(params, (braced ?? bare) as string);
    return v === undefined ? whole : String(v);
  });
}

/** Replaces `{{ name }}` (plain variable lookups only); unknown names render as cloud-init's CI_MISSING_JINJA_VAR/name. */
export function renderJinjaVariables(text: string, params: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g, (_w, name: string) => {
    const v = lookup(params, name);
    return v === undefined ? `CI_MISSING_JINJA_VAR/${name}` : String(v);
  });
}

/** Renders TEXT as cloud-init's templater would: `## template: jinja` first line → jinja, else basic. */
export function renderTemplateString(text: string, params: Record<string, unknown>): string {
  const nl = text.indexOf('\n');
  const first = nl >= 0 ? text.slice(0, nl) : text;
  const m = /^##\s*template:(.*)/i.exec(first);
  if (!m) return renderBasic(text, params);
  const rest = nl >= 0 ? text.slice(nl + 1) : '';
  const kind = (m[1] ?? '').trim().toLowerCase();
  return kind === 'jinja' ? renderJinjaVariables(rest, params) : renderBasic(rest, params);
}
