// UpCloud's metadata `network` (interfaces with their IP addresses, and the DNS servers) converted to network config
// v1, as cloud-init's helpers/upcloud.py does.
import { isObj, list, obj, str, type Obj } from '../../net/check';
import { NetworkConfigError } from '../../net/net-error';
import type { NetworkFormat } from '../../net/network-format';

/** One address: DHCP (DHCPv6 stateless for IPv6) or static with the prefix of its network and its own DNS servers. */
function subnetFor(raw: unknown, key: string, dns: unknown): Obj {
  const ip = obj(raw, key);
  const v6 = ip.family === 'IPv6';
  if (ip.dhcp) return { type: v6 ? 'ipv6_dhcpv6-stateless' : 'dhcp' };
  const sub: Obj = { type: v6 ? 'static6' : 'static', control: 'auto', address: str(ip.address, `${key}.address`) };
  if (typeof ip.gateway === 'string' && ip.gateway) sub.gateway = ip.gateway;
  const network = typeof ip.network === 'string' ? ip.network : '';
  if (network.includes('/')) sub.netmask = network.split('/')[1];
  // Only DNS servers that differ from the global list are the address's own (cloud-init compares the lists).
  if (Array.isArray(ip.dns) && ip.dns.length > 0 && JSON.stringify(ip.dns) !== JSON.stringify(dns))
    sub.dns_nameservers = ip.dns;
  return sub;
}

/**
 * INPUT is the metadata's `network`; MACS maps this machine's lower-case MACs to interface names. Every
 * interface must be on the machine (cloud-init refuses the config otherwise); the global DNS servers come last.
 */
export function convertUpCloudNetwork(input: unknown, macs: Map<string, string>): Obj {
  const root = obj(input, 'upcloud.network');
  const config: Obj[] = [];
  list(root.interfaces, 'upcloud.network.interfaces').forEach((raw, i) => {
    const key = `upcloud.network.interfaces[${i}]`;
    const iface = obj(raw, key);
    const mac = str(iface.mac, `${key}.mac`);
    const name = macs.get(mac.toLowerCase());
    if (!name)
      throw new NetworkConfigError(
        `${key}.mac`,
        `no network interface on this machine has the MAC ${mac}; the configuration cannot be applied`,
      );
    const subnets = list(iface.ip_addresses, `${key}.ip_addresses`).map((ip, j) =>
      subnetFor(ip, `${key}.ip_addresses[${j}]`, root.dns),
    );
    config.push({ type: 'physical', name, mac_address: mac, subnets });
  });
  if (Array.isArray(root.dns) && root.dns.length > 0) config.push({ type: 'nameserver', address: root.dns });
  else if (root.dns !== undefined && root.dns !== null && !isObj(root.dns) && !Array.isArray(root.dns))
    throw new NetworkConfigError('upcloud.network.dns', 'must be a list of addresses');
  return { version: 1, config };
}

/** The 'upcloud' format the UpCloud source's network config is in. */
export const upcloudNetworkFormat: NetworkFormat = {
  name: 'upcloud',
  toNetworkConfig: (config, ctx) => convertUpCloudNetwork(config, ctx.macs),
};
