// Python's str() of a value parsed from YAML or JSON, as cloud-init writes config values into files, command lines
// and messages: True and False, None for a missing or null value, and everything else as JavaScript prints it.

export function pyStr(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}
