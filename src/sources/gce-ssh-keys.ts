// GCE's `ssh-keys` metadata lines (`user:key [google-ssh {json}]`): which keys apply, as cloud-init and cloudbase-init each decide it.

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

/** Parses GCE's `expireOn` as cloud-init does (strptime '%Y-%m-%dT%H:%M:%S+0000', UTC); undefined when it does not match. */
export function parseExpireOn(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})T(\d{1,2}):(\d{1,2}):(\d{1,2})\+0000$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  // strptime refuses 2024-02-30 or 25:00:00; Date would roll them over.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 61) return undefined;
  return date;
}

/**
 * cloud-init's _has_expired: only a key of exactly four fields whose third is `google-ssh` and whose fourth is
 * JSON with a well-formed `expireOn` can expire; anything else never does.
 */
export function hasExpired(key: string, now: Date): boolean {
  const parts = splitFields(key, 3);
  if (parts.length !== 4 || parts[2] !== 'google-ssh') return false;
  let json: unknown;
  try {
    json = JSON.parse(parts[3] as string);
  } catch {
    return false;
  }
  if (!json || typeof json !== 'object' || !('expireOn' in json)) return false;
  const expire = (json as { expireOn: unknown }).expireOn;
  const when = typeof expire === 'string' ? parseExpireOn(expire) : undefined;
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
    if ((user === 'cloudinit' || (defaultUser !== undefined && user === defaultUser)) && !hasExpired(key, now)) keys.push(key);
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
  if (!(headerUser === metaUser && metaUser === username)) return { skipped: `Skipping key due to non matching username: ${key}` };
  return { key };
}
