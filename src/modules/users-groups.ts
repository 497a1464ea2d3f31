// cc_users_groups: creates groups and users (the default user from system_info too), passwords, locks, sudo rules, SSH
// keys.
import { accountWriterSetting } from '../platform/linux/accounts/account-writer-setting';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps, UserSpec } from '../platform/linux/distro/distro';
import { DISABLE_USER_OPTS, setupUserKeys } from './support/authorized-keys';
import { isTrue } from './support/config-values';
import { configModule } from './support/config-module';
import { isMapping, OwnParser, type ReaderWarn, readConfigValue, type YamlMapping } from './support/config-readers';
import { type Module, type ModuleContext, ModuleError } from './module';
import { writeSudoRules } from './support/sudoers';
import { writeDoasRules } from './support/doas';
import { normalizeUsersGroups } from './support/users-config';
import { spelledUserKeys } from './support/users-readers';
import { describeError } from '../util/errors';
import { pyTruthy } from '../util/python-truthy';

/**
 * A user's doas rules as create_user takes them: the rules, or, for a value that is not a list of them, its JSON for
 * the warning that writes none.
 */
type DoasSetting = readonly string[] | { readonly notRules: string };

/**
 * One user's settings as create_user (add_user, add_snap_user, the rules and keys) reads them. Each is present when
 * the user's mapping has it, as upstream's `in` tests see it, with undefined for a value the module cannot use.
 */
export interface UserSettings {
  /** useradd's options: a non-empty string (an expiredate read as a date is its day, YYYY-MM-DD). */
  readonly gecos?: string | undefined;
  readonly homedir?: string | undefined;
  readonly primary_group?: string | undefined;
  readonly shell?: string | undefined;
  readonly expiredate?: string | undefined;
  readonly inactive?: string | undefined;
  readonly selinux_user?: string | undefined;
  /** The hash for useradd --password (a new user only). */
  readonly passwd?: string | undefined;
  readonly uid?: number | undefined;
  /** The supplementary groups (a comma-separated string split, a mapping's names). */
  readonly groups?: readonly string[];
  /** useradd's flags, by is_true. */
  readonly system?: boolean;
  readonly no_create_home?: boolean;
  readonly no_user_group?: boolean;
  readonly no_log_init?: boolean;
  /** By Python's truth: false leaves listed groups that do not exist uncreated. */
  readonly create_groups?: boolean;
  /** Given (even empty or not a string), a password that lock_passwd: false unlocks; a non-empty one is set. */
  readonly plain_text_passwd?: string | undefined;
  readonly hashed_passwd?: string | undefined;
  /** is_true of it: false unlocks (applyPasswordLock); absent locks. */
  readonly lock_passwd?: boolean;
  /** A rule, a list of rules, or a boolean (true is refused, false deprecated); undefined for what writes none. */
  readonly sudo?: string | readonly string[] | boolean | undefined;
  readonly doas?: DoasSetting | undefined;
  readonly ssh_authorized_keys?: readonly string[];
  /** Whether ids are given (Python's truth): ssh_import_id imports them; here they only need a home. */
  readonly ssh_import_id?: boolean;
  /** true or 'default' (the others are refused); a Python-false value is false. */
  readonly ssh_redirect_user?: boolean | string;
  /** A snap user's store account: snapd makes the account and nothing else applies. */
  readonly snapuser?: string;
  /** snap create-user --known, by is_true. */
  readonly known?: boolean;
}

/** A user's mapping in users or user: its settings and the name it gives (none for upstream's 'default'). */
interface NamedUserSettings extends UserSettings {
  readonly name?: string;
}

/** users as the module reads it: a string of names, a list of entries, or a mapping of names. */
type UsersSetting =
  | string
  | ReadonlyArray<string | readonly string[] | NamedUserSettings>
  | { readonly [name: string]: boolean | number | string | UserSettings };

/** A useradd option value: cloud-init passes only non-empty strings (uid is stringified first). */
function optString(v: unknown): string | undefined {
  if (typeof v === 'string' && v) return v;
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  return undefined;
}

