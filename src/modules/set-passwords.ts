// cc_set_passwords: chpasswd users/list (plain text hashed by the distro's chpasswd), random passwords to the console,
// expiry, ssh_pwauth.
import { passwordOfClasses } from '../util/password-of-classes';
import { accountWriterSetting } from '../platform/linux/accounts/account-writer-setting';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps } from '../platform/linux/distro/distro';
import { isFalse, isTrue } from './support/config-values';
import { type Module, type ModuleContext, ModuleError } from './module';
import { configModule, type ReadSlice } from './support/config-module';
import { isMapping, type ReaderWarn, readConfigValue } from './support/config-readers';
import { foldUsersConfig, usersReaders } from './support/users-readers';
import { pyTruthy } from '../util/python-truthy';
import { updateSshdConfig } from './support/sshd-config';
import { usesSystemd } from './support/distro-facts';
import { serviceCommand } from './support/service-control';
import { normalizeUsersGroups } from './support/users-config';
import { describeError } from '../util/errors';

const DIGITS = '0123456789';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = LOWER.toUpperCase();
/** Python's string.punctuation. */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const HASHED = /^\$(1|2a|2y|5|6)(\$.+){2}/;

/**
 * 25.1's rand_user_password: one digit, one lower-case and one upper-case letter and one punctuation character, the
 * rest from all four classes, shuffled.
 */
export function randUserPassword(len = 20): string {
  return passwordOfClasses([DIGITS, LOWER, UPPER, PUNCTUATION], len);
}

/** A chpasswd.users entry as the module reads it (readChpasswdUsers). */
type ChpasswdUser = { readonly name: string; readonly type?: string; readonly password?: string };

/** get_users_by_type: the name and password (RANDOM when none) of each entry of TYPE (hash when it gives none). */
function usersByType(users: readonly ChpasswdUser[], type: string): Array<[string, string]> {
  return users.filter((u) => (u.type ?? 'hash') === type).map((u) => [u.name, u.password ?? 'RANDOM']);
}

/**
 * chpasswd.users as handle reads it (get_cfg_option_list, then get_users_by_type): each entry a mapping with a name
 * (else the module's error), its password its str(); only name, type and password are read. An entry of a type
 * upstream sorts into no list is left out, as upstream sets nothing for it; a text or hash entry without a password
 * gets the 'RANDOM' upstream gives it.
 */
function readChpasswdUsers(value: unknown): unknown {
  return (readConfigValue('list', value) as unknown[]).flatMap((item, i) => {
    if (!isMapping(item)) throw new ModuleError('set_passwords', `chpasswd.users[${i}] must be a mapping with 'name'`);
    if (typeof item.name !== 'string') throw new ModuleError('set_passwords', `chpasswd.users[${i}] has no 'name'`);
    const type = item.type ?? 'hash';
    if (type === 'RANDOM') return [{ name: item.name, type }];
    if (type !== 'text' && type !== 'hash') return [];
    const password = item.password === undefined ? 'RANDOM' : readConfigValue('str', item.password);
    return [{ name: item.name, type, password }];
  });
}

/**
 * chpasswd.list (deprecated) as handle reads it: a Python-false list is none; a list (each line its str()) or a
 * multi-line string, each line 'user:password' (else the module's error naming the line), handed on as one
 * multi-line string (the form the schema takes without a rule per line, as upstream reads lines of either form).
 */
function readChpasswdList(value: unknown): unknown {
  if (!pyTruthy(value)) return undefined;
  const lines = listLines(value);
  for (const [i, line] of lines.entries())
    if (!line.includes(':')) throw new ModuleError('set_passwords', `chpasswd.list[${i}] is not 'user:password'`);
  return lines.length > 0 ? lines.join('\n') : undefined;
}

/** The lines of chpasswd.list: a list's items (each its str()), a string's non-empty lines; none of anything else. */
function listLines(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((line) => readConfigValue('str', line) as string);
  return typeof value === 'string' ? value.split(/\r?\n/).filter((l) => l !== '') : [];
}

/** get_cfg_option_str as kiln reads `password` and ssh_svcname: null, a list or a mapping is none. */
function scalarString(value: unknown): unknown {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? readConfigValue('str', value)
    : undefined;
}

/**
 * ssh_pwauth as handle_ssh_pwauth reads it: null is none (left unchanged); a boolean or a string as given; any other
 * value is what is_true / is_false make of it (1, 0), else warned about as unrecognized and left unchanged.
 */
function readSshPwauth(value: unknown, warn?: ReaderWarn): unknown {
  if (value === null) return undefined;
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (isTrue(value)) return true;
  if (isFalse(value)) return false;
  warn?.(`Leaving SSH config 'PasswordAuthentication' unchanged. Unrecognized value: ssh_pwauth=${String(value)}`);
  return undefined;
}

