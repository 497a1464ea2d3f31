// cloud-init's ug_util: normalises `users`, `user`, `groups` and system_info.default_user into one map of users and one
// of groups.
import { isTrue } from './config-values';
import { ModuleError } from '../module';

/** One user's settings as given (or as a caller's readers read them). */
export type UserConfig = Record<string, unknown>;

/** The keys normalize_users_groups reads, in any shape: it judges them as ug_util does. */
export interface UsersKeys {
  readonly users?: unknown;
  readonly user?: unknown;
  readonly groups?: unknown;
  readonly system_info?: unknown;
}

export interface NormalizedUsers<S = UserConfig> {
  /** User name → its merged settings (keys with '-' turned into '_'), in cloud-init's order. */
  users: Map<string, S>;
  /** Group name → sorted unique members. */
  groups: Map<string, string[]>;
  /** The default user's name, when `default` was listed and system_info.default_user names one. */
  defaultUser: string | undefined;
}

/** util.uniq_merge: strings split on commas and stripped, order kept, duplicates dropped. */
function uniqMerge(...lists: unknown[]): string[] {
  const out: string[] = [];
  for (const l of lists) {
    const items =
      typeof l === 'string'
        ? l
            .trim()
            .split(',')
            .map((s) => s.trim())
        : Array.isArray(l)
          ? l.map((x) => String(x).trim())
          : [];
    for (const i of items) if (!out.includes(i)) out.push(i);
  }
  return out;
}

function uniqMergeSorted(...lists: unknown[]): string[] {
  return uniqMerge(...lists).sort();
}

/** util.mergemanydict: the first dict wins on conflicting keys; nested dicts merge the same way. */
export function mergeManyDict(dicts: Array<Record<string, unknown> | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const d of dicts) {
    if (!d) continue;
    for (const [k, v] of Object.entries(d)) {
      const have = out[k];
      if (!(k in out)) out[k] = v;
      else if (isDict(have) && isDict(v)) out[k] = mergeManyDict([have, v]);
    }
  }
  return out;
}

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function normalizeGroups(module: string, grpCfg: unknown): Map<string, string[]> {
  let cfg: unknown = grpCfg;
  if (typeof cfg === 'string') cfg = cfg.trim().split(',');
  const collected = new Map<string, string[]>();
  if (Array.isArray(cfg)) {
    for (const item of cfg) {
      if (isDict(item)) {
        for (const [k, v] of Object.entries(item)) {
          if (typeof v === 'string') collected.set(k, [...(collected.get(k) ?? []), v]);
          else if (Array.isArray(v)) collected.set(k, [...(collected.get(k) ?? []), ...v.map(String)]);
          else throw new ModuleError(module, `groups: bad member type for group '${k}' (expected a list or a string)`);
        }
      } else if (typeof item === 'string') {
        if (!collected.has(item)) collected.set(item, []);
      } else throw new ModuleError(module, `groups: unknown group name type ${typeof item}`);
    }
  } else if (isDict(cfg)) {
    for (const [k, v] of Object.entries(cfg))
      collected.set(k, v === null || v === undefined ? [] : Array.isArray(v) ? v.map(String) : [String(v)]);
  } else {
    throw new ModuleError(module, `groups must be a list, a mapping or a string, got ${typeof grpCfg}`);
  }
  const groups = new Map<string, string[]>();
  for (const [name, members] of collected) groups.set(name.trim(), uniqMergeSorted(members));
  return groups;
}