function groupList(v: unknown): string[] {
  if (typeof v === 'string')
    return v
      .split(',')
      .map((g) => g.trim())
      .filter(Boolean);
  if (Array.isArray(v)) return v.map((g) => String(g).trim()).filter(Boolean);
  if (v && typeof v === 'object') return Object.keys(v).map((g) => g.trim());
  return [];
}

function keyList(v: unknown, warn?: ReaderWarn): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return [...new Set(v.map(String))];
  if (isMapping(v)) return [...new Set(Object.values(v).map(String))];
  warn?.(`Invalid type '${typeof v}' detected for 'ssh_authorized_keys', expected list, string, dict, or set.`);
  return [];
}

/** sudo: a non-empty rule or list of rules (each its String()), or a boolean; anything else writes none. */
function sudoSetting(v: unknown): UserSettings['sudo'] {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v || undefined;
  return Array.isArray(v) && v.length > 0 ? v.map(String) : undefined;
}

/** doas: a list of rules; a JS-false value writes none; anything else is no rules, warned about as the user is made. */
function doasSetting(v: unknown): DoasSetting | undefined {
  if (!v) return undefined;
  return Array.isArray(v) && v.every((r) => typeof r === 'string') ? v : { notRules: JSON.stringify(v) };
}

/** ssh_redirect_user: true and strings as given; any other value its Python truth when false, else its String(). */
function redirectSetting(v: unknown): boolean | string {
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  return pyTruthy(v) && String(v);
}

/**
 * MAPPING, one user's, as the module reads it (UserSettings): its keys spelled as _normalize_users spells them, the
 * settings create_user reads each read by its rule, the others left out; the name its String() (null is none).
 */
function readUserSettings(mapping: YamlMapping, warn?: ReaderWarn): NamedUserSettings {
  const c = spelledUserKeys(mapping);
  const read = <K extends keyof NamedUserSettings>(key: K, parse: (v: unknown) => NamedUserSettings[K]) =>
    Object.hasOwn(c, key) ? { [key]: parse(c[key]) } : {};
  return {
    ...(c.name !== undefined && c.name !== null && { name: String(c.name) }),
    ...read('gecos', optString),
    ...read('homedir', optString),
    ...read('primary_group', optString),
    ...read('shell', optString),
    ...read('expiredate', optString),
    ...read('inactive', optString),
    ...read('selinux_user', optString),
    ...read('passwd', optString),
    ...read('uid', (v) => (v === null || v === '' ? undefined : Number(v))),
    ...read('groups', groupList),
    ...read('system', isTrue),
    ...read('no_create_home', isTrue),
    ...read('no_user_group', isTrue),
    ...read('no_log_init', isTrue),
    ...read('create_groups', pyTruthy),
    ...read('plain_text_passwd', (v) => (typeof v === 'string' ? v : undefined)),
    ...read('hashed_passwd', (v) => (typeof v === 'string' ? v : undefined)),
    ...read('lock_passwd', isTrue),
    ...read('sudo', sudoSetting),
    ...read('doas', doasSetting),
    ...read('ssh_authorized_keys', (v) => keyList(v, warn)),
    ...read('ssh_import_id', pyTruthy),
    ...read('ssh_redirect_user', redirectSetting),
    ...read('snapuser', String),
    ...read('known', isTrue),
  };
}

/**
 * users as _normalize_users reads it (UsersSetting), each user's mapping by readUserSettings: null is none; an entry
 * or a mapping's value of a type it cannot take is refused in the module's words; any other users is warned about
 * in upstream's words and is none.
 */
function readUsers(value: unknown, warn?: ReaderWarn): UsersSetting | undefined {
  if (value === null) return undefined;
  if (typeof value === 'string') return value;
  if (Array.isArray(value))
    return value.map((entry) => {
      if (typeof entry === 'string') return entry;
      if (Array.isArray(entry)) return entry.map(String);
      if (isMapping(entry)) return readUserSettings(entry, warn);
      throw new ModuleError(
        'users_groups',
        `users: each entry must be a mapping, a list or a string, got ${entry === null ? 'null' : typeof entry}`,
      );
    });
  if (isMapping(value))
    return Object.fromEntries(
      Object.entries(value).map(([name, v]) => {
        if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') return [name, v];
        if (isMapping(v)) return [name, readUserSettings(v, warn)];
        throw new ModuleError('users_groups', `users: unmappable value for key '${name}'`);
      }),
    );
  warn?.(`Format for 'users' key must be a comma-separated string or a dictionary or a list but found ${typeof value}`);
  return undefined;
}

