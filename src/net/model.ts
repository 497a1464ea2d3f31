// kiln's one internal network model: what every parser produces and every renderer reads (cloud-init's network state).

/** An address, route or DHCP request on one interface (cloud-init's v1 `subnets` entry, normalised). */
export interface Subnet {
  type:
    | 'loopback'
    | 'dhcp'
    | 'dhcp4'
    | 'dhcp6'
    | 'static'
    | 'static6'
    | 'ipv6_slaac'
    | 'ipv6_dhcpv6-stateless'
    | 'ipv6_dhcpv6-stateful'
    | 'manual';
  /** Address without prefix (static only). */
  address?: string;
  prefix?: number;
  /** Dotted mask, IPv4 static only. */
  netmask?: string;
  gateway?: string;
  dns_nameservers?: string[];
  dns_search?: string[];
  routes: Route[];
  metric?: number;
  mtu?: number;
  control?: string;
  /** Anything else given on the subnet, kept for renderers that know it (e.g. `broadcast`). */
  [extra: string]: unknown;
}

export interface Route {
  network: string;
  prefix: number;
  netmask?: string;
  gateway?: string;
  metric?: number;
  [extra: string]: unknown;
}

export type InterfaceType = 'physical' | 'bond' | 'bridge' | 'vlan' | 'infiniband' | 'loopback';

/** One interface. Bond and bridge parameters keep cloud-init's v1 spelling (`bond-mode`, `bridge_stp`). */
export interface Interface {
  name: string;
  /** The v2 id of an ethernet (its key under `ethernets`), which may differ from its name (cloud-init's config_id). */
  config_id?: string;
  type: InterfaceType;
  mac_address?: string;
  mtu?: number;
  subnets: Subnet[];
  'accept-ra'?: boolean;
  wakeonlan?: boolean;
  /** v2 `optional`: the system's boot need not wait for this interface. */
  optional?: boolean;
  /** v2 match, kept for renderers that match by more than the MAC. */
  match?: Record<string, unknown>;
  driver?: string;
  /** Bond this interface is a member of. */
  'bond-master'?: string;
  /** Bridge members (bridges only). */
  bridge_ports?: string[];
  vlan_id?: number;
  'vlan-raw-device'?: string;
  /** Per-interface DNS from v1 `nameserver` with `interface`, or v2 `nameservers`. */
  dns?: { nameservers: string[]; search: string[] };
  /** Bond parameters (`bond-mode` …), bridge parameters (`bridge_stp` …) and anything else from `params`. */
  [param: string]: unknown;
}

export interface NetworkState {
  /** 1 when interpreted from v1 (or converted); 2 when the input was netplan v2. */
  version: 1 | 2;
  /** Interfaces in input order. */
  interfaces: Map<string, Interface>;
  /** Routes not tied to an interface (v1 `route`). */
  routes: Route[];
  dns: { nameservers: string[]; search: string[] };
  useIpv6: boolean;
  /** The v2 input, unchanged, for netplan's passthrough. */
  v2?: Record<string, unknown>;
  /** Things in the input that some renderers cannot apply (e.g. wifis outside netplan); logged by callers. */
  warnings: string[];
}

export function isDefaultRoute(r: Route): boolean {
  return r.prefix === 0 && (r.network === '0.0.0.0' || r.network === '::');
}

export function hasDefaultRoute(ns: NetworkState): boolean {
  if (ns.routes.some(isDefaultRoute)) return true;
  for (const iface of ns.interfaces.values())
    for (const s of iface.subnets) if (s.routes.some(isDefaultRoute)) return true;
  return false;
}

export function isIpv6Subnet(s: Subnet): boolean {
  return (
    s.type.endsWith('6') || s.type.startsWith('ipv6') || (typeof s.address === 'string' && s.address.includes(':'))
  );
}

export function isStatic(s: Subnet): boolean {
  return s.type === 'static' || s.type === 'static6';
}

export function isDhcp(s: Subnet): boolean {
  return (
    s.type === 'dhcp' ||
    s.type === 'dhcp4' ||
    s.type === 'dhcp6' ||
    s.type === 'ipv6_dhcpv6-stateful' ||
    s.type === 'ipv6_dhcpv6-stateless'
  );
}
