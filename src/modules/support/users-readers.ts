// How the modules that go through ug_util.normalize_users_groups (ssh_import_id, ssh_authkey_fingerprints …) read
// users, user, groups and system_info's default_user before the schema checks them, so that they can be handed
// typed (config-module.ts). Two parts:
// - per-key readers (usersReaders): each user mapping keeps its name and only the settings the module reads, its
//   dashed keys spelled with '_' (as _normalize_users spells them), each read by the module's reader; a user
//   mapping in a list without a name is upstream's 'default' entry; a null `users` or `groups` is as if absent.
// - a reading across keys done on the whole config first (readingUsers), for what upstream reads across keys or
//   only warns about: a `user` mapping without a name is the distro's default user with those settings
//   (mergemanydict([user, default_user]) takes system_info.default_user's name), a `users` or `user` of a type
//   upstream cannot read is warned about, in upstream's words, and is as if absent.
import type { CloudConfigValue } from '../../config/schema/cloud-config-types';
import type { CloudConfig, Module } from '../module';
import { type ConfigReader, isMapping, readConfigValue } from './config-readers';
import { pyTruthy } from '../../util/python-truthy';

/** The keys normalize_users_groups reads, as a typed module hands them to it. */
export interface UsersConfig {
  readonly users?: CloudConfigValue<'users'>;
  readonly user?: CloudConfigValue<'user'>;
  readonly groups?: CloudConfigValue<'groups'>;
  readonly system_info?: CloudConfigValue<'system_info'>;
}

/** How a module reads the settings of one user: a reader per setting (the others are left out). */
export type UserSettingReaders = { readonly [setting: string]: ConfigReader };

/** ENTRY, one user's mapping, with its keys spelled as _normalize_users spells them: '_' for '-', stripped. */
export function spelledUserKeys(entry: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  const spelled: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    const k = key.replace(/-/g, '_').trim();
    if (k) spelled[k] = value;
  }
  return spelled;
}

/**
 * ENTRY, one user's mapping, as a module with READERS reads it: keys spelled with '_' for '-' (stripped), the name
 * (str() of it, as kiln names users; null is none) and snapuser kept, each setting READERS names read by its reader.
 * With DEFAULT_NAME, a mapping that names no user (nor a snap user) is upstream's `name: default` entry.
 */
function readUserEntry(
  entry: Readonly<Record<string, unknown>>,
  readers: UserSettingReaders,
  defaultName: boolean,
): Record<string, unknown> {
  const spelled = spelledUserKeys(entry);
  const out: Record<string, unknown> = {};
  if (spelled.name !== undefined && spelled.name !== null) out.name = readConfigValue('str', spelled.name);
  if (Object.hasOwn(spelled, 'snapuser')) out.snapuser = spelled.snapuser;
  if (defaultName && out.name === undefined && out.snapuser === undefined) out.name = 'default';
  for (const [setting, reader] of Object.entries(readers)) {
    if (setting === 'name' || setting === 'snapuser' || !Object.hasOwn(spelled, setting)) continue;
    const read = readConfigValue(reader, spelled[setting]);
    if (read !== undefined) out[setting] = read;
  }
  return out;
}

/** The readers of users, user, groups and system_info for a module that reads each user's settings by READERS. */
export function usersReaders(readers: UserSettingReaders) {
  const entry = (value: unknown): unknown => (isMapping(value) ? readUserEntry(value, readers, false) : value);
  return {
    // A list (each mapping one user), a mapping of names (each mapping one user's settings) or a string of names.
    users: (value: unknown): unknown => {
      if (Array.isArray(value))
        return value.map((item) => (isMapping(item) ? readUserEntry(item, readers, true) : item));
      if (isMapping(value)) return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, entry(v)]));
      return typeof value === 'string' ? value : undefined;
    },
    // `if cfg['user']`: a Python-false user is none; a name or one user's mapping.
    user: (value: unknown): unknown => {
      if (typeof value === 'string') return value || undefined;
      return isMapping(value) && Object.keys(value).length > 0 ? entry(value) : undefined;
    },
    groups: (value: unknown): unknown => (value === null ? undefined : value),
    system_info: { default_user: entry },
  } as const;
}

/**
 * CFG with what normalize_users_groups reads across keys or only warns about already read (see the file's head);
 * WARN gets upstream's warnings. The values are left for the per-key readers and the schema's check.
 */
export function foldUsersConfig(cfg: CloudConfig, warn: (message: string) => void): CloudConfig {
  const out: CloudConfig = { ...cfg };
  const user = out.user;
  if (pyTruthy(user) && typeof user !== 'string' && !isMapping(user)) {
    warn(`Format for 'user' key must be a string or dictionary and not ${typeof user}`);
    delete out.user;
  } else if (isMapping(user) && user.name === undefined && user.snapuser === undefined && pyTruthy(user)) {
    const systemInfo = out.system_info;
    const defaultUser = isMapping(systemInfo) ? systemInfo.default_user : undefined;
    const name = isMapping(defaultUser) ? defaultUser.name : undefined;
    // mergemanydict([user, default_user]): the user's settings first, the default user's name.
    if (typeof name === 'string') out.user = { ...user, name };
  }
  const users = out.users;
  if (
    users !== undefined &&
    users !== null &&
    !Array.isArray(users) &&
    !isMapping(users) &&
    typeof users !== 'string'
  ) {
    warn(`Format for 'users' key must be a comma-separated string or a dictionary or a list but found ${typeof users}`);
    delete out.users;
  }
  return out;
}

/**
 * MODULE (made by configModule with usersReaders) with its config read across the users keys first (foldUsersConfig).
 */
export function readingUsers(module: Module): Module {
  return {
    ...module,
    run: (ctx, cfg) =>
      module.run(
        ctx,
        foldUsersConfig(cfg, (m) => ctx.log.warn(m)),
      ),
  };
}
