// Alpine: busybox adduser/addgroup, apk, OpenRC services (rc-service), wheel for sudo.
import type { Platform } from '../../platform';
import type { PackageAction, PackageCommand, ServiceKind, UserSpec } from './distro';
import { BaseDistro } from './base-distro';

export class AlpineDistro extends BaseDistro {
  override readonly sudoGroup = 'wheel';
  protected override readonly shadowUtils = false;
  readonly packageManager = 'apk';

  /** busybox adduser's argv: it lacks useradd's long options, so groups, expiry and hash are applied after. */
  adduserArgv(user: UserSpec): string[] {
    const argv = ['adduser', '-D'];
    if (user.gecos !== undefined) argv.push('-g', user.gecos);
    if (user.homedir !== undefined) argv.push('-h', user.homedir);
    if (user.primaryGroup !== undefined) argv.push('-G', user.primaryGroup);
    if (user.uid !== undefined) argv.push('-u', String(user.uid));
    if (user.shell !== undefined) argv.push('-s', user.shell);
    if (user.system) argv.push('-S');
    if (user.noCreateHome || user.system) argv.push('-H');
    argv.push(user.name);
    return argv;
  }

  override async addUser(platform: Platform, user: UserSpec): Promise<boolean> {
    if (await this.userExists(platform, user.name)) return false;
    if (!user.keepMissingGroups)
      for (const g of user.groups ?? []) if (!(await this.groupExists(platform, g))) await this.addGroup(platform, g);
    await platform.run(this.adduserArgv(user));
    for (const g of user.groups ?? []) await platform.run(['addgroup', user.name, g]);
    if (user.passwdHash !== undefined)
      await this.setPasswords(platform, [{ user: user.name, password: user.passwdHash }], true);
    if (user.expiredate !== undefined)
      await platform.run(['chage', '-E', user.expiredate, user.name], { allowFailure: true });
    return true;
  }

  override groupaddArgv(group: string, system: boolean): string[] {
    return system ? ['addgroup', '-S', group] : ['addgroup', group];
  }

  override async addToGroups(platform: Platform, user: string, groups: string[]): Promise<void> {
    for (const g of groups) await platform.run(['addgroup', user, g]);
  }

  override async expirePassword(platform: Platform, user: string): Promise<void> {
    await platform.run(['passwd', '-e', user]);
  }

  packageCommand(action: PackageAction, pkgs: string[] = []): PackageCommand {
    if (action === 'update') return { argv: ['apk', 'update'], env: {} };
    if (action === 'upgrade') return { argv: ['apk', 'upgrade'], env: {} };
    return { argv: ['apk', 'add', '--quiet', ...pkgs], env: {} };
  }

  override serviceName(kind: ServiceKind): string {
    const names: Record<ServiceKind, string> = {
      ssh: 'sshd',
      cron: 'crond',
      rsyslog: 'rsyslog',
      chrony: 'chronyd',
      ntp: 'ntpd',
      timesyncd: 'ntpd',
    };
    return names[kind];
  }

  override restartServiceCommand(service: string): string[] {
    return ['rc-service', service, 'restart'];
  }
}
