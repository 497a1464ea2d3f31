// The target's distribution as cloud-init names it (distro and osfamily), read from /etc/os-release.
import type { DistroInfo } from '../modules/module';
import { readOsRelease } from '../platform/os-release';
import type { Platform } from '../platform/platform';

const FAMILY: Record<string, DistroInfo['family']> = {
  debian: 'debian', ubuntu: 'debian', raspbian: 'debian', linuxmint: 'debian',
  rhel: 'redhat', centos: 'redhat', fedora: 'redhat', rocky: 'redhat', almalinux: 'redhat', ol: 'redhat', amzn: 'redhat', cloudlinux: 'redhat', eurolinux: 'redhat', virtuozzo: 'redhat', miraclelinux: 'redhat',
  opensuse: 'suse', 'opensuse-leap': 'suse', 'opensuse-tumbleweed': 'suse', sles: 'suse', sle_hpc: 'suse',
  alpine: 'alpine', arch: 'arch',
};

/** system_info.distro from the config wins; else os-release ID (opensuse-* folded to opensuse). */
export async function readDistroInfo(platform: Platform, config: Record<string, unknown>): Promise<DistroInfo> {
  const rel = await readOsRelease(platform);
  const sys = (config.system_info ?? {}) as Record<string, unknown>;
  const id = (typeof sys.distro === 'string' ? sys.distro : (rel.ID ?? 'unknown')).toLowerCase();
  const name = id.startsWith('opensuse') ? 'opensuse' : id;
  const family = FAMILY[id] ?? FAMILY[rel.ID_LIKE?.split(/\s+/)[0] ?? ''] ?? 'unknown';
  return { name, family, version: rel.VERSION_ID ?? '', ...(rel.VERSION_CODENAME ? { codename: rel.VERSION_CODENAME } : {}) };
}
