// cloud-init's util.mergemanydict for two mappings, as the sources that merge meta-data use it.

/** A mapping (not a list or null). */
function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** util.mergemanydict([A, B]) with the default mergers: A's values win, B adds what A lacks, mappings merged deeply. */
export function mergeMissing(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const mine = out[k];
    if (!(k in out)) out[k] = v;
    else if (isMapping(mine) && isMapping(v)) out[k] = mergeMissing(mine, v);
  }
  return out;
}
