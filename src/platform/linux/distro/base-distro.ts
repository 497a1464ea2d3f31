// What most Linux families share (shadow-utils useradd/groupadd, /etc/hostname, systemd); families override the rest.
import type { DistroInfo } from './distro-info';
import type { Platform, RunOpts, RunResult } from '../../platform';
import type { DistroOps, DistroOptions, PackageAction, PackageCommand, ServiceKind, UserSpec } from './distro';
import { clearStaleAccountLocks } from '../accounts/account-locks';
import { NativeAccounts } from '../accounts/native-accounts';
import { LinuxPlatform } from '../linux-platform';

/** Names in a colon file (/etc/passwd, /etc/group) of the target. */
async function colonNames(platform: Platform, file: string): Promise<Set<string>> {
  const text = (await platform.readTextIfExists(file)) ?? '';
  return new Set(
    text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(':')[0] as string),
  );
}

/**
 * A hostname file with HOSTNAME in place of its old name; comment and blank lines are kept (cloud-init's HostnameConf).
 */
export function renderHostnameFile(old: string, hostname: string): string {
  const out: string[] = [];
  let placed = false;
  for (const line of old.split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) {
      out.push(line);
      continue;
    }
    if (!placed) out.push(hostname);
    placed = true;
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  if (!placed) out.push(hostname);
  return `${out.join('\n')}\n`;
}

export abstract class BaseDistro implements DistroOps {
  readonly hostnameFile: string = '/etc/hostname';
  readonly sudoGroup: string = 'sudo';
  abstract readonly packageManager: string;

  constructor(
    readonly info: DistroInfo,
    protected readonly options: DistroOptions = {},
  ) {}

  async userExists(platform: Platform, user: string): Promise<boolean> {
    return (await colonNames(platform, '/etc/passwd')).has(user);
  }

  async groupExists(platform: Platform, group: string): Promise<boolean> {
    return (await colonNames(platform, '/etc/group')).has(group);
  }

  /** useradd's argv for USER, as cloud-init's add_user builds it. */
  useraddArgv(user: UserSpec): string[] {
    const argv = ['useradd', user.name];
    if (user.gecos !== undefined) argv.push('--comment', user.gecos);
    if (user.homedir !== undefined) argv.push('--home', user.homedir);
    if (user.primaryGroup !== undefined) argv.push('--gid', user.primaryGroup);
    if (user.uid !== undefined) argv.push('--uid', String(user.uid));
    if (user.groups && user.groups.length > 0) argv.push('--groups', user.groups.join(','));
    if (user.passwdHash !== undefined) argv.push('--password', user.passwdHash);
    if (user.shell !== undefined) argv.push('--shell', user.shell);
    if (user.expiredate !== undefined) argv.push('--expiredate', user.expiredate);
    if (user.inactive !== undefined) argv.push('--inactive', user.inactive);
    if (user.selinuxUser !== undefined) argv.push('--selinux-user', user.selinuxUser);
    if (user.noUserGroup) argv.push('--no-user-group');
    if (user.noLogInit) argv.push('--no-log-init');
    if (user.system) argv.push('--system');
    argv.push(user.noCreateHome || user.system ? '-M' : '-m');
    return argv;
  }

  /** False for families whose account tools are not shadow-utils (busybox on Alpine). */
  protected readonly shadowUtils: boolean = true;
  private readonly native = new WeakMap<Platform, NativeAccounts | null>();

  /**
   * kiln's own account-file writer for PLATFORM, when it stands in for shadow-utils there: not switched off
   * (system_info.kiln_account_writer: tools), real effects (not a dry run, which plans the commands cloud-init
   * runs), on a target NativeAccounts.suits.
   */
  protected async nativeAccounts(platform: Platform): Promise<NativeAccounts | undefined> {
    if (this.options.accountWriter === 'tools' || !this.shadowUtils || !(platform instanceof LinuxPlatform))
      return undefined;
    if (!this.native.has(platform))
      this.native.set(
        platform,
        (await NativeAccounts.suits(platform)) ? new NativeAccounts(platform, this.info.family) : null,
      );
    return this.native.get(platform) ?? undefined;
  }

  /**
   * Runs one of shadow-utils' account tools (ARGV) on PLATFORM, first removing account-file locks no live
   * process holds: the tools would take a killed kiln's lock, or a reused pid in it, for a live holder.
   */
  protected async runAccountTool(platform: Platform, argv: string[], options: RunOpts = {}): Promise<RunResult> {
    if (this.shadowUtils && platform instanceof LinuxPlatform) await clearStaleAccountLocks(platform);
    return platform.run(argv, options);
  }

