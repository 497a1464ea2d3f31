// Python's json.dumps with its defaults (key order kept, ', ' and ': ' separators, ensure_ascii): files cloud-init
// writes as JSON.

/** JSON text of V exactly as Python's json.dumps(V) writes it. */
export function pythonJsonDumps(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string')
    return JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (typeof v === 'number')
    return Number.isInteger(v) ? String(v) : String(v).includes('.') || String(v).includes('e') ? String(v) : `${v}.0`;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return `[${v.map(pythonJsonDumps).join(', ')}]`;
  if (v instanceof Date) return pythonJsonDumps(v.toISOString());
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pythonJsonDumps(k)}: ${pythonJsonDumps(x)}`)
    .join(', ')}}`;
}