/** user: a name (an empty one is none) or one user's mapping; any other true value is warned about and is none. */
function readUser(value: unknown, warn?: ReaderWarn): string | NamedUserSettings | undefined {
  if (typeof value === 'string') return value || undefined;
  if (isMapping(value)) return readUserSettings(value, warn);
  if (value) warn?.(`Format for 'user' key must be a string or dictionary and not ${typeof value}`);
  return undefined;
}

export function userSpecFrom(name: string, c: UserSettings): UserSpec {
  const spec: UserSpec = { name };
  const set = <K extends keyof UserSpec>(k: K, v: UserSpec[K] | undefined) => {
    if (v !== undefined) spec[k] = v;
  };
  set('gecos', c.gecos);
  set('homedir', c.homedir);
  set('primaryGroup', c.primary_group);
  set('uid', c.uid);
  if (c.groups && c.groups.length > 0) spec.groups = [...c.groups];
  set('passwdHash', c.passwd);
  set('shell', c.shell);
  set('expiredate', c.expiredate);
  set('inactive', c.inactive);
  set('selinuxUser', c.selinux_user);
  if (c.system) spec.system = true;
  if (c.no_create_home) spec.noCreateHome = true;
  if (c.no_user_group) spec.noUserGroup = true;
  if (c.no_log_init) spec.noLogInit = true;
  // cloud-init pops create_groups and tests it with Python's truth (as it is read): false turns creation off.
  if (c.create_groups === false) spec.keepMissingGroups = true;
  return spec;
}

/**
 * add_snap_user: the store account SNAPUSER becomes a local sudoer through snapd (`--known` for a known assertion);
 * nothing else of the entry applies.
 */
