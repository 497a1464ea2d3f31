// netplan renderer: /etc/netplan/50-cloud-init.yaml; v2 input passes through, v1 is translated as cloud-init does.
import { BOND_V2_TO_V1, BRIDGE_V2_TO_V1 } from '../parse-v2';
import type { Interface, NetworkState } from '../model';
import { isIpv6Subnet } from '../model';
import { gatewayIsOnLink } from '../ip';
import { pyyamlDump } from '../../config/pyyaml-dump';
import type { NetworkRenderer, RenderedFile, RendererConfig } from '../renderer';

type Entry = Record<string, unknown>;

const BOND_V1_TO_V2 = Object.fromEntries(
  Object.entries(BOND_V2_TO_V1)
    .filter(([k]) => k !== 'gratuitious-arp' && k !== 'arp-ip-targets')
    .map(([k, v]) => [v, k]),
);
const BRIDGE_V1_TO_V2 = Object.fromEntries(Object.entries(BRIDGE_V2_TO_V1).map(([k, v]) => [v, k]));

function splitList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return v.includes(' ') ? v.split(' ') : [v];
  return [];
}

function addAddresses(iface: Interface, entry: Entry, features: string[]): void {
  const addresses: string[] = [];
  const routes: Entry[] = [];
  const nameservers: string[] = [];
  const search: string[] = [];
  for (const s of iface.subnets) {
    if (s.type.startsWith('dhcp')) entry[s.type === 'dhcp' ? 'dhcp4' : s.type] = true;
    else if (s.type === 'ipv6_slaac' || s.type.startsWith('ipv6_dhcpv6')) entry.dhcp6 = true;
    else if (s.type === 'static' || s.type === 'static6') {
      const address = s.prefix !== undefined ? `${s.address}/${s.prefix}` : String(s.address);
      addresses.push(address);
      // 25.1 writes the subnet's gateway as a default route (netplan deprecates gateway4/gateway6), on-link when
      // the gateway is outside the subnet.
      if (s.gateway)
        routes.push({
          via: s.gateway,
          to: 'default',
          ...(gatewayIsOnLink(s.gateway, address) ? { 'on-link': true } : {}),
        });
      if (s.dns_nameservers) nameservers.push(...splitList(s.dns_nameservers));
      if (s.dns_search) search.push(...splitList(s.dns_search));
      if (s.mtu !== undefined) entry[isIpv6Subnet(s) && features.includes('ipv6-mtu') ? 'ipv6-mtu' : 'mtu'] = s.mtu;
      for (const r of s.routes)
        routes.push({
          via: r.gateway,
          to: `${r.network}/${r.prefix}`,
          ...(r.metric !== undefined ? { metric: r.metric } : {}),
        });
    }
  }
  if (iface.mtu !== undefined && iface.mtu !== null) {
    if (!(entry.mtu && entry.mtu !== iface.mtu)) entry.mtu = iface.mtu;
  }
  if (addresses.length) entry.addresses = addresses;
  if (routes.length) entry.routes = routes;
  if (nameservers.length) entry.nameservers = { addresses: nameservers };
  if (search.length) entry.nameservers = { ...((entry.nameservers as Entry | undefined) ?? {}), search };
  if (iface['accept-ra'] !== undefined && iface['accept-ra'] !== null) entry['accept-ra'] = iface['accept-ra'];
}

function paramsWith(iface: Interface, prefixes: string[]): Array<[string, unknown]> {
  return Object.entries(iface).filter(
    ([k, v]) => v !== undefined && v !== null && prefixes.some((p) => k.startsWith(p)),
  );
}

