// Facts about the target's distribution that modules and the runner read (cloud-init's distro name, osfamily, version).

/** Facts about the target's distribution, read from /etc/os-release under the root. */
export interface DistroInfo {
  /**
   * cloud-init's distro name: 'debian', 'ubuntu', 'rhel', 'fedora', 'centos', 'rocky', 'almalinux', 'opensuse', 'sles',
   * 'alpine', 'arch' …
   */
  name: string;
  /** cloud-init's osfamily: 'debian', 'redhat', 'suse', 'alpine', 'arch'. */
  family: 'debian' | 'redhat' | 'suse' | 'alpine' | 'arch' | 'unknown';
  version: string;
  /** os-release VERSION_CODENAME ('bookworm'), when the distribution has one. */
  codename?: string;
  /**
   * os-release ID as the target writes it ('linuxmint' where name is 'ubuntu'): instance data reports it, as
   * cloud-init's.
   */
  osReleaseId?: string;
}
