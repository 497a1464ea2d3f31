// SUSE and openSUSE: zypper, /etc/HOSTNAME on releases before 15 (and Tumbleweed uses /etc/hostname).
import type { DistroInfo } from './distro-info';
import type { DistroOptions, PackageAction, PackageCommand } from './distro';
import { BaseDistro } from './base-distro';

export class SuseDistro extends BaseDistro {
  override readonly sudoGroup = 'wheel';
  protected override readonly bareRecordFiles = true;
  override readonly hostnameFile: string;
  readonly packageManager = 'zypper';

  constructor(info: DistroInfo, options: DistroOptions = {}) {
    super(info, options);
    const major = Number.parseInt(info.version, 10);
    // cloud-init uses /etc/HOSTNAME on SUSE older than 15 (systemd-hostnamed reads /etc/hostname since).
    this.hostnameFile =
      Number.isFinite(major) && major < 15 && major > 0 && info.osReleaseId !== 'opensuse-tumbleweed'
        ? '/etc/HOSTNAME'
        : '/etc/hostname';
  }

  packageCommand(action: PackageAction, pkgs: string[] = []): PackageCommand {
    if (action === 'update') return { argv: ['zypper', '--non-interactive', 'refresh'], env: {} };
    if (action === 'upgrade') return { argv: ['zypper', '--non-interactive', 'update'], env: {} };
    return { argv: ['zypper', '--non-interactive', 'install', '--auto-agree-with-licenses', ...pkgs], env: {} };
  }
}
