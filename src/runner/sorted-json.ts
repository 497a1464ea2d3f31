// JSON as cloud-init writes its state files: keys sorted at every level, one-space indent, a final newline.

/** JSON with keys sorted at every level and one-space indent, as cloud-init's json_dumps writes it. */
export function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.keys(v as Record<string, unknown>).sort().map((k) => [k, sort((v as Record<string, unknown>)[k])]));
  };
  return `${JSON.stringify(sort(value), null, 1)}\n`;
}
