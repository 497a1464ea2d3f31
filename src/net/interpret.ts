// Builds the network model from v1 commands, as cloud-init's network state interpreter does (v2 is turned into these).
import { isIPv4, isIPv6, isIpNetwork, maskToPrefix, prefixToIpv4Mask } from './ip';
import type { Interface, NetworkState, Route, Subnet } from './model';
import { NetworkConfigError } from './net-error';
import { pyTruthy as truthy } from '../util/python-truthy';
import type { Obj } from './check';

export function emptyState(version: 1 | 2): NetworkState {
  return {
    version,
    interfaces: new Map(),
    routes: [],
    dns: { nameservers: [], search: [] },
    useIpv6: false,
    warnings: [],
  };
}

/** Splits `addr/prefix` or `addr`+`netmask`/`prefix` into address, prefix and (IPv4) netmask. */
export function normalizeNetKeys<T extends Obj>(input: T, addressKeys: string[], key: string): T {
  const net: Obj = {};
  for (const [k, v] of Object.entries(input)) if (truthy(v)) net[k] = v;
  const addrKey = addressKeys.find((k) => truthy(net[k]));
  if (!addrKey) throw new NetworkConfigError(key, `no ${addressKeys.join(' or ')} given`);
  const addr = String(net[addrKey]);
  if (!isIpNetwork(addr))
    throw new NetworkConfigError(`${key}.${addrKey}`, `'${addr}' is not an IP address or network`);
  const [bare, maybePrefix] = addr.split('/') as [string, string | undefined];
  const v6 = isIPv6(bare);
  let prefix: number;
  if (maybePrefix !== undefined) {
    net[addrKey] = bare;
    prefix = maskToPrefix(maybePrefix) as number;
  } else if ('prefix' in net) {
    prefix = Number(net.prefix);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > (v6 ? 128 : 32))
      throw new NetworkConfigError(`${key}.prefix`, `'${String(net.prefix)}' is not a prefix length`);
  } else if (typeof net.netmask === 'string') {
    const p = maskToPrefix(net.netmask);
    if (p === undefined) throw new NetworkConfigError(`${key}.netmask`, `'${net.netmask}' is not a netmask`);
    prefix = p;
  } else prefix = v6 ? 64 : 24;
  net.prefix = prefix;
  if (v6) delete net.netmask;
  else if (isIPv4(bare)) net.netmask = prefixToIpv4Mask(prefix);
  return net as T;
}

export function normalizeRoute(raw: Obj, key: string): Route {
  const r: Obj = {};
  for (const [k, v] of Object.entries(raw)) if (v !== '' && v !== null && v !== undefined) r[k] = v;
  if ('destination' in r) {
    r.network = r.destination;
    delete r.destination;
  }
  const n = normalizeNetKeys(r, ['network', 'destination'], key);
  if (truthy(n.metric)) {
    const m = Number(n.metric);
    if (!Number.isInteger(m)) throw new NetworkConfigError(`${key}.metric`, `'${String(n.metric)}' is not an integer`);
    n.metric = m;
  }
  if (n.gateway !== undefined && !isIPv4(String(n.gateway)) && !isIPv6(String(n.gateway)))
    throw new NetworkConfigError(`${key}.gateway`, `'${String(n.gateway)}' is not an IP address`);
  return n as unknown as Route;
}

export function normalizeSubnet(raw: Obj, key: string): Subnet {
  let s: Obj = {};
  for (const [k, v] of Object.entries(raw)) if (truthy(v)) s[k] = v;
  if (raw.type === 'static' || raw.type === 'static6')
    s = { ...s, ...normalizeNetKeys(s, ['address', 'ip_address'], key) };
  s.routes = ((raw.routes as Obj[] | undefined) ?? []).map((r, i) => normalizeRoute(r, `${key}.routes[${i}]`));
  for (const k of ['dns_search', 'dns_nameservers'])
    if (k in s && !Array.isArray(s[k])) s[k] = String(s[k]).split(/\s+/).filter(Boolean);
  if (s.gateway !== undefined && !isIPv4(String(s.gateway)) && !isIPv6(String(s.gateway)))
    throw new NetworkConfigError(`${key}.gateway`, `'${String(s.gateway)}' is not an IP address`);
  return s as unknown as Subnet;
}

