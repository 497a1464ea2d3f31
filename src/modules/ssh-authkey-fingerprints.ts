// cc_ssh_authkey_fingerprints: prints a table of each user's authorized key fingerprints to the console.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { configModule } from './support/config-module';
import { configuredUsers } from './support/configured-users';
import { type AuthKeyLine, parseAuthKeyLine, VALID_KEY_TYPES } from './support/authorized-keys';
import { lookupUser, type PasswdEntry } from './support/passwd-entries';
import { readingUsers, usersReaders } from './support/users-readers';
import { ModuleError, type Module, type ModuleContext } from './module';

/**
 * _is_printable_key: a parsed line with a key type ssh_util knows (compared lowercased); comments, blank lines and
 * lines the parser could not split are left out of the table.
 */
function isPrintable(k: AuthKeyLine): boolean {
  return !!k.keytype && VALID_KEY_TYPES.has(k.keytype.toLowerCase().trim());
}

/** Hex digest of the decoded key in colon-separated pairs; '?' when the key does not decode. */
export function keyFingerprint(base64: string | undefined, hash: string): string {
  if (!base64) return '';
  try {
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) return '?';
    const hex = createHash(hash).update(Buffer.from(base64, 'base64')).digest('hex');
    return hex.match(/../g)?.join(':') ?? '';
  } catch {
    return '?'; // an unknown hash name: '?', as cloud-init's _gen_fingerprint answers on a bad hash or key
  }
}

/** Python's str.center (extra fill goes right when the margin is odd, unless the width is odd too). */
export function pyCenter(text: string, width: number, fill = ' '): string {
  const marg = width - text.length;
  if (marg <= 0) return text;
  const left = Math.floor(marg / 2) + (marg & width & 1);
  return fill.repeat(left) + text + fill.repeat(marg - left);
}

/** cloud-init's SimpleTable: +---+ dividers, centred cells. */
export function simpleTable(fields: string[], rows: string[][]): string {
  const widths = fields.map((f, i) => Math.max(f.length, ...rows.map((r) => (r[i] ?? '').length)));
  const hdiv = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`;
  const row = (r: string[]) => `|${r.map((c, i) => pyCenter(c, (widths[i] ?? 0) + 2)).join('|')}|`;
  return [hdiv, row(fields), hdiv, ...rows.map(row), hdiv].join('\n');
}

/**
 * ssh_util.extract_authorized_keys: the user's authorized_keys per AuthorizedKeysFile (first per-user entry),
 * created when missing as check_create_path does: folders under the home 0700 owned by the user (others 0755
 * root), an empty file 0600 owned by the user. Without a per-user entry, ~/.ssh/authorized_keys is only read.
 */
async function authorizedKeysFile(ctx: ModuleContext, user: PasswdEntry): Promise<string> {
  const { platform } = ctx;
  const sshd = (await platform.readTextIfExists('/etc/ssh/sshd_config')) ?? '';
  let value = '%h/.ssh/authorized_keys';
  for (const line of sshd.split('\n')) {
    const m = /^\s*AuthorizedKeysFile\s+(.+)$/i.exec(line);
    if (m) value = (m[1] as string).trim();
  }
  const home = user.home;
  for (const raw of value.split(/\s+/).filter(Boolean)) {
    let path = raw.replace(/%h/g, home).replace(/%u/g, user.name).replace(/%%/g, '%');
    if (!path.startsWith('/')) path = posix.join(home, path);
    if (!(raw.includes('%u') || raw.includes('%h') || path.startsWith(`${home}/`))) continue;
    if (await ensureKeysPath(ctx, user, path)) return path;
  }
  return posix.join(home, '.ssh', 'authorized_keys');
}

async function ensureKeysPath(ctx: ModuleContext, user: PasswdEntry, file: string): Promise<boolean> {
  const { platform } = ctx;
  const homeParent = posix.dirname(user.home);
  let folder = '';
  for (const part of posix.dirname(file).split('/').filter(Boolean)) {
    folder += `/${part}`;
    const st = await platform.stat(folder, { followLinks: false });
    if (st && st.type !== 'directory') return false; // a symlink or a file in the path: refused, as cloud-init does
    if (homeParent.startsWith(folder) || folder === user.home) continue;
    if (!(await platform.exists(folder))) {
      const mine = folder.startsWith(user.home);
      await platform.mkdir(folder, { mode: mine ? 0o700 : 0o755, owner: mine ? `${user.uid}:${user.gid}` : '0:0' });
    }
  }
  const st = await platform.stat(file, { followLinks: false });
  if (st && st.type !== 'file') return false;
  if (!(await platform.exists(file)))
    await platform.writeFile(file, '', { mode: 0o600, owner: `${user.uid}:${user.gid}` });
  return true;
}

export const sshAuthkeyFingerprintsModule: Module = readingUsers(
  configModule({
    name: 'ssh_authkey_fingerprints',
    stage: 'final',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: [],
    // is_true(no_ssh_fingerprints), get_cfg_option_str(authkey_hash); of each user only `_cfg.get(...)`'s truth of
    // no_create_home and system.
    configKeys: {
      no_ssh_fingerprints: 'bool',
      authkey_hash: 'str',
      ...usersReaders({ no_create_home: 'truthy', system: 'truthy' }),
    },
    async run(ctx, cfg): Promise<void> {
      if (cfg.no_ssh_fingerprints) {
        ctx.log.debug('Skipping module named ssh_authkey_fingerprints, logging of SSH fingerprints disabled');
        return;
      }
      const hash = cfg.authkey_hash ?? 'sha256';
      const prefix = 'ci-info: ';
      for (const user of configuredUsers('ssh_authkey_fingerprints', cfg, ctx.log)) {
        if (user.config.no_create_home || user.config.system) {
          ctx.log.debug(
            `Skipping printing of ssh fingerprints for user '${user.name}' because no home directory is created`,
          );
          continue;
        }
        const entry = await lookupUser(ctx.platform, user.name);
        if (!entry)
          throw new ModuleError(
            'ssh_authkey_fingerprints',
            `user '${user.name}' is configured but not in the target's /etc/passwd`,
          );
        const file = await authorizedKeysFile(ctx, entry);
        const text = (await ctx.platform.readTextIfExists(file)) ?? '';
        // parse_authorized_keys: every line of the file (str.splitlines), each through ssh_util's one parser.
        const fileLines = text === '' ? [] : text.replace(/(\r\n|\r|\n)$/, '').split(/\r\n|\r|\n/);
        const entries = fileLines.map((line) => parseAuthKeyLine(line));
        if (entries.length === 0) {
          await ctx.output(`${prefix}no authorized SSH keys fingerprints found for user ${user.name}.\n`);
          continue;
        }
        const rows = entries
          .filter(isPrintable)
          .map((k) => [k.keytype || '-', keyFingerprint(k.base64, hash) || '-', k.options || '-', k.comment || '-']);
        const table = simpleTable(['Keytype', `Fingerprint (${hash})`, 'Options', 'Comment'], rows).split('\n');
        const width = Math.max(...table.map((l) => l.length));
        const lines = [pyCenter(`Authorized keys from ${file} for user ${user.name}`, width, '+'), ...table];
        await ctx.output(lines.map((l) => `${prefix}${l}\n`).join(''));
      }
    },
  }),
);