  async addUser(platform: Platform, user: UserSpec): Promise<boolean> {
    if (await this.userExists(platform, user.name)) return false;
    if (!user.keepMissingGroups)
      for (const g of user.groups ?? []) if (!(await this.groupExists(platform, g))) await this.addGroup(platform, g);
    if (await (await this.nativeAccounts(platform))?.addUser(user)) return true;
    await this.runAccountTool(platform, this.useraddArgv(user), user.passwdHash ? { secrets: [user.passwdHash] } : {});
    return true;
  }

  async addGroup(platform: Platform, group: string, members: string[] = [], system = false): Promise<void> {
    if (!(await this.groupExists(platform, group))) {
      if (!(await (await this.nativeAccounts(platform))?.addGroup(group, system)))
        await this.runAccountTool(platform, this.groupaddArgv(group, system));
    }
    for (const m of members) {
      if (!(await this.userExists(platform, m))) continue;
      await this.addToGroups(platform, m, [group]);
    }
  }

  groupaddArgv(group: string, system: boolean): string[] {
    return system ? ['groupadd', '--system', group] : ['groupadd', group];
  }

  async addToGroups(platform: Platform, user: string, groups: string[]): Promise<void> {
    if (groups.length === 0) return;
    if (await (await this.nativeAccounts(platform))?.addToGroups(user, groups)) return;
    await this.runAccountTool(platform, ['usermod', '-a', '-G', groups.join(','), user]);
  }

  async lockPassword(platform: Platform, user: string): Promise<void> {
    if (await (await this.nativeAccounts(platform))?.lockPassword(user)) return;
    const r = await this.runAccountTool(platform, ['passwd', '-l', user], { allowFailure: true });
    if (r.code !== 0) await this.runAccountTool(platform, ['usermod', '--lock', user]);
  }

  async unlockPassword(platform: Platform, user: string): Promise<void> {
    if (await (await this.nativeAccounts(platform))?.unlockPassword(user)) return;
    // As 25.1: passwd -u (exit 3 is its refusal to leave an account without a password), and where it said why on
    // stderr, passwd -d gives the account the empty password it asked for.
    const r = await this.runAccountTool(platform, ['passwd', '-u', user], { allowFailure: true });
    if (r.code !== 0 && r.code !== 3) {
      await this.runAccountTool(platform, ['usermod', '--unlock', user]);
      return;
    }
    if (r.stderr.trim()) await this.runAccountTool(platform, ['passwd', '-d', user]);
  }

  async setPasswords(
    platform: Platform,
    entries: Array<{ user: string; password: string }>,
    hashed: boolean,
  ): Promise<void> {
    if (entries.length === 0) return;
    // Plain text always goes to chpasswd, so that the distro's default hash (yescrypt on Debian 12) is used.
    if (hashed && (await (await this.nativeAccounts(platform))?.setHashes(entries))) return;
    const input = entries.map((e) => `${e.user}:${e.password}\n`).join('');
    await this.runAccountTool(platform, hashed ? ['chpasswd', '-e'] : ['chpasswd'], {
      input,
      secrets: entries.map((e) => e.password),
    });
  }

  async expirePassword(platform: Platform, user: string): Promise<void> {
    if (await (await this.nativeAccounts(platform))?.expirePassword(user)) return;
    await this.runAccountTool(platform, ['passwd', '--expire', user]);
  }

  /** RHEL and SUSE (systemd) write previous-hostname as the bare name, without a newline. */
  protected readonly bareRecordFiles: boolean = false;

  async writeHostname(platform: Platform, hostname: string, file: string = this.hostnameFile): Promise<void> {
    if (this.bareRecordFiles && file.endsWith('/previous-hostname')) {
      await platform.writeFile(file, hostname);
      return;
    }
    const old = (await platform.readTextIfExists(file)) ?? '';
    await platform.writeFile(file, renderHostnameFile(old, hostname), { mode: 0o644 });
  }

  async readHostname(platform: Platform, file: string = this.hostnameFile): Promise<string | undefined> {
    // A file that cannot be read (a folder, no permission) has no hostname, as _read_hostname's IOError.
    const text = await platform.readTextIfExists(file).catch(() => undefined);
    const line = text
      ?.split('\n')
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith('#'));
    return line || undefined;
  }

  abstract packageCommand(action: PackageAction, pkgs?: string[]): PackageCommand;

  async runPackages(platform: Platform, action: PackageAction, pkgs: string[] = []): Promise<RunResult> {
    const cmd = this.packageCommand(action, pkgs);
    return platform.run(cmd.argv, { env: cmd.env });
  }

  serviceName(kind: ServiceKind): string {
    const names: Record<ServiceKind, string> = {
      ssh: 'sshd',
      cron: 'crond',
      rsyslog: 'rsyslog',
      chrony: 'chronyd',
      ntp: 'ntpd',
      timesyncd: 'systemd-timesyncd',
    };
    return names[kind];
  }

  restartServiceCommand(service: string): string[] {
    return ['systemctl', 'restart', service];
  }
}
