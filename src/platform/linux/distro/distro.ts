// The distro-family seam: how a Linux family adds users and groups, names its hostname file, installs packages and
// names services.
import type { DistroInfo } from './distro-info';
import type { Platform, RunResult } from '../../platform';
import type { AccountWriter } from '../accounts/account-writer-setting';

/** A user as cloud-init's users_groups / default_user describe it (already parsed). */
export interface UserSpec {
  name: string;
  gecos?: string;
  homedir?: string;
  primaryGroup?: string;
  /** Supplementary groups; missing ones are created first unless keepMissingGroups is set. */
  groups?: string[];
  /** cloud-init's create_groups: false: listed groups that do not exist are not created (useradd then fails). */
  keepMissingGroups?: boolean;
  /** A crypted password hash for useradd --password. */
  passwdHash?: string;
  shell?: string;
  uid?: number;
  expiredate?: string;
  inactive?: string;
  selinuxUser?: string;
  system?: boolean;
  noCreateHome?: boolean;
  noUserGroup?: boolean;
  noLogInit?: boolean;
}

/** How a family's operations are to be carried out, from the config (cloud-init hands a distro its system_info). */
export interface DistroOptions {
  /** system_info.kiln_account_writer: 'tools' leaves every account change to the distro's tools. */
  accountWriter?: AccountWriter;
}

export type PackageAction = 'install' | 'update' | 'upgrade';

/** One package-manager invocation: the argv and the environment it needs. */
export interface PackageCommand {
  argv: string[];
  env: Record<string, string>;
}

/** Services whose names differ between families. */
export type ServiceKind = 'ssh' | 'cron' | 'rsyslog' | 'chrony' | 'ntp' | 'timesyncd';

export interface DistroOps {
  readonly info: DistroInfo;
  /** Where the static hostname lives: /etc/hostname on most, /etc/HOSTNAME on older SUSE. */
  readonly hostnameFile: string;
  /** The group that sudo rights traditionally go to (informational; cloud-init writes explicit rules). */
  readonly sudoGroup: string;
  /** The package manager's name: 'apt', 'dnf', 'yum', 'zypper', 'apk', 'pacman'. */
  readonly packageManager: string;
  /** True when USER exists in the target's /etc/passwd. */
  userExists(platform: Platform, user: string): Promise<boolean>;
  groupExists(platform: Platform, group: string): Promise<boolean>;
  /** Creates USER (cloud-init's add_user); does nothing but log when it exists. Returns false when it existed. */
  addUser(platform: Platform, user: UserSpec): Promise<boolean>;
  /** Creates GROUP (system group when asked) and adds MEMBERS (which must exist) to it. */
  addGroup(platform: Platform, group: string, members?: string[], system?: boolean): Promise<void>;
  /** Adds USER to existing GROUPS. */
  addToGroups(platform: Platform, user: string, groups: string[]): Promise<void>;
  /** Locks USER's password (passwd -l / usermod --lock). */
  lockPassword(platform: Platform, user: string): Promise<void>;
  /**
   * distro.unlock_passwd: `passwd -u`; an account it will not unlock (no password behind the lock) gets an empty one.
   */
  unlockPassword(platform: Platform, user: string): Promise<void>;
  /** Sets passwords in one chpasswd call; HASHED means the values are already crypted. */
  setPasswords(platform: Platform, entries: Array<{ user: string; password: string }>, hashed: boolean): Promise<void>;
  /** Expires USER's password so it must be changed at next login. */
  expirePassword(platform: Platform, user: string): Promise<void>;
  /**
   * Writes HOSTNAME into FILE (default: the static hostname file), keeping its comments; no hostnamectl, the target may
   * not be running.
   */
  writeHostname(platform: Platform, hostname: string, file?: string): Promise<void>;
  /** Reads the hostname in FILE (default: the static hostname file), undefined when not set. */
  readHostname(platform: Platform, file?: string): Promise<string | undefined>;
  /** The package-manager command for ACTION over PKGS. */
  packageCommand(action: PackageAction, pkgs?: string[]): PackageCommand;
  /** Runs the package manager in the target root. */
  runPackages(platform: Platform, action: PackageAction, pkgs?: string[]): Promise<RunResult>;
  /** The family's unit/service name for KIND. */
  serviceName(kind: ServiceKind): string;
  /** The command that restarts SERVICE on this family (systemctl, or rc-service on Alpine). */
  restartServiceCommand(service: string): string[];
}