function normalizeUserList(
  module: string,
  uCfg: unknown,
  defUserCfg: Record<string, unknown>,
): { users: Map<string, UserConfig>; defaultUser: string | undefined } {
  let list: unknown[];
  if (isDict(uCfg)) {
    list = [];
    for (const [k, v] of Object.entries(uCfg)) {
      if (typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string') {
        if (isTrue(v)) list.push(k);
      } else if (isDict(v)) list.push({ ...v, name: k });
      else throw new ModuleError(module, `users: unmappable value for key '${k}'`);
    }
  } else if (typeof uCfg === 'string') {
    list = uniqMergeSorted(uCfg);
  } else list = Array.isArray(uCfg) ? uCfg : [];
  const raw = new Map<string, UserConfig>();
  for (const entry of list) {
    if (typeof entry === 'string' || Array.isArray(entry)) {
      for (const u of uniqMerge(entry)) if (u && !raw.has(u)) raw.set(u, {});
    } else if (isDict(entry)) {
      const { name, ...rest } = entry;
      const n = name === undefined || name === null ? 'default' : String(name);
      raw.set(n, mergeManyDict([raw.get(n) ?? {}, rest]));
    } else
      throw new ModuleError(
        module,
        `users: each entry must be a mapping, a list or a string, got ${entry === null ? 'null' : typeof entry}`,
      );
  }
  const users = new Map<string, UserConfig>();
  for (const [name, cfg] of raw) {
    const clean: UserConfig = {};
    for (const [k, v] of Object.entries(cfg)) {
      const key = k.replace(/-/g, '_').trim();
      if (key) clean[key] = v;
    }
    users.set(name, clean);
  }
  let defaultUser: string | undefined;
  if (users.has('default')) {
    const defConfig = users.get('default') as UserConfig;
    users.delete('default');
    if (Object.keys(defUserCfg).length > 0 && typeof defUserCfg.name === 'string') {
      const { name, groups: defGroups, ...defRest } = defUserCfg;
      defaultUser = name as string;
      const parsed = users.get(defaultUser) ?? {};
      users.delete(defaultUser);
      // upstream joins the groups with ',', which create_user splits again: kept as the list.
      const merged = uniqMergeSorted(parsed.groups ?? [], defGroups ?? []);
      users.set(defaultUser, mergeManyDict([defRest, defConfig, { ...parsed, groups: merged }]));
    }
  }
  return { users, defaultUser };
}

/** Where normalize_users_groups logs: its warnings, and its lifecycle.deprecate lines at the DEPRECATED level. */
export interface UsersLog {
  warn(m: string): void;
  deprecated(m: string): void;
}

/**
 * normalize_users_groups(cfg, distro) with extract_default folded in. S is what the caller's readers made of each
 * user's mapping (users, user and system_info.default_user alike), which the merge keeps: the settings as given
 * (UserConfig) when it read them as they are.
 */
export function normalizeUsersGroups<S extends object = UserConfig>(
  module: string,
  cfg: UsersKeys,
  log: UsersLog,
): NormalizedUsers<S> {
  let oldUser: Record<string, unknown> = {};
  const userKey = cfg.user;
  if (userKey) {
    if (typeof userKey === 'string') {
      oldUser = { name: userKey };
      log.deprecated(
        "'user' of type string is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'users' list instead.",
      );
    } else if (isDict(userKey)) oldUser = userKey;
    else log.warn(`Format for 'user' key must be a string or dictionary and not ${typeof userKey}`);
  }
  const sysInfo = isDict(cfg.system_info) ? cfg.system_info : {};
  const distroDefault = isDict(sysInfo.default_user) ? sysInfo.default_user : {};
  const defaultUserCfg = mergeManyDict([oldUser, distroDefault]);
  let baseUsers: unknown = cfg.users ?? [];
  if (isDict(baseUsers) || typeof baseUsers === 'string')
    log.deprecated(
      `'users' of type <class '${isDict(baseUsers) ? 'dict' : 'str'}'> is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'users' as a list.`,
    );
  else if (!Array.isArray(baseUsers)) {
    log.warn(
      `Format for 'users' key must be a comma-separated string or a dictionary or a list but found ${typeof baseUsers}`,
    );
    baseUsers = [];
  }
  if (Object.keys(oldUser).length > 0) {
    if (Array.isArray(baseUsers)) baseUsers = [...baseUsers, { name: 'default' }];
    else if (isDict(baseUsers)) baseUsers = { ...baseUsers, default: baseUsers.default ?? true };
    else baseUsers = `${baseUsers as string},default`;
  }
  const groups =
    'groups' in cfg && cfg.groups !== null && cfg.groups !== undefined
      ? normalizeGroups(module, cfg.groups)
      : new Map<string, string[]>();
  const { users, defaultUser } = normalizeUserList(module, baseUsers, defaultUserCfg);
  return { users: users as Map<string, S>, groups, defaultUser };
}
