// Python's type name of a value parsed from YAML or JSON (type(v).__name__, type_utils.obj_name), as cloud-init's
// messages print it: 'found a 'NoneType'', 'Expected dict type but found: list' …

export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof Date) return 'datetime';
  return typeof v === 'object' ? 'dict' : typeof v;
}
