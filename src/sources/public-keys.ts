// cloud-init's normalize_pubkey_data: the SSH keys in a metadata value that may be a string, a list or a dict of lists.

/**
 * A string is one key a line; a list is taken as it is (strings only); a dict contributes every non-empty key of its
 * values.
 */
export function normalizePublicKeys(value: unknown): string[] {
  if (!value) return [];
  if (typeof value === 'string') return value.split(/\r?\n/).filter((k) => k !== '');
  if (Array.isArray(value)) return value.filter((k): k is string => typeof k === 'string' && k !== '');
  if (typeof value === 'object') {
    const keys: string[] = [];
    for (const v of Object.values(value as Record<string, unknown>)) {
      for (const k of typeof v === 'string' ? [v] : Array.isArray(v) ? v : [])
        if (typeof k === 'string' && k) keys.push(k);
    }
    return keys;
  }
  return [];
}
