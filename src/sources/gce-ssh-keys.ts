// GCE's `ssh-keys` metadata lines (`user:key [google-ssh {json}]`): which keys apply, as cloud-init and cloudbase-init
// each decide it.

/** The attribute maps GCE answers for `instance/attributes/` and `project/attributes/` (recursive JSON). */
export type GceAttributes = Record<string, unknown>;

function attr(attrs: GceAttributes, key: string): string | undefined {
  const v = attrs[key];
  return typeof v === 'string' ? v : undefined;
}

/**
 * cloud-init's read_md: instance `sshKeys` and `ssh-keys`, then the project's `ssh-keys` and `sshKeys` unless the
 * instance sets `block-project-ssh-keys: true` or has the legacy `sshKeys` (which always hid the project's).
 */
export function cloudInitKeyLines(instance: GceAttributes, project: GceAttributes): string[] {
  const sources = [attr(instance, 'sshKeys'), attr(instance, 'ssh-keys')];
  const block = (attr(instance, 'block-project-ssh-keys') ?? '').toLowerCase();
  if (block !== 'true' && !attr(instance, 'sshKeys')) sources.push(attr(project, 'ssh-keys'), attr(project, 'sshKeys'));
  return pythonSplitlines(sources.filter((s): s is string => !!s).join('\n'));
}

/** Python's str.splitlines(): every line boundary Python knows, no empty last line for a trailing newline. */
export function pythonSplitlines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * Parses GCE's `expireOn` as cloudbase-init does (strptime '%Y-%m-%dT%H:%M:%S+0000', UTC); undefined when it does not
 * match.
 */
export function parseExpireOn(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})T(\d{1,2}):(\d{1,2}):(\d{1,2})\+0000$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return utcDate(y, mo, d, h, mi, s);
}

/** datetime(y, mo, d, h, mi, s) in UTC, or undefined where datetime refuses it (2024-02-30, 25:00:00, second 60). */
function utcDate(y: number, mo: number, d: number, h: number, mi: number, s: number): Date | undefined {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // not Date.UTC, which reads years 0-99 as 1900-1999
  date.setUTCHours(h, mi, s, 0);
  if (y < 1 || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
    return undefined;
  return date;
}

/**
 * strptime's fields for '%Y-%m-%dT%H:%M:%S%z' (Python 3.13's patterns, matched case-insensitively but for the `Z`):
 * year, month, day (a blank may stand for its leading zero), hour, minute, second, and the UTC offset.
 */
const CLOUD_INIT_EXPIRE_ON =
  /^(\d{4})-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])[Tt](2[0-3]|[01]\d|\d):([0-5]\d|\d):(6[01]|[0-5]\d|\d)(Z|[+-]\d\d:?[0-5]\d(?::?[0-5]\d(?:\.\d{1,6})?)?)$/;

/**
 * Parses GCE's `expireOn` as cloud-init 25.1's _has_expired does (strptime '%Y-%m-%dT%H:%M:%S%z', since 24.4: `Z`,
 * `+HHMM`, `+HH:MM`, with optional seconds and microseconds; 22.4 took `+0000` only); undefined when strptime would
 * raise ValueError (no match, a colon after the hours but not after the minutes or the reverse, an offset of a day or
 * more, a date datetime refuses).
 */
export function parseCloudInitExpireOn(text: string): Date | undefined {
  const m = CLOUD_INIT_EXPIRE_ON.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const date = utcDate(y, mo, d, h, mi, s);
  const offsetMs = utcOffsetMs(m[7] as string);
  if (!date || offsetMs === undefined) return undefined;
  return new Date(date.getTime() - offsetMs);
}

/** strptime's %z value in milliseconds east of UTC, or undefined where it (or datetime.timezone) refuses it. */
function utcOffsetMs(z: string): number | undefined {
  if (z === 'Z') return 0;
  let digits = z;
  if (digits[3] === ':') {
    digits = digits.slice(0, 3) + digits.slice(4);
    if (digits.length > 5) {
      if (digits[5] !== ':') return undefined; // 'Inconsistent use of :'
      digits = digits.slice(0, 5) + digits.slice(6);
    }
  } else if (digits[5] === ':') return undefined; // int(':5') fails
  const seconds =
    Number(digits.slice(1, 3)) * 3600 + Number(digits.slice(3, 5)) * 60 + Number(digits.slice(5, 7) || '0');
  const fraction = Number(`0.${digits.slice(8) || '0'}`);
  const total = (seconds + fraction) * 1000;
  if (total >= 24 * 3600 * 1000) return undefined; // timezone() takes less than a day
  return z.startsWith('-') ? -total : total;
}