async function addSnapUser(
  ctx: ModuleContext,
  name: string,
  snapuser: string,
  known: boolean,
): Promise<string | undefined> {
  const argv = ['snap', 'create-user', '--sudoer', '--json', ...(known ? ['--known'] : []), snapuser];
  ctx.log.debug(`Adding snap user ${name}`);
  const r = await ctx.platform.run(argv, { allowFailure: true });
  ctx.log.debug(`snap create-user returned: ${r.stdout}:${r.stderr}`);
  if (r.code !== 0)
    throw new ModuleError(
      'users_groups',
      `Failed to create snap user ${name}: '${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
    );
  try {
    const out = JSON.parse(r.stdout) as { username?: string };
    return out.username;
  } catch (err) {
    throw new ModuleError(
      'users_groups',
      `Failed to create snap user ${name}: snap create-user did not answer JSON (${describeError(err)})`,
      { cause: err },
    );
  }
}

/** 25.1's _shadow_file_has_empty_user_password: NAME's hash in /etc/shadow is empty or only the lock (`!`). */
async function hasEmptyPassword(ctx: ModuleContext, name: string): Promise<boolean> {
  const shadow = (await ctx.platform.readTextIfExists('/etc/shadow')) ?? '';
  const hash = shadow
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))
    ?.split(':')[1];
  return hash === '' || hash === '!';
}

/**
 * 25.1's (24.3 and later) lock_passwd: true (the default) locks the account; false unlocks it when user data gives it
 * a password (blank or not; `passwd` only for a new user), or an existing user already has one; otherwise the account
 * stays as it is, with 25.1's warning.
 */
async function applyPasswordLock(
  ctx: ModuleContext,
  ops: DistroOps,
  name: string,
  c: UserSettings,
  preExisting: boolean,
): Promise<void> {
  const given = 'plain_text_passwd' in c || 'hashed_passwd' in c || (!preExisting && 'passwd' in c);
  if (preExisting && !given && 'passwd' in c) {
    const msg = `'passwd' in user-data is ignored for existing user ${name}`;
    ctx.log.warn(msg);
    ctx.recoverable('WARNING', msg);
  }
  if (c.lock_passwd ?? true) {
    await ops.lockPassword(ctx.platform, name);
    return;
  }
  const hasPassword = preExisting && !given && !(await hasEmptyPassword(ctx, name));
  if (given || hasPassword) {
    await ops.unlockPassword(ctx.platform, name);
    return;
  }
  const msg = preExisting
    ? `Not unlocking blank password for existing user ${name}. 'lock_passwd: false' present in user-data but no existing password set and no 'plain_text_passwd'/'hashed_passwd' provided in user-data`
    : `Not unlocking password for user ${name}. 'lock_passwd: false' present in user-data but no 'passwd'/'plain_text_passwd'/'hashed_passwd' provided in user-data`;
  ctx.log.warn(msg);
  ctx.recoverable('WARNING', msg);
}

/** Where ssh_redirect_user sends a user's logins: the default user, with the cloud's public keys. */
interface SshRedirect {
  readonly defaultUser: string;
  readonly cloudKeys: readonly string[];
}

/**
 * distro.create_user: add the user if missing, then passwords, lock, sudo and keys (for new and existing users); with
 * REDIRECT, the cloud's keys that send the user's logins to the default user.
 */
export async function createUser(
  ctx: ModuleContext,
  ops: DistroOps,
  name: string,
  c: UserSettings,
  redirect?: SshRedirect,
): Promise<void> {
  if (c.snapuser !== undefined) {
    await addSnapUser(ctx, name, c.snapuser, c.known ?? false);
    return;
  }
  const spec = userSpecFrom(name, c);
  // 25.1's add_user (for a user not there yet) creates the missing groups in the order listed, the primary group
  // last (only when supplementary groups are listed too): groupadd gives them their ids in that order.
  if (spec.groups && !spec.keepMissingGroups && !(await ops.userExists(ctx.platform, name))) {
    for (const g of [...spec.groups, ...(spec.primaryGroup ? [spec.primaryGroup] : [])])
      if (!(await ops.groupExists(ctx.platform, g))) await ops.addGroup(ctx.platform, g);
    spec.keepMissingGroups = true;
  }
  const preExisting = !(await ops.addUser(ctx.platform, spec));
  if (preExisting) ctx.log.info(`User ${name} already exists, skipping.`);
  // As cloud-init: chpasswd hashes plain text with the distro's default method (yescrypt on Debian 12).
  if (c.plain_text_passwd) await ops.setPasswords(ctx.platform, [{ user: name, password: c.plain_text_passwd }], false);
  if (c.hashed_passwd) await ops.setPasswords(ctx.platform, [{ user: name, password: c.hashed_passwd }], true);
  await applyPasswordLock(ctx, ops, name, c, preExisting);
  const sudo = c.sudo;
  if (typeof sudo === 'string') await writeSudoRules(ctx.platform, name, sudo);
  else if (Array.isArray(sudo)) await writeSudoRules(ctx.platform, name, [...sudo]);
  else if (sudo === true)
    throw new ModuleError('users_groups', `users: '${name}': sudo must be a rule string or a list of rules, not true`);
  else if (sudo === false)
    ctx.log.deprecated(
      `The value of 'false' in user ${name}'s 'sudo' config is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'null' instead.`,
    );
  const doas = c.doas;
  if (doas !== undefined && 'notRules' in doas)
    ctx.log.warn(`Invalid doas rules ${doas.notRules} for user ${name}, not writing any doas rules for user!`);
  else if (doas !== undefined) await writeDoasRules(ctx.platform, ctx.log, name, doas);
  if (c.ssh_authorized_keys !== undefined) await setupUserKeys(ctx.platform, name, [...c.ssh_authorized_keys]);
  if (redirect !== undefined) {
    if (redirect.cloudKeys.length === 0) {
      ctx.log.warn(
        `Unable to disable SSH logins for ${name} given ssh_redirect_user: ${redirect.defaultUser}. No cloud public-keys present.`,
      );
    } else {
      const opts = DISABLE_USER_OPTS.replace('$USER', redirect.defaultUser).replace('$DISABLE_USER', name);
      await setupUserKeys(ctx.platform, name, [...new Set(redirect.cloudKeys)], opts);
    }
  }
}

