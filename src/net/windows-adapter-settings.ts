// The model turned into what the Windows platform sets per adapter (matched by MAC): addresses, gateways, DNS, MTU.
import { expandIpv6 } from './ip';
import type { NetworkState, Subnet } from './model';
import { isIpv6Subnet, isDefaultRoute } from './model';

export interface WindowsAddress {
  address: string;
  prefixLength: number;
  family: 'ipv4' | 'ipv6';
}

export interface WindowsRoute {
  destination: string;
  prefixLength: number;
  nextHop: string;
  metric?: number;
  family: 'ipv4' | 'ipv6';
}

/** One adapter's settings: cloudbase-init's network plugin sets these through the IP Helper / WMI calls. */
export interface WindowsAdapterSettings {
  /** Lower-case MAC with colons: the only way an adapter is identified. */
  mac: string;
  /** The name in the config (informational; Windows adapters keep their own names). */
  name: string;
  dhcp4: boolean;
  dhcp6: boolean;
  addresses: WindowsAddress[];
  /** Default gateways (one per family at most). */
  gateways: Array<{ address: string; family: 'ipv4' | 'ipv6'; metric?: number }>;
  routes: WindowsRoute[];
  dnsServers: string[];
  dnsSearch: string[];
  mtu?: number;
}

export interface WindowsNetworkPlan {
  adapters: WindowsAdapterSettings[];
  /** Parts of the config Windows does not apply here, each with why (never silently dropped). */
  skipped: Array<{ name: string; reason: string }>;
}

function family(s: Subnet): 'ipv4' | 'ipv6' {
  return isIpv6Subnet(s) ? 'ipv6' : 'ipv4';
}

export function toWindowsAdapterSettings(ns: NetworkState): WindowsNetworkPlan {
  const plan: WindowsNetworkPlan = { adapters: [], skipped: [] };
  for (const iface of ns.interfaces.values()) {
    if (iface.type === 'loopback' || iface.name === 'lo') continue;
    if (iface.type !== 'physical') {
      plan.skipped.push({ name: iface.name, reason: `${iface.type} interfaces are not configured on Windows by kiln` });
      continue;
    }
    if (!iface.mac_address) {
      plan.skipped.push({ name: iface.name, reason: 'no MAC address: Windows adapters are matched by MAC only' });
      continue;
    }
    if (iface['bond-master']) {
      plan.skipped.push({
        name: iface.name,
        reason: `member of bond ${String(iface['bond-master'])}, which Windows does not get`,
      });
      continue;
    }
    const a: WindowsAdapterSettings = {
      mac: iface.mac_address.toLowerCase(),
      name: iface.name,
      dhcp4: false,
      dhcp6: false,
      addresses: [],
      gateways: [],
      routes: [],
      dnsServers: [],
      dnsSearch: [],
    };
    let mtu = iface.mtu ?? undefined;
    for (const s of iface.subnets) {
      if (s.type === 'dhcp' || s.type === 'dhcp4') a.dhcp4 = true;
      else if (
        s.type === 'dhcp6' ||
        s.type === 'ipv6_dhcpv6-stateful' ||
        s.type === 'ipv6_dhcpv6-stateless' ||
        s.type === 'ipv6_slaac'
      )
        a.dhcp6 = true;
      else if (s.type === 'static' || s.type === 'static6') {
        const fam = family(s);
        a.addresses.push({ address: s.address as string, prefixLength: s.prefix as number, family: fam });
        if (s.gateway && !a.gateways.some((g) => g.family === fam))
          a.gateways.push({ address: s.gateway, family: fam, ...(s.metric !== undefined ? { metric: s.metric } : {}) });
        if (s.mtu !== undefined && fam === 'ipv4') mtu = s.mtu;
      }
      for (const r of s.routes) {
        const fam = r.network.includes(':') ? 'ipv6' : 'ipv4';
        if (isDefaultRoute(r) && r.gateway) {
          if (!a.gateways.some((g) => g.family === fam))
            a.gateways.push({
              address: r.gateway,
              family: fam,
              ...(r.metric !== undefined ? { metric: r.metric } : {}),
            });
        } else if (r.gateway)
          a.routes.push({
            destination: r.network,
            prefixLength: r.prefix,
            nextHop: r.gateway,
            family: fam,
            ...(r.metric !== undefined ? { metric: r.metric } : {}),
          });
      }
      for (const d of s.dns_nameservers ?? []) if (!a.dnsServers.includes(d)) a.dnsServers.push(d);
      for (const d of s.dns_search ?? []) if (!a.dnsSearch.includes(d)) a.dnsSearch.push(d);
    }
    for (const d of iface.dns?.nameservers ?? []) if (!a.dnsServers.includes(d)) a.dnsServers.push(d);
    for (const d of iface.dns?.search ?? []) if (!a.dnsSearch.includes(d)) a.dnsSearch.push(d);
    if (mtu !== undefined && mtu !== null) a.mtu = mtu;
    plan.adapters.push(a);
  }
  // Global name servers and search domains go to every adapter with a static address and none of its own.
  for (const a of plan.adapters) {
    if (a.addresses.length && !a.dnsServers.length) a.dnsServers.push(...ns.dns.nameservers);
    if (a.addresses.length && !a.dnsSearch.length) a.dnsSearch.push(...ns.dns.search);
  }
  // Global v1 routes: on the adapter whose subnet holds the gateway.
  for (const r of ns.routes) {
    if (!r.gateway) continue;
    const fam = r.network.includes(':') ? 'ipv6' : 'ipv4';
    const owner = plan.adapters.find((a) =>
      a.addresses.some((x) => x.family === fam && sameSubnet(x.address, r.gateway as string, x.prefixLength)),
    );
    if (!owner) {
      plan.skipped.push({
        name: `route ${r.network}/${r.prefix}`,
        reason: `no adapter has an address in the subnet of gateway ${r.gateway}`,
      });
      continue;
    }
    if (isDefaultRoute(r))
      owner.gateways.push({ address: r.gateway, family: fam, ...(r.metric !== undefined ? { metric: r.metric } : {}) });
    else
      owner.routes.push({
        destination: r.network,
        prefixLength: r.prefix,
        nextHop: r.gateway,
        family: fam,
        ...(r.metric !== undefined ? { metric: r.metric } : {}),
      });
  }
  return plan;
}

function sameSubnet(a: string, b: string, prefix: number): boolean {
  const bits = (ip: string) =>
    ip.includes(':')
      ? expandIpv6(ip)
          .split(':')
          .map((h) => parseInt(h, 16).toString(2).padStart(16, '0'))
          .join('')
      : ip
          .split('.')
          .map((o) => Number(o).toString(2).padStart(8, '0'))
          .join('');
  const x = bits(a);
  const y = bits(b);
  return x.length === y.length && x.slice(0, prefix) === y.slice(0, prefix);
}