export function renderNetplanContent(ns: NetworkState, features: string[]): string {
  if (ns.version === 2 && ns.v2) return pyyamlDump({ network: ns.v2 });
  const sections: Record<string, Record<string, Entry>> = {
    ethernets: {},
    wifis: {},
    bonds: {},
    bridges: {},
    vlans: {},
  };
  const ifaces = [...ns.interfaces.values()];
  for (const iface of ifaces) {
    const name = iface.name;
    if (iface.type === 'physical') {
      const eth: Entry = {};
      if (iface.match !== undefined && iface.match !== null) eth.match = iface.match;
      else if (iface.mac_address) eth.match = { macaddress: iface.mac_address.toLowerCase() };
      if (eth.match !== undefined) eth['set-name'] = name;
      addAddresses(iface, eth, features);
      (sections.ethernets as Record<string, Entry>)[name] = eth;
    } else if (iface.type === 'bond') {
      const bond: Entry = {};
      const params: Entry = {};
      for (const [k, v] of paramsWith(iface, ['bond_', 'bond-'])) {
        const v2 = BOND_V1_TO_V2[k.replace(/_/g, '-')];
        if (v2) params[v2] = v;
      }
      if (Object.keys(params).length) bond.parameters = params;
      if (iface.mac_address) bond.macaddress = iface.mac_address.toLowerCase();
      if (iface['bond-slaves'] === 'none') {
        const members = ifaces
          .filter((i) => i['bond-master'] === name)
          .map((i) => i.name)
          .sort();
        if (members.length) bond.interfaces = members;
      }
      addAddresses(iface, bond, features);
      (sections.bonds as Record<string, Entry>)[name] = bond;
    } else if (iface.type === 'bridge') {
      const bridge: Entry = { interfaces: [...(iface.bridge_ports ?? [])].sort() };
      const params: Entry = {};
      for (const [k, v] of paramsWith(iface, ['bridge_'])) {
        const v2 = BRIDGE_V1_TO_V2[k];
        if (!v2) continue;
        if (v2 === 'path-cost' || v2 === 'port-priority') {
          const per: Entry = {};
          for (const item of v as string[]) {
            const [port, val] = String(item).split(/\s+/);
            per[port as string] = Number(val);
          }
          params[v2] = per;
        } else params[v2] = v;
      }
      if (Object.keys(params).length) bridge.parameters = params;
      if (iface.mac_address) bridge.macaddress = iface.mac_address.toLowerCase();
      addAddresses(iface, bridge, features);
      (sections.bridges as Record<string, Entry>)[name] = bridge;
    } else if (iface.type === 'vlan') {
      const vlan: Entry = { id: iface.vlan_id, link: iface['vlan-raw-device'] };
      if (iface.mac_address) vlan.macaddress = iface.mac_address.toLowerCase();
      addAddresses(iface, vlan, features);
      (sections.vlans as Record<string, Entry>)[name] = vlan;
    }
  }
  if (ns.dns.nameservers.length || ns.dns.search.length) {
    for (const section of Object.values(sections)) {
      for (const cfg of Object.values(section)) {
        if ('nameservers' in cfg || !('addresses' in cfg)) continue;
        cfg.nameservers = { addresses: ns.dns.nameservers, search: ns.dns.search };
      }
    }
  }
  let out = 'network:\n    version: 2\n';
  for (const name of ['ethernets', 'wifis', 'bonds', 'bridges', 'vlans']) {
    const section = sections[name] as Record<string, Entry>;
    if (Object.keys(section).length === 0) continue;
    out += pyyamlDump({ [name]: section }).replace(/^(?=.)/gm, '    ');
  }
  return out;
}

export const netplanRenderer: NetworkRenderer = {
  name: 'netplan',
  render(ns: NetworkState, cfg: RendererConfig): RenderedFile[] {
    let header = cfg.header ?? '';
    if (!header.endsWith('\n')) header += '\n';
    // Root-only, as 25.1 writes it (netplan's API, or its own fallback with NETPLAN_CONFIG_ROOT_READ_ONLY): v2 passes
    // wifi passwords through.
    return [
      {
        path: cfg.netplanPath ?? '/etc/netplan/50-cloud-init.yaml',
        content: header + renderNetplanContent(ns, cfg.features ?? []),
        mode: 0o600,
      },
    ];
  },
};
