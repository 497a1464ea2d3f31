// RHEL, Fedora, CentOS Stream, Rocky, Alma and kin: dnf (yum where dnf is absent), wheel, sshd/crond.
import type { DistroInfo } from './distro-info';
import type { DistroOptions, PackageAction, PackageCommand } from './distro';
import { BaseDistro } from './base-distro';

export class RhelDistro extends BaseDistro {
  override readonly sudoGroup = 'wheel';
  protected override readonly bareRecordFiles = true;
  readonly packageManager: string;

  /** USE_YUM: the target has no dnf (RHEL/CentOS 7 and older). */
  constructor(info: DistroInfo, useYum = false, options: DistroOptions = {}) {
    super(info, options);
    this.packageManager = useYum ? 'yum' : 'dnf';
  }

  packageCommand(action: PackageAction, pkgs: string[] = []): PackageCommand {
    const pm = this.packageManager;
    if (action === 'update') return { argv: [pm, 'makecache'], env: {} };
    if (action === 'upgrade') return { argv: [pm, '-t', '-y', 'upgrade'], env: {} };
    return { argv: [pm, '-t', '-y', 'install', ...pkgs], env: {} };
  }
}
