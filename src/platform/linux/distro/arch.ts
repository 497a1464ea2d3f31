// Arch Linux: pacman, wheel for sudo, systemd services.
import type { PackageAction, PackageCommand, ServiceKind } from './distro';
import { BaseDistro } from './base-distro';

export class ArchDistro extends BaseDistro {
  override readonly sudoGroup = 'wheel';
  readonly packageManager = 'pacman';

  packageCommand(action: PackageAction, pkgs: string[] = []): PackageCommand {
    if (action === 'update') return { argv: ['pacman', '-Sy', '--quiet', '--noconfirm'], env: {} };
    if (action === 'upgrade') return { argv: ['pacman', '-Syu', '--quiet', '--noconfirm'], env: {} };
    return { argv: ['pacman', '-Sy', '--quiet', '--noconfirm', ...pkgs], env: {} };
  }

  override serviceName(kind: ServiceKind): string {
    const names: Record<ServiceKind, string> = {
      ssh: 'sshd',
      cron: 'cronie',
      rsyslog: 'rsyslog',
      chrony: 'chronyd',
      ntp: 'ntpd',
      timesyncd: 'systemd-timesyncd',
    };
    return names[kind];
  }
}
