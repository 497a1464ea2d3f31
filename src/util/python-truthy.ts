// Python's truthiness of a value parsed from YAML or JSON (`if value:` in cloud-init, Jinja's `{% if %}`): False,
// None, 0, '' and empty lists and mappings are false; everything else is true.

export function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object' && v !== null) return Object.keys(v).length > 0;
  return Boolean(v);
}