/**
 * cloud-init's _has_expired: only a key of exactly four fields whose third is `google-ssh` and whose fourth is
 * JSON with an `expireOn` strptime reads (parseCloudInitExpireOn) can expire; anything else never does.
 */
export function hasExpired(key: string, now: Date): boolean {
  const parts = splitFields(key, 3);
  if (parts.length !== 4 || parts[2] !== 'google-ssh') return false;
  let json: unknown;
  try {
    json = JSON.parse(parts[3] as string);
  } catch {
    return false; // no JSON after google-ssh: no expiry to honour, as cloud-init's _has_expired
  }
  if (!json || typeof json !== 'object' || !('expireOn' in json)) return false;
  const expire = (json as { expireOn: unknown }).expireOn;
  const when = typeof expire === 'string' ? parseCloudInitExpireOn(expire) : undefined;
  return when !== undefined && now.getTime() > when.getTime();
}

/** Python's str.split(None, maxsplit): runs of whitespace separate, leading whitespace ignored, the rest kept whole. */
function splitFields(text: string, maxsplit: number): string[] {
  const out: string[] = [];
  let rest = text.replace(/^\s+/, '');
  while (rest && out.length < maxsplit) {
    const m = /\s+/.exec(rest);
    if (!m) break;
    out.push(rest.slice(0, m.index));
    rest = rest.slice(m.index + m[0].length);
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * cloud-init's _parse_public_keys: ASCII `user:key` lines whose user is `cloudinit` or the default user, and whose
 * key has not expired. The key is kept as written after the colon (with any google-ssh tail).
 */
export function cloudInitPublicKeys(lines: string[], defaultUser: string | undefined, now: Date): string[] {
  const keys: string[] = [];
  for (const line of lines) {
    if (!line || !/^[\x00-\x7f]*$/.test(line)) continue;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const user = line.slice(0, colon);
    const key = line.slice(colon + 1);
    if ((user === 'cloudinit' || (defaultUser !== undefined && user === defaultUser)) && !hasExpired(key, now))
      keys.push(key);
  }
  return keys;
}

/** What cloudbase-init's GCEService made of one line: the key, or why it was skipped (it logs a warning). */
export type CloudbaseKeyVerdict = { key: string } | { skipped: string };

/**
 * cloudbase-init's GCEService._parse_gce_ssh_key: `USER:type key USER` or `USER:type key google-ssh {json}` where both
 * user names equal the configured `username`; google-ssh keys come back as `type key USER` and are dropped once
 * `expireOn` has passed (an unparseable date keeps the key, as there).
 */
export function cloudbaseKey(raw: string, username: string, now: Date): CloudbaseKeyVerdict | undefined {
  const line = raw.trim();
  if (!line) return undefined;
  const colon = line.indexOf(':');
  if (colon < 0) return { skipped: `Skipping invalid SSH key ${line}` };
  const headerUser = line.slice(0, colon);
  let key = line.slice(colon + 1);
  const parts = key.split(' ');
  let metaUser: unknown;
  if (parts.length < 3) return { skipped: `Skipping invalid SSH key ${key}` };
  if (parts.length === 3) metaUser = parts[2];
  else {
    const halves = key.split('google-ssh');
    if (halves.length !== 2 || !halves[1]) return { skipped: `Skipping invalid SSH key ${key}` };
    let meta: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(halves[1].trim());
      if (!parsed || typeof parsed !== 'object') return { skipped: `Skipping invalid SSH key ${key}` };
      meta = parsed as Record<string, unknown>;
    } catch {
      // JSON.parse fails only on text that is not JSON, which the message says
      return { skipped: `Skipping invalid SSH key ${key} (its google-ssh part is not JSON)` };
    }
    metaUser = meta.userName;
    const expireOn = meta.expireOn;
    if (typeof expireOn === 'string' && expireOn) {
      const when = parseExpireOn(expireOn);
      if (when && now.getTime() > when.getTime()) return { skipped: `Skipping expired key: ${key}` };
    }
    key = `${(halves[0] as string).trim()} ${String(metaUser)}`;
  }
  if (!(headerUser === metaUser && metaUser === username))
    return { skipped: `Skipping key due to non matching username: ${key}` };
  return { key };
}
