// The default user's name as a datasource sees it in the system config (cloud-init's ug_util.extract_default on
// sys_cfg).

function isDict(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** True when `users` lists `default` (a list entry, a dict key that is not false, or a comma-separated name). */
function listsDefault(users: unknown): boolean {
  if (typeof users === 'string') return users.split(',').some((u) => u.trim() === 'default');
  if (Array.isArray(users)) return users.some((u) => u === 'default' || (isDict(u) && u.name === 'default'));
  if (isDict(users)) return 'default' in users && users.default !== false;
  return false;
}

/**
 * The name of the default user: `user` (string or dict) or system_info.default_user, when `users` lists `default`
 * (a `user` key adds it, as cloud-init's normalize_users_groups does). Undefined when there is none; sources such
 * as GCE then only accept keys addressed to `cloudinit`.
 */
export function defaultUserName(config: Record<string, unknown>): string | undefined {
  const user = config.user;
  const oldUser: Record<string, unknown> = typeof user === 'string' ? { name: user } : isDict(user) ? user : {};
  const sysInfo = isDict(config.system_info) ? config.system_info : {};
  const distroDefault = isDict(sysInfo.default_user) ? sysInfo.default_user : {};
  const listed = Object.keys(oldUser).length > 0 || listsDefault(config.users);
  const name = oldUser.name ?? distroDefault.name;
  return listed && typeof name === 'string' && name ? name : undefined;
}
