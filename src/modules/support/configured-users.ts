// The users a cloud-config names, as the users_groups module normalises them, in the shape later modules read.
import { normalizeUsersGroups, type UsersLog } from './users-config';
import type { UsersConfig } from './users-readers';

export interface ConfiguredUser {
  name: string;
  /** This is the distro's default user (system_info.default_user). */
  isDefault: boolean;
  config: Record<string, unknown>;
}

/** cloud-init's ug_util.normalize_users_groups (src/modules/users-config.ts), reduced to names and settings. */
export function configuredUsers(module: string, cfg: UsersConfig, log: UsersLog): ConfiguredUser[] {
  const n = normalizeUsersGroups(module, cfg, log);
  return [...n.users.entries()].map(([name, config]) => ({ name, isDefault: name === n.defaultUser, config }));
}
