// Reads /etc/os-release (or /usr/lib/os-release) in a target root into its key/value pairs.
import type { Platform } from './platform';

export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let value = m[2] ?? '';
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) {
      value = value.slice(1, -1).replace(/\\(["'$`\\])/g, '$1');
    }
    out[m[1] as string] = value;
  }
  return out;
}

export async function readOsRelease(platform: Platform): Promise<Record<string, string>> {
  const text =
    (await platform.readTextIfExists('/etc/os-release')) ?? (await platform.readTextIfExists('/usr/lib/os-release'));
  return text === undefined ? {} : parseOsRelease(text);
}
