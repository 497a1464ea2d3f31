// cc_users_groups: creates groups and users (the default user from system_info too), passwords, locks, sudo rules, SSH
// keys.
import { accountWriterSetting } from '../platform/linux/accounts/account-writer-setting';
import { distroOpsFor } from '../platform/linux/distro/detect-distro';
import type { DistroOps, UserSpec } from '../platform/linux/distro/distro';
import { DISABLE_USER_OPTS, setupUserKeys } from './support/authorized-keys';
import { isTrue } from './support/config-values';
import { type CloudConfig, type Module, type ModuleContext, ModuleError } from './module';
import { writeSudoRules } from './support/sudoers';
import { writeDoasRules } from './support/doas';
import { normalizeUsersGroups, type UserConfig } from './support/users-config';
import { describeError } from '../util/errors';

const NO_HOME = ['no_create_home', 'system'];
const NEED_HOME = ['ssh_authorized_keys', 'ssh_import_id', 'ssh_redirect_user'];

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

export function userSpecFrom(name: string, c: UserConfig): UserSpec {
  const spec: UserSpec = { name };
  const set = <K extends keyof UserSpec>(k: K, v: UserSpec[K] | undefined) => {
    if (v !== undefined) spec[k] = v;
  };
  set('gecos', optString(c.gecos));
  set('homedir', optString(c.homedir));
  set('primaryGroup', optString(c.primary_group));
  if (c.uid !== undefined && c.uid !== null && c.uid !== '') spec.uid = Number(c.uid);
  const groups = groupList(c.groups);
  if (groups.length > 0) spec.groups = groups;
  set('passwdHash', optString(c.passwd));
  set('shell', optString(c.shell));
  set('expiredate', optString(c.expiredate));
  set('inactive', optString(c.inactive));
  set('selinuxUser', optString(c.selinux_user));
  if (isTrue(c.system)) spec.system = true;
  if (isTrue(c.no_create_home)) spec.noCreateHome = true;
  if (isTrue(c.no_user_group)) spec.noUserGroup = true;
  if (isTrue(c.no_log_init)) spec.noLogInit = true;
  // cloud-init pops create_groups and tests it with Python's truth: false, 0, '', null or [] turn creation off.
  const create = c.create_groups;
  if (
    'create_groups' in c &&
    (create === false ||
      create === 0 ||
      create === '' ||
      create === null ||
      (Array.isArray(create) && create.length === 0))
  )
    spec.keepMissingGroups = true;
  return spec;
}

function keyList(v: unknown, warn: (m: string) => void): string[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return [...new Set(v.map(String))];
  if (typeof v === 'object') return [...new Set(Object.values(v as Record<string, unknown>).map(String))];
  warn(`Invalid type '${typeof v}' detected for 'ssh_authorized_keys', expected list, string, dict, or set.`);
  return [];
}

/**
 * add_snap_user: the store account EMAIL becomes a local sudoer through snapd (`--known` for a known assertion);
 * nothing else of the entry applies.
 */