/** Writes TEXT to the console when the target has one (cloud-init's multi_log with no stdout fallback). */
async function toConsole(ctx: ModuleContext, text: string): Promise<boolean> {
  // A sandbox or image root's /dev/console would be the host's console: only the running system's is used.
  if (ctx.platform.root !== '/') return false;
  const r = await ctx.platform.run(['/bin/sh', '-c', 'test -c /dev/console && cat > /dev/console'], {
    input: text,
    allowFailure: true,
    secrets: [text],
  });
  return r.code === 0;
}

/** handle_ssh_pwauth: PasswordAuthentication yes/no in sshd_config, and restart sshd when it is running. */
async function handleSshPwauth(ctx: ModuleContext, ops: DistroOps, cfg: SetPasswordsConfig): Promise<void> {
  const pwAuth = cfg.ssh_pwauth;
  let value: string;
  if (typeof pwAuth === 'string')
    ctx.log.deprecated(
      "Using a string value for the 'ssh_pwauth' key is deprecated in 22.2 and scheduled to be removed in 27.2. Use a boolean value with 'ssh_pwauth'.",
    );
  if (isTrue(pwAuth)) value = 'yes';
  else if (isFalse(pwAuth)) value = 'no';
  else {
    if (pwAuth === undefined || String(pwAuth).toLowerCase() === 'unchanged')
      ctx.log.debug(`Leaving SSH config 'PasswordAuthentication' unchanged. ssh_pwauth=${pwAuth ?? 'None'}`);
    else
      ctx.log.warn(
        `Leaving SSH config 'PasswordAuthentication' unchanged. Unrecognized value: ssh_pwauth=${String(pwAuth)}`,
      );
    return;
  }
  const changed = await updateSshdConfig(ctx.platform, { PasswordAuthentication: value });
  if (changed.length === 0) {
    ctx.log.debug('No need to restart SSH service, PasswordAuthentication not updated.');
    return;
  }
  const fromCfg = cfg.system_info?.ssh_svcname;
  const service = typeof fromCfg === 'string' ? fromCfg : ops.serviceName('ssh');
  // Only a running sshd is restarted; at image-build time (a --root that is not '/') nothing runs.
  if (ctx.platform.root !== '/') {
    ctx.log.debug('Not restarting SSH service: the target is not the running system.');
    return;
  }
  if (await usesSystemd(ctx.platform)) {
    // 25.1: under systemd only a running sshd is restarted (ignoring its dependencies: this runs before sshd.service).
    const state = await ctx.platform.run(['systemctl', 'show', '--property', 'ActiveState', '--value', service], {
      allowFailure: true,
    });
    if (['active', 'activating', 'reloading'].includes(state.stdout.trim().toLowerCase()))
      await restartSshDaemon(ctx, ['systemctl', 'restart', service, '--job-mode=ignore-dependencies']);
    else
      ctx.log.debug(
        `Writing config 'ssh_pwauth: ${String(pwAuth)}'. SSH service '${service}' will not be restarted because it is not running.`,
      );
    return;
  }
  // Without systemd, 25.1 restarts it through the distro's service tool whatever its state.
  await restartSshDaemon(ctx, await serviceCommand(ctx, 'restart', service));
}

/** 25.1's _restart_ssh_daemon: a failure is a warning that the setting may not be applied, not a module failure. */
async function restartSshDaemon(ctx: ModuleContext, argv: string[]): Promise<void> {
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.code === 0) {
    ctx.log.debug('Restarted the SSH daemon.');
    return;
  }
  const msg = `'ssh_pwauth' configuration may not be applied. Cloud-init was unable to restart SSH daemon due to error: 'command ${argv.join(' ')} exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}'`;
  ctx.log.warn(msg);
  ctx.recoverable('WARNING', msg);
}

/** chpasswd as handle reads it: null is none; of a mapping its users, list and expire. */
function readChpasswd(value: unknown, warn?: ReaderWarn): unknown {
  if (value === null) return undefined;
  const expire = (v: unknown) => (v === null ? undefined : readConfigValue('bool', v));
  return readConfigValue({ users: readChpasswdUsers, list: readChpasswdList, expire }, value, warn);
}

const USERS_READERS = usersReaders({});

/** The keys set_passwords reads, each as its upstream code reads it. */
const SET_PASSWORDS_READERS = {
  password: scalarString,
  chpasswd: readChpasswd,
  ssh_pwauth: readSshPwauth,
  users: USERS_READERS.users,
  user: USERS_READERS.user,
  groups: USERS_READERS.groups,
  system_info: { ...USERS_READERS.system_info, ssh_svcname: scalarString, kiln_account_writer: 'as-is' },
} as const;

type SetPasswordsConfig = ReadSlice<typeof SET_PASSWORDS_READERS>;

/**
 * Whether handle reads the users keys for CFG: only for a password and no chpasswd users or list (then the
 * default user's name); otherwise they are left out, as upstream never looks at them.
 */
