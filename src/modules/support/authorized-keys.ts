// Parses and updates authorized_keys files as cloud-init's ssh_util does (setup_user_keys), with cloud-init's modes and
// owners.
import { posix } from 'node:path';
import type { Platform } from '../../platform/platform';
import { lookupUser } from './passwd-entries';
import { SSHD_CONFIG, sshdConfigMap } from './sshd-config';

/** ssh_util.VALID_KEY_TYPES as 25.1 has it (24.1 dropped dsa, ssh-dss and its certificate). */
export const VALID_KEY_TYPES: ReadonlySet<string> = new Set([
  'rsa',
  'ecdsa',
  'ed25519',
  'ecdsa-sha2-nistp256-cert-v01@openssh.com',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384-cert-v01@openssh.com',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521-cert-v01@openssh.com',
  'ecdsa-sha2-nistp521',
  'sk-ecdsa-sha2-nistp256-cert-v01@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'sk-ssh-ed25519-cert-v01@openssh.com',
  'sk-ssh-ed25519@openssh.com',
  'ssh-ed25519-cert-v01@openssh.com',
  'ssh-ed25519',
  'ssh-rsa-cert-v01@openssh.com',
  'ssh-rsa',
  'ssh-xmss-cert-v01@openssh.com',
  'ssh-xmss@openssh.com',
]);

/** The options login is refused with for root when disable_root is set ($USER and $DISABLE_USER are filled in). */
export const DISABLE_USER_OPTS =
  'no-port-forwarding,no-agent-forwarding,no-X11-forwarding,command="echo \'Please login as the user \\"$USER\\" rather than the user \\"$DISABLE_USER\\".\';echo;sleep 10;exit 142"';

export interface AuthKeyLine {
  source: string;
  keytype?: string;
  base64?: string;
  comment?: string;
  options?: string;
}

export function renderAuthKeyLine(k: AuthKeyLine): string {
  const toks = [k.options, k.keytype, k.base64, k.comment].filter((t): t is string => !!t);
  return toks.length === 0 ? k.source : toks.join(' ');
}

/** Splits a leading options field (commas, no spaces except inside double quotes) from the rest. */
function extractOptions(ent: string): [string, string] {
  let quoted = false;
  let i = 0;
  while (i < ent.length && (quoted || (ent[i] !== ' ' && ent[i] !== '\t'))) {
    const c = ent[i];
    if (i + 1 >= ent.length) {
      i += 1;
      break;
    }
    if (c === '\\' && ent[i + 1] === '"') i += 1;
    else if (c === '"') quoted = !quoted;
    i += 1;
  }
  return [ent.slice(0, i), ent.slice(i).trimStart()];
}

function splitKey(ent: string): [string, string, string] | undefined {
  const m = /^(\S+)\s+(\S+)(?:\s+([\s\S]*))?$/.exec(ent);
  if (!m || !VALID_KEY_TYPES.has(m[1] as string)) return undefined;
  return [m[1] as string, m[2] as string, m[3] ?? ''];
}

/** AuthKeyLineParser.parse: OPTIONS, when given, replace the key's own options. */
export function parseAuthKeyLine(src: string, options?: string): AuthKeyLine {
  const line = src.replace(/[\r\n]+$/, '');
  if (line.startsWith('#') || line.trim() === '') return { source: src };
  const ent = line.trim();
  let parts = splitKey(ent);
  let opts = options;
  if (!parts) {
    const [keyopts, remain] = extractOptions(ent);
    if (opts === undefined) opts = keyopts;
    parts = splitKey(remain);
    if (!parts) return { source: src };
  }
  return { source: src, keytype: parts[0], base64: parts[1], comment: parts[2], ...(opts ? { options: opts } : {}) };
}

const valid = (k: AuthKeyLine) => !!(k.base64 && k.keytype);

/** update_authorized_keys: keys with a base64 already present replace that line; the rest are appended. */
export function updateAuthorizedKeys(old: AuthKeyLine[], keys: AuthKeyLine[]): string {
  const toAdd = keys.filter(valid);
  const entries = old.map((ent) => {
    if (!valid(ent)) return ent;
    let out = ent;
    for (const k of keys) {
      if (k.base64 === ent.base64) {
        out = k;
        const i = toAdd.indexOf(k);
        if (i >= 0) toAdd.splice(i, 1);
      }
    }
    return out;
  });
  entries.push(...toAdd);
  return [...entries.map(renderAuthKeyLine), ''].join('\n');
}

/**
 * The authorized_keys file sshd reads for USER (AuthorizedKeysFile's first per-user path, else ~/.ssh/authorized_keys).
 */
async function authorizedKeysPath(platform: Platform, user: string, home: string): Promise<string> {
  const map = sshdConfigMap((await platform.readTextIfExists(SSHD_CONFIG)) ?? '');
  const value = map.get('authorizedkeysfile') || '%h/.ssh/authorized_keys';
  for (const raw of value.split(/\s+/).filter(Boolean)) {
    let p = raw.replace(/%h/g, home).replace(/%u/g, user).replace(/%%/g, '%');
    if (!p.startsWith('/')) p = posix.join(home, p);
    if (raw.includes('%u') || raw.includes('%h') || p.startsWith(`${home}/`)) return p;
  }
  return posix.join(home, '.ssh', 'authorized_keys');
}

/**
 * setup_user_keys: merges KEYS into USER's authorized_keys. Folders under the home are created 0700 and owned by
 * the user (others 0755 root); a new file is 0600 and owned by the user; an existing file keeps its mode.
 */
export async function setupUserKeys(platform: Platform, user: string, keys: string[], options?: string): Promise<void> {
  const pw = await lookupUser(platform, user);
  if (!pw) throw new Error(`user '${user}' does not exist in the target's /etc/passwd`);
  const file = await authorizedKeysPath(platform, user, pw.home);
  const homeParent = posix.dirname(pw.home);
  let folder = '';
  for (const part of posix.dirname(file).split('/').filter(Boolean)) {
    folder += `/${part}`;
    if (homeParent.startsWith(folder) || folder === pw.home) continue;
    if (await platform.exists(folder)) continue;
    const mine = folder.startsWith(pw.home);
    await platform.mkdir(folder, { mode: mine ? 0o700 : 0o755, owner: mine ? `${pw.uid}:${pw.gid}` : '0:0' });
  }
  const existing = await platform.readTextIfExists(file);
  const old =
    existing === undefined
      ? []
      : existing
          .split('\n')
          .filter((l, i, all) => !(i === all.length - 1 && l === ''))
          .map((l) => parseAuthKeyLine(l));
  const content = updateAuthorizedKeys(
    old,
    keys.map((k) => parseAuthKeyLine(String(k), options)),
  );
  await platform.writeFile(file, content, existing === undefined ? { mode: 0o600, owner: `${pw.uid}:${pw.gid}` } : {});
}
