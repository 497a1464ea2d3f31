// cloud-init's "basic" template renderer: $name, ${name} and ${a.b} replaced from a parameter tree.
import { isRecord } from './config-shapes';

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
