// A VMware customization spec's NICs and DNS turned into network config v1, as cloud-init 22.4's imc/config_nic.py does.
import type { CustNic, CustSpec } from '../config/vmware-cust-cfg';
import type { Obj } from './check';
import { maskToPrefix } from './ip';
import { NetworkConfigError } from './net-error';

/** The network GATEWAY lies in: each octet ANDed with the netmask's (cloud-init's gen_subnet). */
function subnetOf(gateway: string, netmask: string, key: string): string {
  const g = gateway.split('.').map(Number);
  const m = netmask.split('.').map(Number);
  if (g.length !== 4 || m.length !== 4 || [...g, ...m].some((n) => !Number.isInteger(n) || n < 0 || n > 255)) throw new NetworkConfigError(key, `gateway '${gateway}' with netmask '${netmask}' is not IPv4`);
  return g.map((n, i) => n & (m[i] as number)).join('.');
}

function ipv4Subnet(nic: CustNic, hasPrimary: boolean, key: string): Obj {
  const subnet: Obj = {};
  if (nic.onboot) subnet.control = 'auto';
  // cloud-init turns IPv4_MODE=DISABLED into BOOTPROTO 'manual', which its next test (not static) makes DHCP: the same here.
  const proto = nic.ipv4Mode === 'disabled' ? 'manual' : nic.bootProto;
  if (proto !== 'static') return { ...subnet, type: 'dhcp' };
  subnet.type = 'static';
  const v4 = nic.ipv4;
  if (!v4) return subnet;
  if (v4.address) subnet.address = v4.address;
  if (v4.netmask) subnet.netmask = v4.netmask;
  const gateways = v4.gateways ?? [];
  if (nic.primary && gateways.length > 0) return { ...subnet, gateway: gateways[0] };
  // Without a primary NIC every gateway becomes a route to its own network, metric 10000 (cloud-init's gen_ipv4_route).
  if (!hasPrimary && gateways.length > 0) {
    const netmask = v4.netmask ?? '';
    const prefix = maskToPrefix(netmask);
    if (prefix === undefined) throw new NetworkConfigError(`${key}.NETMASK`, `'${netmask}' is not a netmask`);
    subnet.routes = gateways.map((gateway) => ({ destination: `${subnetOf(gateway, netmask, `${key}.GATEWAY`)}/${prefix}`, type: 'route', gateway, metric: 10000 }));
  }
  return subnet;
}

/**
 * SPEC's network as v1. MACS maps a lower-case MAC to this machine's interface name; without it (net-convert) the
 * NIC's section name (`NIC1`) names the interface, as cloud-init's net-convert does. IPv6 gateways are not used,
 * as in cloud-init 22.4.
 */
export function convertVmwareImcNetwork(spec: CustSpec, macs?: Map<string, string>): { version: 1; config: Obj[] } {
  if (spec.nics.length === 0) throw new NetworkConfigError('cust.cfg NIC-CONFIG.NICS', 'no NICs are listed');
  const primaries = spec.nics.filter((n) => n.primary);
  if (primaries.length > 1) throw new NetworkConfigError('cust.cfg', `only one NIC may be PRIMARY, not ${primaries.map((n) => n.name).join(' and ')}`);
  const config: Obj[] = [];
  for (const nic of spec.nics) {
    const key = `cust.cfg ${nic.name}`;
    const name = macs ? macs.get(nic.mac) : nic.name;
    if (!name) throw new NetworkConfigError(`${key}.MACADDR`, `no interface of this machine has MAC ${nic.mac}`);
    const subnets: Obj[] = [ipv4Subnet(nic, primaries.length > 0, key)];
    nic.ipv6.forEach((v6, i) => {
      if (!v6.address) throw new NetworkConfigError(`${key}.IPv6ADDR|${i + 1}`, 'is missing or empty');
      subnets.push({ type: 'static6', address: v6.address, ...(v6.netmask ? { netmask: v6.netmask } : {}) });
    });
    config.push({ type: 'physical', name, mac_address: nic.mac, subnets });
  }
  if (spec.nameServers.length > 0 || spec.dnsSuffixes.length > 0) config.push({ type: 'nameserver', address: spec.nameServers, search: spec.dnsSuffixes });
  return { version: 1, config };
}
