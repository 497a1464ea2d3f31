// Network config version 1 (a list of typed commands) validated and turned into the model; errors name the key.
import { bool, int, isObj, list, obj, onlyKeys, str, strList, type Obj } from './check';
import { Interpreter, emptyState } from './interpret';
import type { NetworkState } from './model';
import { NetworkConfigError } from './net-error';

const IFACE_COMMON = [
  'type',
  'name',
  'mac_address',
  'mtu',
  'subnets',
  'params',
  'accept-ra',
  'wakeonlan',
  'keep_configuration',
];
const KEYS: Record<string, string[]> = {
  physical: IFACE_COMMON,
  loopback: ['type', 'name', 'subnets', 'mtu', 'mac_address'],
  infiniband: IFACE_COMMON,
  bond: [...IFACE_COMMON, 'bond_interfaces'],
  bridge: [...IFACE_COMMON, 'bridge_interfaces'],
  vlan: [...IFACE_COMMON, 'vlan_link', 'vlan_id'],
  nameserver: ['type', 'address', 'search', 'interface'],
  route: ['type', 'destination', 'network', 'netmask', 'prefix', 'gateway', 'metric'],
};
const SUBNET_TYPES = [
  'loopback',
  'dhcp',
  'dhcp4',
  'dhcp6',
  'static',
  'static6',
  'ipv6_slaac',
  'ipv6_dhcpv6-stateless',
  'ipv6_dhcpv6-stateful',
  'manual',
];
const SUBNET_KEYS = [
  'type',
  'control',
  'address',
  'ip_address',
  'netmask',
  'prefix',
  'broadcast',
  'gateway',
  'metric',
  'dns_nameservers',
  'dns_search',
  'routes',
  'mtu',
  'ipv4',
  'ipv6',
  'description',
  'dns_domain',
  'pointopoint',
  'scope',
];
/** Bond modes by name or by the kernel's number, as ifenslave accepts them. */
const V1_BOND_MODES = [
  'balance-rr',
  'active-backup',
  'balance-xor',
  'broadcast',
  '802.3ad',
  'balance-tlb',
  'balance-alb',
  '0',
  '1',
  '2',
  '3',
  '4',
  '5',
  '6',
];
const ROUTE_KEYS = ['network', 'destination', 'netmask', 'prefix', 'gateway', 'metric', 'type'];

function checkRoute(r: unknown, key: string, warnings: string[]): Obj {
  const o = obj(r, key);
  onlyKeys(o, ROUTE_KEYS, key, warnings);
  if (o.metric !== undefined && o.metric !== null) int(o.metric, `${key}.metric`);
  return o;
}

function checkSubnet(s: unknown, key: string, warnings: string[]): Obj {
  const o = obj(s, key);
  onlyKeys(o, SUBNET_KEYS, key, warnings);
  const type = str(o.type, `${key}.type`);
  if (!SUBNET_TYPES.includes(type))
    throw new NetworkConfigError(
      `${key}.type`,
      `unknown subnet type '${type}'; expected one of ${SUBNET_TYPES.join(', ')}`,
    );
  if ((type === 'static' || type === 'static6') && o.address === undefined && o.ip_address === undefined)
    throw new NetworkConfigError(`${key}.address`, `a ${type} subnet needs an address`);
  if (o.address !== undefined) str(o.address, `${key}.address`);
  if (o.gateway !== undefined) str(o.gateway, `${key}.gateway`);
  if (o.dns_nameservers !== undefined) strList(o.dns_nameservers, `${key}.dns_nameservers`);
  if (o.dns_search !== undefined) strList(o.dns_search, `${key}.dns_search`);
  if (o.metric !== undefined) int(o.metric, `${key}.metric`);
  if (o.mtu !== undefined) int(o.mtu, `${key}.mtu`, 68);
  if (o.routes !== undefined)
    for (const [i, r] of list(o.routes, `${key}.routes`).entries()) checkRoute(r, `${key}.routes[${i}]`, warnings);
  return o;
}