async function addSnapUser(ctx: ModuleContext, name: string, c: UserConfig): Promise<string | undefined> {
  const argv = [
    'snap',
    'create-user',
    '--sudoer',
    '--json',
    ...(isTrue(c.known) ? ['--known'] : []),
    String(c.snapuser),
  ];
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
  c: UserConfig,
  preExisting: boolean,
): Promise<void> {
  const given = 'plain_text_passwd' in c || 'hashed_passwd' in c || (!preExisting && 'passwd' in c);
  if (preExisting && !given && 'passwd' in c) {
    const msg = `'passwd' in user-data is ignored for existing user ${name}`;
    ctx.log.warn(msg);
    ctx.recoverable('WARNING', msg);
  }
  if (c.lock_passwd === undefined || isTrue(c.lock_passwd)) {
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

/** distro.create_user: add the user if missing, then passwords, lock, sudo and keys (for new and existing users). */
export async function createUser(ctx: ModuleContext, ops: DistroOps, name: string, c: UserConfig): Promise<void> {
  if ('snapuser' in c) {
    await addSnapUser(ctx, name, c);
    return;
  }
  const spec = userSpecFrom(name, c);
  // cloud-init creates a missing primary group only when supplementary groups are listed too (add_user).
  if (
    spec.primaryGroup &&
    spec.groups &&
    !spec.keepMissingGroups &&
    !(await ops.groupExists(ctx.platform, spec.primaryGroup))
  ) {
    await ops.addGroup(ctx.platform, spec.primaryGroup);
  }
  const preExisting = !(await ops.addUser(ctx.platform, spec));
  if (preExisting) ctx.log.info(`User ${name} already exists, skipping.`);
  const plain = c.plain_text_passwd;
  // As cloud-init: chpasswd hashes plain text with the distro's default method (yescrypt on Debian 12).
  if (typeof plain === 'string' && plain)
    await ops.setPasswords(ctx.platform, [{ user: name, password: plain }], false);
  const hashed = c.hashed_passwd;
  if (typeof hashed === 'string' && hashed)
    await ops.setPasswords(ctx.platform, [{ user: name, password: hashed }], true);
  await applyPasswordLock(ctx, ops, name, c, preExisting);
  if ('sudo' in c) {
    const sudo = c.sudo;
    if (typeof sudo === 'string' && sudo) await writeSudoRules(ctx.platform, name, sudo);
    else if (Array.isArray(sudo) && sudo.length > 0) await writeSudoRules(ctx.platform, name, sudo.map(String));
    else if (sudo === true)
      throw new ModuleError(
        'users_groups',
        `users: '${name}': sudo must be a rule string or a list of rules, not true`,
      );
    else if (sudo === false)
      ctx.log.warn(
        `DEPRECATED: The user ${name} has a 'sudo' config value of 'false' which will be dropped after April 2027. Use 'null' instead.`,
      );
  }
  if ('doas' in c && c.doas) await writeDoasRules(ctx.platform, ctx.log, name, c.doas);
  if ('ssh_authorized_keys' in c)
    await setupUserKeys(
      ctx.platform,
      name,
      keyList(c.ssh_authorized_keys, (m) => ctx.log.warn(m)),
    );
  if (typeof c.ssh_redirect_user === 'string') {
    const cloudKeys = Array.isArray(c.cloud_public_ssh_keys) ? c.cloud_public_ssh_keys.map(String) : [];
    if (cloudKeys.length === 0) {
      ctx.log.warn(
        `Unable to disable SSH logins for ${name} given ssh_redirect_user: ${c.ssh_redirect_user}. No cloud public-keys present.`,
      );
    } else {
      const opts = DISABLE_USER_OPTS.replace('$USER', c.ssh_redirect_user).replace('$DISABLE_USER', name);
      await setupUserKeys(ctx.platform, name, [...new Set(cloudKeys)], opts);
    }
  }
}

export const usersGroups: Module = {
  name: 'users_groups',
  stage: 'init',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
    const { users, groups, defaultUser } = normalizeUsersGroups('users_groups', cfg, ctx.log);
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
    for (const [name, config] of users) {
      const c: UserConfig = { ...config };
      delete c.default;
      const noHome = NO_HOME.filter((k) => isTrue(c[k]));
      const needHome = NEED_HOME.filter((k) => !!c[k]);
      if (noHome.length > 0 && needHome.length > 0) {
        throw new ModuleError(
          'users_groups',
          `Not creating user ${name}. Key(s) ${needHome.join(', ')} cannot be provided with ${noHome.join(', ')}`,
        );
      }
      const redirect = c.ssh_redirect_user;
      delete c.ssh_redirect_user;
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
            `Not creating user ${name}. Invalid value of ssh_redirect_user: ${String(redirect)}. Expected values: true, default or false.`,
          );
        }
        if (defaultUser === undefined) {
          ctx.log.warn(
            `Ignoring ssh_redirect_user: ${String(redirect)} for ${name}. No default_user defined. Perhaps missing cloud configuration users:  [default, ..].`,
          );
        } else {
          c.ssh_redirect_user = defaultUser;
          c.cloud_public_ssh_keys = cloudKeys;
        }
      }
      try {
        await createUser(ctx, ops, name, c);
      } catch (err) {
        if (err instanceof ModuleError) throw err;
        throw new ModuleError('users_groups', `users: '${name}': ${describeError(err)}`, { cause: err });
      }
    }
  },
};
