// The settings useradd and groupadd take from /etc/login.defs ("KEY value") and /etc/default/useradd
// ("KEY=value"), with shadow-utils' own defaults where a key is absent.
import type { Platform } from '../../platform';

export interface AccountDefaults {
  /** login.defs keys, upper case, as written. */
  loginDefs: Map<string, string>;
  /** /etc/default/useradd keys. */
  useradd: Map<string, string>;
}

export function parseLoginDefs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z0-9_]+)\s+(\S.*?)\s*$/.exec(line);
    if (m) out.set(m[1] as string, (m[2] as string).replace(/^"(.*)"$/, '$1'));
  }
  return out;
}

export function parseUseraddDefaults(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z_]+)=(.*?)\s*$/.exec(line);
    if (m) out.set(m[1] as string, (m[2] as string).replace(/^"(.*)"$/, '$1'));
  }
  return out;
}

export async function readAccountDefaults(platform: Pick<Platform, 'readTextIfExists'>): Promise<AccountDefaults> {
  return {
    loginDefs: parseLoginDefs((await platform.readTextIfExists('/etc/login.defs')) ?? ''),
    useradd: parseUseraddDefaults((await platform.readTextIfExists('/etc/default/useradd')) ?? ''),
  };
}

/** A numeric login.defs value (decimal, 0octal or 0xhex as getdef reads them), FALLBACK when absent or not a number. */
export function defNumber(defs: AccountDefaults, key: string, fallback: number): number {
  const raw = defs.loginDefs.get(key);
  if (raw === undefined) return fallback;
  const n = /^0x[0-9a-f]+$/i.test(raw)
    ? Number.parseInt(raw, 16)
    : /^0[0-7]+$/.test(raw)
      ? Number.parseInt(raw, 8)
      : /^-?\d+$/.test(raw)
        ? Number(raw)
        : NaN;
  return Number.isFinite(n) ? n : fallback;
}

/** A yes/no login.defs value. */
export function defBool(defs: AccountDefaults, key: string, fallback: boolean): boolean {
  const raw = defs.loginDefs.get(key);
  return raw === undefined ? fallback : raw.toLowerCase() === 'yes';
}
