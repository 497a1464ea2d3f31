// The network config DataSourceLXD gives when the instance config has none: DHCP on the NIC cloud-init would pick.
import { candidateNics } from '../../net/fallback';
import { readSysClassNet } from '../../net/sys-class-net';
import type { Platform } from '../../platform/platform';
import type { Log } from '../../util/log';
import { detectVirt } from './detect-virt';

/** The NIC name LXD gives its first NIC when none is seen: eth0 in containers, the PCI slot name in VMs. */
export function defaultLxdNicName(virt: string | undefined, arch: string): string {
  if (virt !== 'kvm' && virt !== 'qemu') return 'eth0';
  if (arch === 'ppc64le') return 'enp0s5';
  if (arch === 's390x') return 'enc9';
  return 'enp5s0';
}

/**
 * cloud-init's generate_network_config: a v1 config, DHCP on the first connected NIC in /sys/class/net
 * (find_fallback_nic), else on the name LXD's instance type implies (systemd-detect-virt and the machine).
 * LXD's /1.0/devices names the host side's devices, not the guest's interfaces, so cloud-init does not use them
 * for the name, and neither does kiln.
 */
export async function lxdFallbackNetworkConfig(
  platform: Platform,
  log: Log,
  arch: string = platform.uname().machine,
): Promise<Record<string, unknown>> {
  let nic = candidateNics(await readSysClassNet(platform))[0];
  if (nic) log.debug(`LXD datasource generating network from discovered active device: ${nic}`);
  else {
    nic = defaultLxdNicName(await detectVirt(platform, log), arch);
    log.debug(`LXD datasource generating network from systemd-detect-virt platform default device: ${nic}`);
  }
  return { version: 1, config: [{ type: 'physical', name: nic, subnets: [{ type: 'dhcp', control: 'auto' }] }] };
}
