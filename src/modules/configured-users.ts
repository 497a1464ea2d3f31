// The users a cloud-config names (`users`, `user`, the distro's default user), reduced to what later modules read.
import { isRecord } from './config-shapes';
import type { CloudConfig } from './module';

export interface ConfiguredUser {
  name: string;
  /** This is the distro's default user (system_info.default_user). */
  isDefault: boolean;
  config: Record<string, unknown>;
}

/** A small form of cloud-init's normalize_users_groups: names, the default flag, and each user's own keys. */
export function configuredUsers(cfg: CloudConfig): ConfiguredUser[] {
  const systemInfo = isRecord(cfg.system_info) ? cfg.system_info : {};
  const defaultUser: Record<string, unknown> = isRecord(systemInfo.default_user) ? { ...systemInfo.default_user } : {};
  if (typeof cfg.user === 'string') defaultUser.name = cfg.user;
  else if (isRecord(cfg.user)) Object.assign(defaultUser, cfg.user);
  let entries: unknown[] = [];
  if (Array.isArray(cfg.users)) entries = cfg.users;
  else if (typeof cfg.users === 'string') entries = cfg.users.split(',').map((s) => s.trim()).filter(Boolean);
  else if (isRecord(cfg.users)) entries = Object.entries(cfg.users).map(([name, v]) => (isRecord(v) ? { name, ...v } : name));
  const out = new Map<string, ConfiguredUser>();
  const addDefault = () => {
    if (typeof defaultUser.name === 'string') out.set(defaultUser.name, { name: defaultUser.name, isDefault: true, config: defaultUser });
  };
  if (cfg.users === undefined && cfg.user !== undefined) addDefault();
  for (const e of entries) {
    if (e === 'default') addDefault();
    else if (typeof e === 'string') out.set(e, { name: e, isDefault: false, config: {} });
    else if (isRecord(e) && typeof e.name === 'string') {
      if (e.name === 'default') addDefault();
      else out.set(e.name, { name: e.name, isDefault: false, config: e });
    }
  }
  return [...out.values()];
}

/** The home folder of USER from the target's /etc/passwd, or /home/USER. */
export function homeOf(passwd: string | undefined, user: string): string {
  for (const line of (passwd ?? '').split('\n')) {
    const f = line.split(':');
    if (f[0] === user && f[5]) return f[5];
  }
  return user === 'root' ? '/root' : `/home/${user}`;
}
