// Edits sshd_config as cloud-init's ssh_util does: set options in place, append missing ones, or use sshd_config.d when
// included.
import type { Platform } from '../../platform/platform';

export const SSHD_CONFIG = '/etc/ssh/sshd_config';

interface SshdLine {
  line: string;
  key?: string;
  value?: string;
}

export function parseSshdConfig(text: string): SshdLine[] {
  const out: SshdLine[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) {
      out.push({ line });
      continue;
    }
    let m = /^(\S+)\s+(.*)$/.exec(line);
    if (!m) m = /^([^=]+)=(.*)$/.exec(line);
    if (!m) continue;
    out.push({ line, key: m[1] as string, value: m[2] as string });
  }
  return out;
}

/** Values of the first occurrence of each keyword (lower-cased), as sshd reads them. */
export function sshdConfigMap(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const l of parseSshdConfig(text))
    if (l.key && !map.has(l.key.toLowerCase())) map.set(l.key.toLowerCase(), l.value ?? '');
  return map;
}

/**
 * Applies UPDATES ({Option: value}); returns the options that changed. When sshd_config includes
 * sshd_config.d/*.conf, the changes go to sshd_config.d/50-cloud-init.conf (created 0600) instead.
 */
export async function updateSshdConfig(
  platform: Platform,
  updates: Record<string, string>,
  file = SSHD_CONFIG,
): Promise<string[]> {
  let target = file;
  const main = await platform.readTextIfExists(file);
  if (main?.split('\n').some((l) => l.startsWith(`Include ${file}.d/*.conf`))) {
    target = `${file}.d/50-cloud-init.conf`;
  }
  const text = target === file ? main : await platform.readTextIfExists(target);
  // cloud-init reads the file into lines (dropping the final empty one) and writes them back joined with a newline.
  const lines = text === undefined ? [] : parseSshdConfig(text.endsWith('\n') ? text.slice(0, -1) : text);
  const caseMap = new Map(Object.keys(updates).map((k) => [k.toLowerCase(), k]));
  const found = new Set<string>();
  const changed: string[] = [];
  for (const l of lines) {
    if (!l.key) continue;
    const key = caseMap.get(l.key.toLowerCase());
    if (!key) continue;
    found.add(key);
    const value = updates[key] as string;
    if (l.value !== value) {
      changed.push(key);
      l.value = value;
    }
  }
  for (const [key, value] of Object.entries(updates)) {
    if (found.has(key)) continue;
    changed.push(key);
    lines.push({ line: '', key, value });
  }
  if (changed.length > 0) {
    const body = lines.map((l) => (l.key === undefined ? l.line : l.value ? `${l.key} ${l.value}` : l.key)).join('\n');
    await platform.writeFile(target, `${body}\n`, text === undefined ? { mode: 0o600 } : {});
  }
  return changed;
}
