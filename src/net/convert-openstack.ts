// OpenStack network_data.json (links, networks, services) converted to network config v1, as cloud-init does.
import { isObj, list, obj, str, type Obj } from './check';
import { isIpAddress, maskToPrefix } from './ip';
import { NetworkConfigError } from './net-error';

const PHYSICAL_KEYS = ['name', 'type', 'mac_address', 'subnets', 'params', 'mtu'];
const SUBNET_KEYS = [
  'type',
  'address',
  'netmask',
  'broadcast',
  'metric',
  'gateway',
  'pointopoint',
  'scope',
  'dns_nameservers',
  'dns_search',
];
/** What a network's routes keep (cloud-init 25.1 drops the rest, e.g. a route's `services`). */
const ROUTE_KEYS = ['network', 'destination', 'netmask', 'gateway', 'metric'];

/** The `dns` services' addresses in LIST (a network's or a route's `services`), in order. */
function dnsServices(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((svc): svc is Obj => isObj(svc) && svc.type === 'dns' && svc.address !== undefined)
    .map((svc) => String(svc.address));
}

/** MACS maps a lower-case MAC to the interface name on this machine (names links that carry none). */
export function convertOpenStackNetworkData(input: unknown, macs: Map<string, string>): { version: 1; config: Obj[] } {
  const key = 'network_data.json';
  const doc = obj(input, key);
  const links = doc.links === undefined ? [] : list(doc.links, `${key}.links`);
  const networks = doc.networks === undefined ? [] : list(doc.networks, `${key}.networks`);
  const services = doc.services === undefined ? [] : list(doc.services, `${key}.services`);
  const config: Obj[] = [];
  const info = new Map<string, { name?: string; mac?: string }>();
  const updates: Array<() => void> = [];
  let bondNumber = 0;
  links.forEach((raw, i) => {
    const k = `${key}.links[${i}]`;
    const link = obj(raw, k);
    const id = str(link.id, `${k}.id`);
    const cfg: Obj = {};
    for (const [lk, lv] of Object.entries(link)) if (PHYSICAL_KEYS.includes(lk)) cfg[lk] = lv;
    const mac = link.ethernet_mac_address
      ? str(link.ethernet_mac_address, `${k}.ethernet_mac_address`).toLowerCase()
      : undefined;
    const cur: { name?: string; mac?: string } = {
      ...(typeof cfg.name === 'string' ? { name: cfg.name } : {}),
      ...(mac ? { mac } : {}),
    };
    const subnets: Obj[] = [];
    networks.forEach((nraw, j) => {
      const nk = `${key}.networks[${j}]`;
      const net = obj(nraw, nk);
      if (net.link !== id) return;
      const subnet: Obj = {};
      for (const [sk, sv] of Object.entries(net)) if (SUBNET_KEYS.includes(sk)) subnet[sk] = sv;
      const type = str(net.type, `${nk}.type`);
      if (
        ['ipv4', 'static', 'ipv6', 'static6'].includes(type) &&
        !isIpAddress(String(net.ip_address ?? '').split('/')[0] as string)
      ) {
        throw new NetworkConfigError(`${nk}.ip_address`, `'${String(net.ip_address)}' is not an IP address`);
      }
      if (net.netmask !== undefined && maskToPrefix(String(net.netmask)) === undefined)
        throw new NetworkConfigError(`${nk}.netmask`, `'${String(net.netmask)}' is not a netmask`);
      const routes =
        net.routes === undefined ? [] : list(net.routes, `${nk}.routes`).map((r, ri) => obj(r, `${nk}.routes[${ri}]`));
      routes.forEach((ro, ri) => {
        if (!isIpAddress(String(ro.network)))
          throw new NetworkConfigError(`${nk}.routes[${ri}].network`, `'${String(ro.network)}' is not an IP address`);
        if (ro.gateway !== undefined && !isIpAddress(String(ro.gateway)))
          throw new NetworkConfigError(`${nk}.routes[${ri}].gateway`, `'${String(ro.gateway)}' is not an IP address`);
      });
      if (routes.length)
        subnet.routes = routes.map((ro) =>
          Object.fromEntries(Object.entries(ro).filter(([rk]) => ROUTE_KEYS.includes(rk))),
        );
      if (type === 'ipv4_dhcp') subnet.type = 'dhcp4';
      else if (type === 'ipv6_dhcp') subnet.type = 'dhcp6';
      else if (type === 'ipv6_slaac' || type === 'ipv6_dhcpv6-stateless' || type === 'ipv6_dhcpv6-stateful')
        subnet.type = type;
      else if (type === 'ipv4' || type === 'static') Object.assign(subnet, { type: 'static', address: net.ip_address });
      else if (type === 'ipv6' || type === 'static6') {
        cfg['accept-ra'] = false;
        Object.assign(subnet, { type: 'static6', address: net.ip_address });
      } else throw new NetworkConfigError(`${nk}.type`, `unknown network type '${type}'`);
      // The DNS servers of the network's routes, then the network's own: the subnet's (cloud-init 25.1).
      const dns = routes.flatMap((ro) => dnsServices(ro.services));
      for (const a of dnsServices(net.services)) if (!dns.includes(a)) dns.push(a);
      if (dns.length) subnet.dns_nameservers = dns;
      if (type === 'ipv6_dhcpv6-stateful' || type === 'ipv6_dhcp') cfg['accept-ra'] = true;
      if (type === 'ipv4') subnet.ipv4 = true;
      if (type === 'ipv6') subnet.ipv6 = true;
      subnets.push(subnet);
    });
    cfg.subnets = subnets;
    const type = link.type;
    if (type === 'bond') {
      const params: Obj = {};
      if (mac) cfg.mac_address = mac;
      // network_data.json spells bond options `bond_mode`; cloud-init's are `bond-mode` (translated since 25.1: what
      // follows the first `bond_`, or the whole key).
      for (const [lk, lv] of Object.entries(link)) {
        if (lk === 'bond_links' || !lk.startsWith('bond')) continue;
        const at = lk.indexOf('bond_');
        params[`bond-${at < 0 ? lk : lk.slice(at + 'bond_'.length)}`] = lv;
      }
      const name = `bond${bondNumber++}`;
      const members = list(link.bond_links ?? [], `${k}.bond_links`).map((m, j) => str(m, `${k}.bond_links[${j}]`));
      updates.push(() => {
        cfg.bond_interfaces = members.map((m, j) => {
          const n = info.get(m)?.name;
          if (!n)
            throw new NetworkConfigError(
              `${k}.bond_links[${j}]`,
              `link '${m}' has no interface name (no link with that id, or its MAC is not on this machine)`,
            );
          return n;
        });
      });
      Object.assign(cfg, { params, name });
      cur.name = name;
    } else if (type === 'vlan') {
      const vlanLink = str(link.vlan_link, `${k}.vlan_link`);
      const name = `${vlanLink}.${String(link.vlan_id)}`;
      Object.assign(cfg, { name, vlan_id: link.vlan_id, mac_address: link.vlan_mac_address });
      updates.push(() => {
        const n = info.get(vlanLink)?.name;
        if (!n) throw new NetworkConfigError(`${k}.vlan_link`, `link '${vlanLink}' has no interface name`);
        cfg.vlan_link = n;
        cfg.name = `${n}.${String(link.vlan_id)}`;
      });
      cur.mac = String(link.vlan_mac_address);
      cur.name = name;
    } else {
      // Any other link type (phy, ovs, tap, vif … or one cloud-init does not know) is a physical NIC, as in cloud-init.
      Object.assign(cfg, { type: 'physical', mac_address: mac });
      if (cfg.mac_address === undefined) delete cfg.mac_address;
    }
    config.push(cfg);
    info.set(id, cur);
  });
  for (const [, cur] of info) if (!cur.name && cur.mac && macs.has(cur.mac)) cur.name = macs.get(cur.mac);
  config.forEach((cfg, i) => {
    if (cfg.type !== 'physical' || 'name' in cfg) return;
    const mac = cfg.mac_address as string | undefined;
    if (!mac) throw new NetworkConfigError(`${key}.links[${i}]`, 'link has neither a name nor an ethernet_mac_address');
    const name = macs.get(mac);
    if (!name)
      throw new NetworkConfigError(
        `${key}.links[${i}].ethernet_mac_address`,
        `no interface on this machine has MAC ${mac}`,
      );
    cfg.name = name;
  });
  for (const u of updates) u();
  services.forEach((s, i) => {
    const svc = { ...obj(s, `${key}.services[${i}]`) };
    svc.type = 'nameserver';
    config.push(svc);
  });
  return { version: 1, config };
}

export function looksLikeOpenStack(v: unknown): boolean {
  return isObj(v) && ('links' in v || 'networks' in v);
}
