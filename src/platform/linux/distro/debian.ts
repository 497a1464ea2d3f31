// Debian and Ubuntu: apt-get with cloud-init's non-interactive options, ssh/cron service names.
import type { PackageAction, PackageCommand, ServiceKind } from './distro';
import { BaseDistro } from './base-distro';

export class DebianDistro extends BaseDistro {
  readonly packageManager = 'apt';

  packageCommand(action: PackageAction, pkgs: string[] = []): PackageCommand {
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    const apt = [
      'apt-get',
      '--option=Dpkg::Options::=--force-confold',
      '--option=Dpkg::options::=--force-unsafe-io',
      '--assume-yes',
      '--quiet',
    ];
    if (action === 'update') return { argv: [...apt, 'update'], env };
    if (action === 'upgrade') return { argv: [...apt, 'dist-upgrade'], env };
    return { argv: [...apt, 'install', ...pkgs], env };
  }

  override serviceName(kind: ServiceKind): string {
    const names: Record<ServiceKind, string> = {
      ssh: 'ssh',
      cron: 'cron',
      rsyslog: 'rsyslog',
      chrony: 'chrony',
      ntp: 'ntp',
      timesyncd: 'systemd-timesyncd',
    };
    return names[kind];
  }
}