function readsUsers(cfg: { readonly [key: string]: unknown }): boolean {
  if (!pyTruthy(scalarString(cfg.password))) return false;
  const ch = cfg.chpasswd;
  if (!isMapping(ch)) return true;
  return !pyTruthy(readConfigValue('list', ch.users)) && !(pyTruthy(ch.list) && listLines(ch.list).length > 0);
}

const typedSetPasswords = configModule({
  name: 'set_passwords',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  configKeys: SET_PASSWORDS_READERS,
  async run(ctx, cfg): Promise<void> {
    const ops = await distroOpsFor(ctx.platform, ctx.distro, { accountWriter: accountWriterSetting(cfg) });
    const password = cfg.password;
    const ch = cfg.chpasswd;
    const usersList: readonly ChpasswdUser[] = ch?.users ?? [];
    const list = ch?.list ?? [];
    let plist = typeof list === 'string' ? list.split(/\r?\n/).filter((l) => l !== '') : [...list];
    const expire = ch?.expire ?? true;
    if (usersList.length === 0 && plist.length === 0 && password) {
      const { defaultUser } = normalizeUsersGroups('set_passwords', cfg, ctx.log);
      if (defaultUser) plist = [`${defaultUser}:${password}`];
      else ctx.log.warn('No default or defined user to change password for.');
    }
    const errors: string[] = [];
    if (plist.length > 0 || usersList.length > 0) {
      const plain = usersByType(usersList, 'text');
      const hashed = usersByType(usersList, 'hash');
      const randlist: string[] = [];
      for (const [user] of usersByType(usersList, 'RANDOM')) {
        const p = randUserPassword();
        plain.push([user, p]);
        randlist.push(`${user}:${p}`);
      }
      for (const [i, line] of plist.entries()) {
        const sep = line.indexOf(':');
        if (sep < 0) throw new ModuleError('set_passwords', `chpasswd.list[${i}] is not 'user:password'`);
        const u = line.slice(0, sep);
        let p = line.slice(sep + 1);
        if (HASHED.test(p) && !p.includes(':')) hashed.push([u, p]);
        else {
          if (p === 'R' || p === 'RANDOM') {
            p = randUserPassword();
            randlist.push(`${u}:${p}`);
          }
          plain.push([u, p]);
        }
      }
      if (plain.length > 0) {
        ctx.log.debug(`Changing password for ${JSON.stringify(plain.map(([u]) => u))}:`);
        try {
          // As cloud-init: the distro's chpasswd hashes the text with the distro's default method.
          await ops.setPasswords(
            ctx.platform,
            plain.map(([user, p]) => ({ user, password: p })),
            false,
          );
        } catch (err) {
          errors.push(
            `Failed to set passwords with chpasswd for ${plain.map(([u]) => u).join(', ')}: ${describeError(err)}`,
          );
        }
      }
      if (hashed.length > 0) {
        ctx.log.debug(`Setting hashed password for ${JSON.stringify(hashed.map(([u]) => u))}:`);
        try {
          await ops.setPasswords(
            ctx.platform,
            hashed.map(([user, p]) => ({ user, password: p })),
            true,
          );
        } catch (err) {
          errors.push(
            `Failed to set hashed passwords with chpasswd for ${hashed.map(([u]) => u).join(', ')}: ${describeError(err)}`,
          );
        }
      }
      if (randlist.length > 0) {
        const blurb = `Set the following 'random' passwords\n\n${randlist.join('\n')}\n`;
        // Like cloud-init: console only, never the log. Without a console the text goes to the output log.
        if (!(await toConsole(ctx, blurb))) await ctx.output(blurb);
      }
      if (expire) {
        for (const u of [...plain.map(([x]) => x), ...hashed.map(([x]) => x)]) {
          try {
            await ops.expirePassword(ctx.platform, u);
          } catch (err) {
            errors.push(`Failed to set 'expire' for ${u}: ${describeError(err)}`);
          }
        }
      }
    }
    await handleSshPwauth(ctx, ops, cfg);
    if (errors.length > 0) throw new ModuleError('set_passwords', `chpasswd: ${errors.join('; ')}`);
  },
});

/** set_passwords, given the users keys only when it reads them (readsUsers), then read across keys (users-readers). */
export const setPasswords: Module = {
  ...typedSetPasswords,
  run: (ctx, cfg) => {
    // 25.1's handle: a Python-true chpasswd.list is deprecated, a list that is no list (a string) twice over.
    const list = isMapping(cfg.chpasswd) ? cfg.chpasswd.list : undefined;
    if (pyTruthy(list)) {
      ctx.log.deprecated(
        "Config key 'lists' is deprecated in 22.3 and scheduled to be removed in 27.3. Use 'users' instead.",
      );
      if (!Array.isArray(list))
        ctx.log.deprecated(
          'The chpasswd multiline string is deprecated in 22.2 and scheduled to be removed in 27.2. Use string type instead.',
        );
    }
    const { users, user, groups, ...rest } = cfg;
    return typedSetPasswords.run(ctx, readsUsers(cfg) ? foldUsersConfig(cfg, (m) => ctx.log.warn(m)) : rest);
  },
};