/** The interpreter: one method per v1 command type, mutating STATE in order. */
export class Interpreter {
  private readonly ifaceDns = new Map<string, { nameservers: string[]; search: string[]; key: string }>();
  constructor(readonly state: NetworkState) {}

  physical(cmd: Obj, key: string): Interface {
    const name = cmd.name as string;
    const existing = this.state.interfaces.get(name);
    const iface: Interface = existing ?? ({} as Interface);
    for (const [k, v] of Object.entries((cmd.params as Obj | undefined) ?? {})) iface[k] = v;
    const subnets = ((cmd.subnets as Obj[] | undefined) ?? []).map((s, i) =>
      normalizeSubnet(s, `${key}.subnets[${i}]`),
    );
    if (subnets.some((s) => s.type.endsWith('6') || (s.address !== undefined && isIPv6(s.address))))
      this.state.useIpv6 = true;
    Object.assign(iface, {
      name,
      type: cmd.type as Interface['type'],
      mac_address: cmd.mac_address as string | undefined,
      inet: 'inet',
      mode: 'manual',
      mtu: cmd.mtu as number | undefined,
      address: undefined,
      gateway: undefined,
      subnets,
      'accept-ra': cmd['accept-ra'] as boolean | undefined,
      wakeonlan: cmd.wakeonlan as boolean | undefined,
      optional: cmd.optional as boolean | undefined,
    });
    if (cmd.match !== undefined) iface.match = cmd.match as Obj;
    if (typeof cmd.config_id === 'string') iface.config_id = cmd.config_id;
    this.state.interfaces.set(name, iface);
    return iface;
  }

  vlan(cmd: Obj, key: string): void {
    const iface = this.physical(cmd, key);
    iface['vlan-raw-device'] = cmd.vlan_link as string;
    iface.vlan_id = cmd.vlan_id as number;
  }

  bond(cmd: Obj, key: string): void {
    const iface = this.physical(cmd, key);
    const params = (cmd.params as Obj | undefined) ?? {};
    iface['bond-slaves'] = 'none';
    for (const member of cmd.bond_interfaces as string[]) {
      // Members not yet seen are created as cloud-init does; the parsers have checked that each is defined somewhere.
      const m = this.state.interfaces.get(member) ?? this.physical({ name: member, type: 'bond' }, key);
      m['bond-master'] = cmd.name as string;
      for (const [k, v] of Object.entries(params)) m[k] = v;
    }
  }

  bridge(cmd: Obj, key: string): void {
    for (const member of cmd.bridge_interfaces as string[])
      if (!this.state.interfaces.has(member)) this.physical({ name: member }, key);
    const iface = this.physical(cmd, key);
    iface.bridge_ports = cmd.bridge_interfaces as string[];
    const stp = iface.bridge_stp;
    if (stp !== undefined && typeof stp !== 'boolean') {
      if (stp === 'on' || stp === '1' || stp === 1) iface.bridge_stp = true;
      else if (stp === 'off' || stp === '0' || stp === 0) iface.bridge_stp = false;
      else throw new NetworkConfigError(`${key}.params.bridge_stp`, `cannot read '${String(stp)}' as on or off`);
    }
  }

  nameserver(cmd: Obj, key: string): void {
    const nameservers =
      cmd.address === undefined ? [] : Array.isArray(cmd.address) ? (cmd.address as string[]) : [cmd.address as string];
    const search =
      cmd.search === undefined ? [] : Array.isArray(cmd.search) ? (cmd.search as string[]) : [cmd.search as string];
    if (typeof cmd.interface === 'string') this.ifaceDns.set(cmd.interface, { nameservers, search, key });
    else {
      this.state.dns.nameservers.push(...nameservers);
      this.state.dns.search.push(...search);
    }
  }

  route(cmd: Obj, key: string): void {
    this.state.routes.push(normalizeRoute(cmd, key));
  }

  /** Per-interface DNS is attached once every interface is known. */
  finish(): NetworkState {
    for (const [name, dns] of this.ifaceDns) {
      const iface = this.state.interfaces.get(name);
      if (!iface)
        throw new NetworkConfigError(
          `${dns.key}.interface`,
          `nameserver given for interface '${name}', which is not defined`,
        );
      iface.dns = { nameservers: dns.nameservers, search: dns.search };
    }
    return this.state;
  }
}
