// JSON as cloud-init writes its state files and prints `query`'s answers (atomic_helper.json_dumps): keys sorted at
// every level, one-space indent, and Python's ensure_ascii, so every character past ASCII is a \uXXXX escape.

/** JSON with keys sorted at every level, one-space indent and non-ASCII escaped, without a final newline. */
export function pythonJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(
      Object.keys(v as Record<string, unknown>)
        .sort()
        .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
    );
  };
  // Non-ASCII only occurs inside strings in JSON text, so escaping the whole text escapes exactly those characters.
  return JSON.stringify(sort(value), null, 1).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** pythonJson with a final newline: the state files' text. */
export function sortedJson(value: unknown): string {
  return `${pythonJson(value)}\n`;
}