/** Of system_info: the default user, read as a user's mapping, and kiln_account_writer (distroOpsFor). */
const SYSTEM_INFO_READERS = {
  default_user: (value: unknown, warn?: ReaderWarn) => (isMapping(value) ? readUserSettings(value, warn) : value),
  kiln_account_writer: 'as-is',
} as const;

export const usersGroups: Module = configModule({
  name: 'users_groups',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  // users and user by the module's own parsers: 25.1's create_user acts on user mappings its schema rejects (a snap
  // user's `known`, a name with snapuser, ssh_redirect_user: default). groups: a null or an empty list is none, as
  // _normalize_groups makes nothing of an empty one. system_info: a mapping (anything else is none), its default user
  // read as a user's mapping.
  configKeys: {
    user: new OwnParser(readUser),
    users: new OwnParser(readUsers),
    groups: (value: unknown) => (value === null || (Array.isArray(value) && value.length === 0) ? undefined : value),
    system_info: (value: unknown, warn?: ReaderWarn) =>
      isMapping(value) ? readConfigValue(SYSTEM_INFO_READERS, value, warn) : undefined,
  },
  async run(ctx, cfg): Promise<void> {
    const { users, groups, defaultUser } = normalizeUsersGroups<UserSettings>('users_groups', cfg, ctx.log);
    const ops = await distroOpsFor(ctx.platform, ctx.distro, { accountWriter: accountWriterSetting(cfg) });
    const cloudKeys = ctx.instance?.publicKeys ?? [];
    for (const [group, members] of groups) {
      if (await ops.groupExists(ctx.platform, group)) ctx.log.warn(`Skipping creation of existing group '${group}'`);
      for (const m of members)
        if (!(await ops.userExists(ctx.platform, m)))
          ctx.log.warn(`Unable to add group member '${m}' to group '${group}'; user does not exist.`);
      try {
        await ops.addGroup(ctx.platform, group, members);
      } catch (err) {
        throw new ModuleError('users_groups', `groups: cannot create group '${group}': ${describeError(err)}`, {
          cause: err,
        });
      }
    }
    for (const [name, c] of users) {
      const noHome = [c.no_create_home && 'no_create_home', c.system && 'system'].filter((k) => typeof k === 'string');
      const needHome = [
        c.ssh_authorized_keys?.length && 'ssh_authorized_keys',
        c.ssh_import_id && 'ssh_import_id',
        c.ssh_redirect_user && 'ssh_redirect_user',
      ].filter((k) => typeof k === 'string');
      if (noHome.length > 0 && needHome.length > 0) {
        throw new ModuleError(
          'users_groups',
          `Not creating user ${name}. Key(s) ${needHome.join(', ')} cannot be provided with ${noHome.join(', ')}`,
        );
      }
      const redirect = c.ssh_redirect_user;
      let redirectTo: SshRedirect | undefined;
      if (redirect) {
        if ('ssh_authorized_keys' in c || 'ssh_import_id' in c) {
          throw new ModuleError(
            'users_groups',
            `Not creating user ${name}. ssh_redirect_user cannot be provided with ssh_import_id or ssh_authorized_keys`,
          );
        }
        if (redirect !== true && redirect !== 'default') {
          throw new ModuleError(
            'users_groups',
            `Not creating user ${name}. Invalid value of ssh_redirect_user: ${redirect}. Expected values: true, default or false.`,
          );
        }
        if (defaultUser === undefined) {
          ctx.log.warn(
            `Ignoring ssh_redirect_user: ${String(redirect)} for ${name}. No default_user defined. Perhaps missing cloud configuration users:  [default, ..].`,
          );
        } else redirectTo = { defaultUser, cloudKeys };
      }
      try {
        await createUser(ctx, ops, name, c, redirectTo);
      } catch (err) {
        if (err instanceof ModuleError) throw err;
        throw new ModuleError('users_groups', `users: '${name}': ${describeError(err)}`, { cause: err });
      }
    }
  },
});
