// Which files each renderer writes on each distro family, as cloud-init's distro classes set them.
import type { RendererConfig, RendererName } from './renderer';

export const NETWORK_FILE_HEADER = `# This file is generated from information provided by the datasource.  Changes
# to it will not persist across an instance reboot.  To disable cloud-init's
# network configuration capabilities, write a file
# /etc/cloud/cloud.cfg.d/99-disable-network-config.cfg with the following:
# network: {config: disabled}
`;

const RHEL_SYSCONFIG: RendererConfig = {
  flavor: 'rhel',
  control: '/etc/sysconfig/network',
  ifaceTemplate: '{base}/network-scripts/ifcfg-{name}',
  routeTemplates: { ipv4: '{base}/network-scripts/route-{name}', ipv6: '{base}/network-scripts/route6-{name}' },
  netrulesPath: '/etc/udev/rules.d/70-persistent-net.rules',
};
const SUSE_SYSCONFIG: RendererConfig = {
  flavor: 'suse',
  control: '/etc/sysconfig/network/config',
  ifaceTemplate: '{base}/network/ifcfg-{name}',
  routeTemplates: { ipv4: '{base}/network/ifroute-{name}', ipv6: '{base}/network/ifroute-{name}' },
  netrulesPath: '/etc/udev/rules.d/85-persistent-net-cloud-init.rules',
};

const REDHAT = [
  'almalinux',
  'amazon',
  'centos',
  'cloudlinux',
  'eurolinux',
  'fedora',
  'mariner',
  'miraclelinux',
  'openeuler',
  'openmandriva',
  'photon',
  'rhel',
  'rocky',
  'virtuozzo',
];
const SUSE = [
  'opensuse',
  'opensuse-leap',
  'opensuse-microos',
  'opensuse-tumbleweed',
  'sle_hpc',
  'sle-micro',
  'sles',
  'suse',
];

/** Every distro name `-D` accepts (cloud-init's OSFAMILIES). */
export const KNOWN_DISTROS = [
  'alpine',
  'arch',
  'debian',
  'ubuntu',
  'freebsd',
  'dragonfly',
  'gentoo',
  'cos',
  'netbsd',
  'openbsd',
  ...REDHAT,
  ...SUSE,
];

export function distroFamily(distro: string): 'debian' | 'redhat' | 'suse' | 'other' {
  if (distro === 'debian' || distro === 'ubuntu') return 'debian';
  if (REDHAT.includes(distro)) return 'redhat';
  if (SUSE.includes(distro)) return 'suse';
  return 'other';
}

/**
 * The config for RENDERER on DISTRO. Where cloud-init's distro has none (it then crashes or writes to odd
 * places, e.g. sysconfig on Debian), kiln uses the renderer's own defaults.
 */
export function rendererConfigFor(distro: string, renderer: RendererName): RendererConfig {
  const family = distroFamily(distro);
  switch (renderer) {
    case 'eni':
      return family === 'debian'
        ? {
            eniPath:
              distro === 'ubuntu'
                ? '/etc/network/interfaces.d/50-cloud-init.cfg'
                : '/etc/network/interfaces.d/50-cloud-init',
            header: NETWORK_FILE_HEADER,
            netrulesPath: '/etc/udev/rules.d/70-persistent-net.rules',
          }
        : { eniPath: '/etc/network/interfaces', netrulesPath: '/etc/udev/rules.d/70-persistent-net.rules' };
    case 'netplan':
      return family === 'debian'
        ? { netplanPath: '/etc/netplan/50-cloud-init.yaml', header: NETWORK_FILE_HEADER }
        : { netplanPath: '/etc/netplan/50-cloud-init.yaml' };
    case 'sysconfig':
      return { ...(family === 'suse' ? SUSE_SYSCONFIG : RHEL_SYSCONFIG) };
    default:
      return {};
  }
}