/** Type-checks one interface-like command and returns a copy with booleans and numbers read. */
function checkInterface(o: Obj, key: string, warnings: string[]): Obj {
  const c: Obj = { ...o };
  c.name = str(o.name, `${key}.name`);
  if (!/^[^\s/]{1,15}$/.test(c.name as string))
    throw new NetworkConfigError(
      `${key}.name`,
      `'${String(c.name)}' is not a valid interface name (1-15 characters, no spaces or slashes)`,
    );
  if (o.mac_address !== undefined && o.mac_address !== null) {
    c.mac_address = str(o.mac_address, `${key}.mac_address`);
    if (!/^([0-9a-f]{2}[:-]){5,19}[0-9a-f]{2}$/i.test(c.mac_address as string))
      throw new NetworkConfigError(`${key}.mac_address`, `'${String(c.mac_address)}' is not a MAC address`);
  }
  if (o.mtu !== undefined && o.mtu !== null) c.mtu = int(o.mtu, `${key}.mtu`, 68, 65535);
  if (o['accept-ra'] !== undefined) c['accept-ra'] = bool(o['accept-ra'], `${key}.accept-ra`);
  if (o.wakeonlan !== undefined) c.wakeonlan = bool(o.wakeonlan, `${key}.wakeonlan`);
  if (o.params !== undefined) obj(o.params, `${key}.params`);
  if (o.subnets !== undefined && o.subnets !== null)
    for (const [i, s] of list(o.subnets, `${key}.subnets`).entries()) checkSubnet(s, `${key}.subnets[${i}]`, warnings);
  return c;
}

/** Parses v1 CONFIG (the list under `network.config`); KEY is where it sits, for messages. */
export function parseV1(config: unknown, key = 'network.config'): NetworkState {
  const items = list(config, key);
  const it = new Interpreter(emptyState(1));
  const seen = new Map<string, string>();
  const defined = new Set(
    items
      .filter(isObj)
      .map((o) => o.name)
      .filter((n): n is string => typeof n === 'string'),
  );
  const members = (v: unknown, k: string, what: string): string[] => {
    const names = strList(v, k);
    // As cloud-init: a member the config does not define is created as a bare interface of the bond or bridge.
    names.forEach((m, j) => {
      if (!defined.has(m))
        it.state.warnings.push(
          `${k}[${j}]: ${what} member '${m}' is not defined in the config; created as an interface of its own, as cloud-init does`,
        );
    });
    return names;
  };
  items.forEach((raw, i) => {
    const k = `${key}[${i}]`;
    const o = obj(raw, k);
    const type = str(o.type, `${k}.type`);
    const allowed = KEYS[type];
    if (!allowed)
      throw new NetworkConfigError(
        `${k}.type`,
        `unknown type '${type}'; expected one of ${Object.keys(KEYS).join(', ')}`,
      );
    onlyKeys(o, allowed, k, it.state.warnings);
    if (type === 'nameserver') {
      if (o.address === undefined) throw new NetworkConfigError(`${k}.address`, 'a nameserver needs an address');
      const c = {
        ...o,
        address: strList(o.address, `${k}.address`),
        ...(o.search !== undefined ? { search: strList(o.search, `${k}.search`) } : {}),
      };
      if (o.interface !== undefined) str(o.interface, `${k}.interface`);
      it.nameserver(c, k);
      return;
    }
    if (type === 'route') {
      if (o.destination === undefined && o.network === undefined)
        throw new NetworkConfigError(`${k}.destination`, 'a route needs a destination');
      it.route(checkRoute(o, k, it.state.warnings), k);
      return;
    }
    const c = checkInterface(o, k, it.state.warnings);
    const name = c.name as string;
    const dup = seen.get(name);
    if (dup) throw new NetworkConfigError(`${k}.name`, `interface '${name}' is already defined at ${dup}`);
    seen.set(name, k);
    if (type === 'bond') {
      c.bond_interfaces = members(o.bond_interfaces ?? [], `${k}.bond_interfaces`, 'bond');
      if (o.params === undefined) c.params = {};
      const mode = (c.params as Obj)['bond-mode'] ?? (c.params as Obj).bond_mode;
      if (mode !== undefined && !V1_BOND_MODES.includes(String(mode)))
        throw new NetworkConfigError(
          `${k}.params.bond-mode`,
          `unknown bond mode '${String(mode)}'; expected one of ${V1_BOND_MODES.join(', ')}`,
        );
      it.bond(c, k);
    } else if (type === 'bridge') {
      if (o.bridge_interfaces === undefined)
        throw new NetworkConfigError(`${k}.bridge_interfaces`, 'a bridge needs bridge_interfaces');
      c.bridge_interfaces = members(o.bridge_interfaces, `${k}.bridge_interfaces`, 'bridge');
      it.bridge(c, k);
    } else if (type === 'vlan') {
      c.vlan_id = int(o.vlan_id, `${k}.vlan_id`, 0, 4094);
      c.vlan_link = str(o.vlan_link, `${k}.vlan_link`);
      if (!defined.has(c.vlan_link as string))
        throw new NetworkConfigError(`${k}.vlan_link`, `link '${String(c.vlan_link)}' is not defined in the config`);
      it.vlan(c, k);
    } else it.physical(c, k);
  });
  return it.finish();
}

export function isV1(cfg: unknown): boolean {
  return isObj(cfg) && Number(cfg.version) === 1;
}
