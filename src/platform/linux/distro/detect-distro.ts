// The one os-release → distro table: finds the target's distro (cloud-init's name and osfamily) from /etc/os-release
// under the root, and its DistroOps.
import type { DistroInfo } from './distro-info';
import { readOsRelease } from '../../os-release';
import type { Platform } from '../../platform';
import { AlpineDistro } from './alpine';
import { ArchDistro } from './arch';
import { DebianDistro } from './debian';
import type { DistroOps, DistroOptions } from './distro';
import { RhelDistro } from './rhel';
import { SuseDistro } from './suse';

type Family = DistroInfo['family'];

/**
 * cloud-init's distro name and osfamily (distros.OSFAMILIES) for the os-release IDs kiln knows. Derivatives are
 * not listed: they name what they are built on in ID_LIKE (Linux Mint and Pop!_OS "ubuntu debian", Manjaro
 * "arch"), and take that distro's name, as cloud-init's variant maps Mint to ubuntu.
 */
const KNOWN_IDS: Record<string, { name: string; family: Family }> = {
  debian: { name: 'debian', family: 'debian' },
  ubuntu: { name: 'ubuntu', family: 'debian' },
  // Named by Raspberry Pi OS's cloud.cfg (system_info.distro); upstream's distro class is Debian's.
  'raspberry-pi-os': { name: 'raspberry-pi-os', family: 'debian' },
  rhel: { name: 'rhel', family: 'redhat' },
  centos: { name: 'centos', family: 'redhat' },
  fedora: { name: 'fedora', family: 'redhat' },
  rocky: { name: 'rocky', family: 'redhat' },
  almalinux: { name: 'almalinux', family: 'redhat' },
  cloudlinux: { name: 'cloudlinux', family: 'redhat' },
  eurolinux: { name: 'eurolinux', family: 'redhat' },
  miraclelinux: { name: 'miraclelinux', family: 'redhat' },
  virtuozzo: { name: 'virtuozzo', family: 'redhat' },
  azurelinux: { name: 'azurelinux', family: 'redhat' },
  mariner: { name: 'mariner', family: 'redhat' },
  openeuler: { name: 'openeuler', family: 'redhat' },
  // Oracle Linux runs cloud-init's rhel distro; Amazon Linux its amazon distro.
  ol: { name: 'rhel', family: 'redhat' },
  amzn: { name: 'amazon', family: 'redhat' },
  // openSUSE releases share cloud-init's opensuse distro (and the module lists that name it).
  opensuse: { name: 'opensuse', family: 'suse' },
  'opensuse-leap': { name: 'opensuse', family: 'suse' },
  'opensuse-tumbleweed': { name: 'opensuse', family: 'suse' },
  'opensuse-microos': { name: 'opensuse', family: 'suse' },
  sles: { name: 'sles', family: 'suse' },
  sle_hpc: { name: 'sle_hpc', family: 'suse' },
  'sle-micro': { name: 'sle-micro', family: 'suse' },
  suse: { name: 'suse', family: 'suse' },
  alpine: { name: 'alpine', family: 'alpine' },
  arch: { name: 'arch', family: 'arch' },
};

/**
 * os-release's release codename: VERSION_CODENAME, else the word in parentheses of VERSION, as cloud-init's
 * get_linux_distro.
 */
function codenameOf(rel: Record<string, string>): string | undefined {
  if (rel.VERSION_CODENAME) return rel.VERSION_CODENAME;
  return /^[^ ]+ \(([^)]+)\)/.exec(rel.VERSION ?? '')?.[1];
}

/**
 * The distro for os-release fields: ID when kiln knows it, else the first word of ID_LIKE it knows (every word
 * is tried, in order). CONFIGURED (cloud.cfg's system_info.distro) names the distro when given, as in cloud-init.
 */
export function distroInfoFromOsRelease(rel: Record<string, string>, configured?: string): DistroInfo {
  const id = (rel.ID ?? '').toLowerCase();
  const candidates = [id, ...(rel.ID_LIKE ?? '').toLowerCase().split(/\s+/)].filter(Boolean);
  const found = candidates.map((c) => KNOWN_IDS[c]).find((k) => k !== undefined);
  const wanted = configured?.toLowerCase();
  const name = wanted ?? found?.name ?? (id || 'unknown');
  const family = (wanted !== undefined ? KNOWN_IDS[wanted]?.family : undefined) ?? found?.family ?? 'unknown';
  const codename = codenameOf(rel);
  return {
    name,
    family,
    version: rel.VERSION_ID ?? '',
    ...(codename ? { codename } : {}),
    ...(id ? { osReleaseId: id } : {}),
  };
}

/** The target's distro from its os-release and, when CONFIG sets system_info.distro, that name. */
export async function detectDistro(platform: Platform, config: Record<string, unknown> = {}): Promise<DistroInfo> {
  const sys = (config.system_info ?? {}) as Record<string, unknown>;
  return distroInfoFromOsRelease(
    await readOsRelease(platform),
    typeof sys.distro === 'string' ? sys.distro : undefined,
  );
}

/**
 * The family's operations for INFO. An unknown family gets Debian's shadow-utils behaviour for users and apt
 * for packages, which is what cloud-init falls back to as well ('ubuntu'/debian defaults).
 */
export async function distroOpsFor(
  platform: Platform,
  info: DistroInfo,
  options: DistroOptions = {},
): Promise<DistroOps> {
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
