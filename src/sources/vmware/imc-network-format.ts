// A VMware customization spec's NICs and DNS turned into network config v2, as cloud-init 25.1's imc/config_nic.py
// does.
import { readCustSpec, type CustNic, type CustSpec } from '../../config/vmware-cust-cfg';
import type { Obj } from '../../net/check';
import { isIPv4, isIPv6, maskToPrefix, networkOf } from '../../net/ip';
import { NetworkConfigError } from '../../net/net-error';
import type { NetworkFormat } from '../../net/network-format';

function ipv4Prefix(nic: CustNic, key: string): number {
  const netmask = nic.ipv4?.netmask;
  // No NETMASK: the address stands alone (/32), as in cloud-init.
  if (netmask === undefined) return 32;
  const prefix = maskToPrefix(netmask);
  if (prefix === undefined || prefix > 32 || (!/^\d+$/.test(netmask) && !isIPv4(netmask)))
    throw new NetworkConfigError(`${key}.NETMASK`, `'${netmask}' is not a netmask`);
  return prefix;
}

function ipv6Prefix(netmask: string | undefined, key: string): number {
  if (netmask === undefined) throw new NetworkConfigError(key, 'is missing or empty');
  const prefix = maskToPrefix(netmask);
  if (prefix === undefined || prefix > 128 || (!/^\d+$/.test(netmask) && !isIPv6(netmask)))
    throw new NetworkConfigError(key, `'${netmask}' is not an IPv6 prefix or netmask`);
  return prefix;
}

function checkIp(addr: string, v6: boolean, key: string): string {
  if (!(v6 ? isIPv6(addr) : isIPv4(addr)))
    throw new NetworkConfigError(key, `'${addr}' is not an IPv${v6 ? 6 : 4} address`);
  return addr;
}

/**
 * One NIC's ethernet entry: the keys in cloud-init's order (match, set-name, wakeonlan, dhcp4, dhcp6, addresses,
 * routes, nameservers).
 */
function ethernet(nic: CustNic, spec: CustSpec, hasPrimary: boolean, key: string): Obj {
  const dev: Obj = { match: { macaddress: nic.mac } };
  // ONBOOT is read as wake-on-LAN by cloud-init 25.1 (22.4 read it as `control: auto`).
  dev.wakeonlan = nic.onboot;
  // IPv4_MODE=DISABLED counts as not static, so DHCP, as in cloud-init.
  const proto = nic.ipv4Mode === 'disabled' ? 'manual' : nic.bootProto;
  if (proto !== 'static') {
    dev.dhcp4 = true;
    if (spec.nameServers.length || spec.dnsSuffixes.length) dev['dhcp4-overrides'] = { 'use-dns': false };
  } else dev.dhcp4 = false;
  if (nic.ipv6.length) dev.dhcp6 = false;
  const addresses: string[] = [];
  const routes: Obj[] = [];
  const v4 = nic.bootProto === 'static' ? nic.ipv4 : undefined;
  if (v4) {
    const prefix = ipv4Prefix(nic, key);
    if (v4.address) addresses.push(`${checkIp(v4.address, false, `${key}.IPADDR`)}/${prefix}`);
    const gateways = (v4.gateways ?? []).map((g) => checkIp(g, false, `${key}.GATEWAY`));
    if (nic.primary && gateways.length) routes.push({ to: '0.0.0.0/0', via: gateways[0] });
    // Without a primary NIC each gateway is a route to its own network.
    if (!hasPrimary) for (const via of gateways) routes.push({ to: networkOf(via, prefix), via });
  }
  nic.ipv6.forEach((v6, i) => {
    const k = `${key}.IPv6ADDR|${i + 1}`;
    if (!v6.address) throw new NetworkConfigError(k, 'is missing or empty');
    const prefix = ipv6Prefix(v6.netmask, `${key}.IPv6NETMASK|${i + 1}`);
    addresses.push(`${checkIp(v6.address, true, k)}/${prefix}`);
    if (v6.gateway === undefined) return;
    const via = checkIp(v6.gateway, true, `${key}.IPv6GATEWAY|${i + 1}`);
    if (nic.primary) routes.push({ to: '::/0', via });
    if (!hasPrimary) routes.push({ to: networkOf(via, prefix), via });
  });
  if (addresses.length) dev.addresses = addresses;
  if (routes.length) dev.routes = routes;
  // The spec's DNS is every NIC's own.
  const nameservers: Obj = {};
  if (spec.dnsSuffixes.length) nameservers.search = [...spec.dnsSuffixes];
  if (spec.nameServers.length) nameservers.addresses = [...spec.nameServers];
  if (Object.keys(nameservers).length) dev.nameservers = nameservers;
  return dev;
}

/**
 * SPEC's network as v2. MACS maps a lower-case MAC to this machine's interface name; without it (net-convert) the
 * NIC's section name (`NIC1`) names the interface, as cloud-init's net-convert does.
 */
export function convertVmwareImcNetwork(
  spec: CustSpec,
  macs?: Map<string, string>,
): { version: 2; ethernets: Record<string, Obj> } {
  if (spec.nics.length === 0) throw new NetworkConfigError('cust.cfg NIC-CONFIG.NICS', 'no NICs are listed');
  const primaries = spec.nics.filter((n) => n.primary);
  if (primaries.length > 1)
    throw new NetworkConfigError(
      'cust.cfg',
      `only one NIC may be PRIMARY, not ${primaries.map((n) => n.name).join(' and ')}`,
    );
  const ethernets: Record<string, Obj> = {};
  for (const nic of spec.nics) {
    const key = `cust.cfg ${nic.name}`;
    const name = macs ? macs.get(nic.mac) : nic.name;
    if (!name) throw new NetworkConfigError(`${key}.MACADDR`, `no interface of this machine has MAC ${nic.mac}`);
    const { match, ...rest } = ethernet(nic, spec, primaries.length > 0, key);
    ethernets[name] = { match, 'set-name': name, ...rest };
  }
  return { version: 2, ethernets };
}

/**
 * cloud-init's 'vmware-imc' input (a cust.cfg's text, `devel net-convert -k vmware-imc`): NICs are named by their
 * section (NIC1 …) unless MACs name them; messages name the file it came from, then the document 'cust.cfg'.
 */
export const vmwareImcNetworkFormat: NetworkFormat = {
  name: 'vmware-imc',
  documentKey: 'cust.cfg',
  toNetworkConfig: (config, ctx) =>
    convertVmwareImcNetwork(readCustSpec(String(config), ctx.key ?? 'cust.cfg'), ctx.macs.size ? ctx.macs : undefined),
};
