// Finds the target's distro (cloud-init's name and osfamily) from /etc/os-release under the root, and its DistroOps.
import type { DistroInfo } from '../../../modules/module';
import { readOsRelease } from '../../os-release';
import type { Platform } from '../../platform';
import { AlpineDistro } from './alpine';
import { ArchDistro } from './arch';
import { DebianDistro } from './debian';
import type { DistroOps, DistroOptions } from './distro';
import { RhelDistro } from './rhel';
import { SuseDistro } from './suse';

type Family = DistroInfo['family'];

/** os-release IDs by cloud-init osfamily. */
const FAMILY_OF_ID: Record<string, Family> = {
  debian: 'debian', ubuntu: 'debian', raspbian: 'debian', linuxmint: 'debian', pop: 'debian',
  rhel: 'redhat', centos: 'redhat', fedora: 'redhat', rocky: 'redhat', almalinux: 'redhat', ol: 'redhat', amzn: 'redhat',
  cloudlinux: 'redhat', eurolinux: 'redhat', miraclelinux: 'redhat', virtuozzo: 'redhat', openeuler: 'redhat',
  opensuse: 'suse', 'opensuse-leap': 'suse', 'opensuse-tumbleweed': 'suse', 'opensuse-microos': 'suse', sles: 'suse', sled: 'suse', sle_hpc: 'suse', 'sle-micro': 'suse',
  alpine: 'alpine',
  arch: 'arch', archarm: 'arch', manjaro: 'arch', endeavouros: 'arch',
};

/** cloud-init's distro name for an os-release ID where they differ. */
const NAME_OF_ID: Record<string, string> = { ol: 'rhel', amzn: 'amazon', 'opensuse-leap': 'opensuse-leap', 'opensuse-tumbleweed': 'opensuse-tumbleweed' };

/** Maps os-release fields to DistroInfo; ID_LIKE decides when ID is unknown. */
export function distroInfoFromOsRelease(rel: Record<string, string>): DistroInfo {
  const id = (rel.ID ?? '').toLowerCase();
  const version = rel.VERSION_ID ?? '';
  const known = FAMILY_OF_ID[id];
  if (known) return { name: NAME_OF_ID[id] ?? id, family: known, version };
  for (const like of (rel.ID_LIKE ?? '').toLowerCase().split(/\s+/).filter(Boolean)) {
    const family = FAMILY_OF_ID[like] ?? (like === 'suse' ? 'suse' : undefined);
    if (family) return { name: id || like, family, version };
  }
  return { name: id || 'unknown', family: 'unknown', version };
}

export async function detectDistro(platform: Platform): Promise<DistroInfo> {
  return distroInfoFromOsRelease(await readOsRelease(platform));
}

/**
 * The family's operations for INFO. An unknown family gets Debian's shadow-utils behaviour for users and apt
 * for packages, which is what cloud-init falls back to as well ('ubuntu'/debian defaults).
 */
export async function distroOpsFor(platform: Platform, info: DistroInfo, options: DistroOptions = {}): Promise<DistroOps> {
  switch (info.family) {
    case 'redhat': {
      const hasDnf = (await platform.exists('/usr/bin/dnf')) || (await platform.exists('/usr/bin/dnf5'));
      const hasYum = await platform.exists('/usr/bin/yum');
      return new RhelDistro(info, !hasDnf && hasYum, options);
    }
    case 'suse':
      return new SuseDistro(info, options);
    case 'alpine':
      return new AlpineDistro(info, options);
    case 'arch':
      return new ArchDistro(info, options);
    default:
      return new DebianDistro(info, options);
  }
}
