// Network config version 2 (netplan) validated and turned into the model; the input is kept for netplan passthrough.
import { bool, int, isObj, list, obj, onlyKeys, str, strList, type Obj } from './check';
import { Interpreter, emptyState } from './interpret';
import { isIpNetwork } from './ip';
import type { NetworkState } from './model';
import { NetworkConfigError } from './net-error';

const SECTIONS = ['ethernets', 'bonds', 'bridges', 'vlans', 'wifis'];
const COMMON = [
  'dhcp4',
  'dhcp6',
  'dhcp4-overrides',
  'dhcp6-overrides',
  'addresses',
  'gateway4',
  'gateway6',
  'routes',
  'nameservers',
  'mtu',
  'accept-ra',
  'renderer',
  'optional',
  'critical',
  'link-local',
  'ipv6-privacy',
  'macaddress',
  'routing-policy',
  'dhcp-identifier',
  'ipv6-mtu',
  'ipv6-address-generation',
  'ipv6-address-token',
  'activation-mode',
  'ignore-carrier',
  'optional-addresses',
  'neigh-suppress',
];
const SECTION_KEYS: Record<string, string[]> = {
  ethernets: [
    ...COMMON,
    'match',
    'set-name',
    'wakeonlan',
    'emit-lldp',
    'receive-checksum-offload',
    'transmit-checksum-offload',
    'generic-receive-offload',
    'generic-segmentation-offload',
    'large-receive-offload',
    'tcp-segmentation-offload',
    'tcp6-segmentation-offload',
    'sriov',
  ],
  wifis: [...COMMON, 'match', 'set-name', 'wakeonlan', 'access-points'],
  bonds: [...COMMON, 'interfaces', 'parameters'],
  bridges: [...COMMON, 'interfaces', 'parameters'],
  vlans: [...COMMON, 'id', 'link'],
};
/** v2 bond/bridge parameter → cloud-init's v1 name (null: accepted, not carried). */
export const BOND_V2_TO_V1: Record<string, string> = {
  'ad-select': 'bond-ad-select',
  'arp-interval': 'bond-arp-interval',
  'arp-ip-targets': 'bond-arp-ip-target',
  'arp-ip-target': 'bond-arp-ip-target',
  'arp-validate': 'bond-arp-validate',
  'down-delay': 'bond-downdelay',
  'fail-over-mac-policy': 'bond-fail-over-mac',
  'lacp-rate': 'bond-lacp-rate',
  'mii-monitor-interval': 'bond-miimon',
  'min-links': 'bond-min-links',
  mode: 'bond-mode',
  'gratuitous-arp': 'bond-num-grat-arp',
  'gratuitious-arp': 'bond-num-grat-arp',
  primary: 'bond-primary',
  'primary-reselect-policy': 'bond-primary-reselect',
  'up-delay': 'bond-updelay',
  'transmit-hash-policy': 'bond-xmit-hash-policy',
};
export const BRIDGE_V2_TO_V1: Record<string, string> = {
  'ageing-time': 'bridge_ageing',
  priority: 'bridge_bridgeprio',
  'forward-delay': 'bridge_fd',
  'hello-time': 'bridge_hello',
  'max-age': 'bridge_maxage',
  'path-cost': 'bridge_pathcost',
  'port-priority': 'bridge_portprio',
  stp: 'bridge_stp',
};
const BOND_MODES = ['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb'];

export interface V2Options {
  /**
   * MAC (lower case) → current kernel name, to name ethernets matched by MAC as cloud-init does; absent in net-convert.
   */
  interfacesByMac?: Map<string, string>;
  /**
   * The machine's NICs (at boot). An ethernet matched by `name` glob and/or `driver` without `set-name` then
   * becomes the NIC(s) it matches, so non-netplan renderers configure real devices; without this list (as in
   * net-convert, and in cloud-init) the ethernet keeps its id as its name.
   */
  nics?: Array<{ name: string; mac?: string; driver?: string }>;
}

/** fnmatch-style glob (`*`, `?`, `[...]`) as netplan uses for `match: name`. */
export function globMatches(glob: string, name: string): boolean {
  let re = '^';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i] as string;
    if (ch === '*') re += '.*';
    else if (ch === '?') re += '.';
    else if (ch === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        const body = glob.slice(i + 1, end);
        re += `[${body.startsWith('!') ? `^${body.slice(1)}` : body}]`;
        i = end;
      }
    } else re += ch.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`${re}$`).test(name);
}

function checkCommon(o: Obj, key: string, warnings: string[]): void {
  for (const k of ['dhcp4', 'dhcp6', 'accept-ra', 'critical', 'optional', 'wakeonlan'])
    if (o[k] !== undefined) bool(o[k], `${key}.${k}`);
  if (o.mtu !== undefined) int(o.mtu, `${key}.mtu`, 68, 65535);
  if (o.addresses !== undefined) {
    list(o.addresses, `${key}.addresses`).forEach((a, i) => {
      const k = `${key}.addresses[${i}]`;
      const s = str(isObj(a) && Object.keys(a).length === 1 ? Object.keys(a)[0] : a, k);
      if (!s.includes('/') || !isIpNetwork(s))
        throw new NetworkConfigError(k, `'${s}' is not an address with a prefix, like 192.0.2.5/24`);
    });
  }
  for (const g of ['gateway4', 'gateway6'])
    if (o[g] !== undefined && !isIpNetwork(str(o[g], `${key}.${g}`)))
      throw new NetworkConfigError(`${key}.${g}`, `'${String(o[g])}' is not an IP address`);
  if (o.nameservers !== undefined) {
    const ns = obj(o.nameservers, `${key}.nameservers`);
    onlyKeys(ns, ['addresses', 'search'], `${key}.nameservers`, warnings);
    if (ns.addresses !== undefined) strList(ns.addresses, `${key}.nameservers.addresses`);
    if (ns.search !== undefined) strList(ns.search, `${key}.nameservers.search`);
  }
  if (o.routes !== undefined) {
    list(o.routes, `${key}.routes`).forEach((r, i) => {
      const k = `${key}.routes[${i}]`;
      const ro = obj(r, k);
      onlyKeys(ro, ['to', 'via', 'metric', 'on-link', 'table', 'scope', 'type', 'from', 'mtu'], k, warnings);
      const to = str(ro.to, `${k}.to`);
      if (to !== 'default' && !isIpNetwork(to)) throw new NetworkConfigError(`${k}.to`, `'${to}' is not a network`);
      if (ro.via !== undefined && !isIpNetwork(str(ro.via, `${k}.via`)))
        throw new NetworkConfigError(`${k}.via`, `'${String(ro.via)}' is not an IP address`);
      if (ro.metric !== undefined) int(ro.metric, `${k}.metric`);
    });
  }
  for (const d of ['dhcp4-overrides', 'dhcp6-overrides']) if (o[d] !== undefined) obj(o[d], `${key}.${d}`);
}

function ipConfigToSubnets(it: Interpreter, cfg: Obj): Obj[] {
  const subnets: Obj[] = [];
  const overrides = (s: Obj, o: unknown) => {
    if (isObj(o) && o['route-metric'] !== undefined) s.metric = o['route-metric'];
  };
  if (cfg.dhcp4 !== undefined && bool(cfg.dhcp4, '')) {
    const s: Obj = { type: 'dhcp4' };
    overrides(s, cfg['dhcp4-overrides']);
    subnets.push(s);
  }
  if (cfg.dhcp6 !== undefined && bool(cfg.dhcp6, '')) {
    const s: Obj = { type: 'dhcp6' };
    it.state.useIpv6 = true;
    overrides(s, cfg['dhcp6-overrides']);
    subnets.push(s);
  }
  let gw4: unknown;
  let gw6: unknown;
  let ns: Obj | undefined;
  for (const a of (cfg.addresses as unknown[] | undefined) ?? []) {
    const address = isObj(a) ? (Object.keys(a)[0] as string) : String(a);
    const s: Obj = { type: 'static', address };
    if (address.includes(':')) {
      if (cfg.gateway6 !== undefined && gw6 === undefined) s.gateway = gw6 = cfg.gateway6;
    } else if (cfg.gateway4 !== undefined && gw4 === undefined) s.gateway = gw4 = cfg.gateway4;
    // Only the first address carries the interface's DNS, as in cloud-init.
    if (isObj(cfg.nameservers) && ns === undefined) {
      ns = {};
      if (Array.isArray(cfg.nameservers.addresses) && cfg.nameservers.addresses.length)
        ns.dns_nameservers = cfg.nameservers.addresses;
      if (Array.isArray(cfg.nameservers.search) && cfg.nameservers.search.length)
        ns.dns_search = cfg.nameservers.search;
      Object.assign(s, ns);
    }
    subnets.push(s);
  }
  // cloud-init 22.4 carries only `to` and `via` of v2 routes; kiln keeps the metric and MTU too (25.1 does).
  const routes = ((cfg.routes as Obj[] | undefined) ?? []).map((r) => ({
    destination: r.to === 'default' ? '0.0.0.0/0' : r.to,
    gateway: r.via,
    ...(r.metric !== undefined ? { metric: r.metric } : {}),
    ...(r.mtu !== undefined ? { mtu: r.mtu } : {}),
  }));
  if (subnets.length && routes.length) (subnets[0] as Obj).routes = routes;
  return subnets;
}

/** Parses a v2 document (the mapping under `network`, with `version: 2`). */
export function parseV2(doc: unknown, key = 'network', opts: V2Options = {}): NetworkState {
  const cfg = obj(doc, key);
  onlyKeys(cfg, ['version', 'renderer', ...SECTIONS], key);
  const state = emptyState(2);
  state.v2 = cfg;
  const it = new Interpreter(state);
  const defined = new Map<string, string>();
  const dnsSkipped = new Set<string>();
  for (const section of SECTIONS) {
    if (cfg[section] === undefined || cfg[section] === null) continue;
    for (const name of Object.keys(obj(cfg[section], `${key}.${section}`))) {
      const prev = defined.get(name);
      if (prev)
        throw new NetworkConfigError(`${key}.${section}.${name}`, `'${name}' is already defined under ${key}.${prev}`);
      defined.set(name, section);
    }
  }
  for (const [section, body] of Object.entries(cfg)) {
    if (section === 'version' || section === 'renderer' || body === null) continue;
    for (const [id, raw] of Object.entries(body as Obj)) {
      const k = `${key}.${section}.${id}`;
      const c = obj(raw ?? {}, k);
      onlyKeys(c, SECTION_KEYS[section] as string[], k, state.warnings);
      checkCommon(c, k, state.warnings);
      let name = id;
      if (section === 'ethernets' || section === 'wifis') {
        const match = c.match === undefined ? {} : obj(c.match, `${k}.match`);
        onlyKeys(match, ['macaddress', 'name', 'driver'], `${k}.match`, state.warnings);
        const mac = match.macaddress === undefined ? undefined : str(match.macaddress, `${k}.match.macaddress`);
        if (mac !== undefined && !/^([0-9a-f]{2}:){5,19}[0-9a-f]{2}$/i.test(mac))
          throw new NetworkConfigError(`${k}.match.macaddress`, `'${mac}' is not a MAC address`);
        if (c['set-name'] !== undefined) name = str(c['set-name'], `${k}.set-name`);
        else if (mac && opts.interfacesByMac?.get(mac.toLowerCase()))
          name = opts.interfacesByMac.get(mac.toLowerCase()) as string;
        if (section === 'wifis') {
          state.warnings.push(`${k}: wifi configuration is only rendered by netplan; other renderers leave it out`);
          continue;
        }
        const driver = match.driver === undefined ? undefined : str(match.driver, `${k}.match.driver`);
        const nameGlob = match.name === undefined ? undefined : str(match.name, `${k}.match.name`);
        let targets: Array<{ name: string; mac?: string }> = [{ name, ...(mac ? { mac } : {}) }];
        if (c['set-name'] === undefined && (nameGlob !== undefined || driver !== undefined) && opts.nics) {
          const found = opts.nics.filter(
            (n) =>
              n.name !== 'lo' &&
              (nameGlob === undefined || globMatches(nameGlob, n.name)) &&
              (driver === undefined || n.driver === driver) &&
              (mac === undefined || n.mac === mac.toLowerCase()),
          );
          if (found.length) targets = found.map((n) => ({ name: n.name, ...(mac ? { mac } : {}) }));
        }
        for (const target of targets) {
          if (target.name !== name && it.state.interfaces.has(target.name))
            throw new NetworkConfigError(
              `${k}.match`,
              `matches ${target.name}, which another entry already configures`,
            );
          const cmd: Obj = { type: 'physical', mac_address: target.mac, name: target.name };
          // The v2 id stays the interface's config_id (NetworkManager's keyfile name) unless the match found several
          // NICs.
          if (targets.length === 1) cmd.config_id = id;
          if (driver !== undefined) cmd.params = { driver };
          for (const x of ['mtu', 'match', 'wakeonlan', 'accept-ra', 'optional'])
            if (c[x] !== undefined) cmd[x] = x === 'mtu' || x === 'match' ? c[x] : bool(c[x], '');
          cmd.subnets = ipConfigToSubnets(it, c);
          it.physical(cmd, k);
        }
        name = (targets[0] as { name: string }).name;
      } else if (section === 'vlans') {
        const link = str(c.link, `${k}.link`);
        if (!defined.has(link))
          throw new NetworkConfigError(`${k}.link`, `link '${link}' is not defined in the config`);
        const cmd: Obj = {
          type: 'vlan',
          name,
          vlan_id: int(c.id, `${k}.id`, 0, 4094),
          vlan_link: link,
          subnets: ipConfigToSubnets(it, c),
        };
        if (c.mtu !== undefined) cmd.mtu = c.mtu;
        it.vlan(cmd, k);
      } else {
        const type = section === 'bonds' ? 'bond' : 'bridge';
        const members = c.interfaces === undefined ? [] : strList(c.interfaces, `${k}.interfaces`);
        // As cloud-init: a member the config does not define is created as a bare interface of the bond or bridge.
        members.forEach((m, j) => {
          if (!defined.has(m))
            state.warnings.push(
              `${k}.interfaces[${j}]: ${type} member '${m}' is not defined in the config; created as an interface of its own, as cloud-init does`,
            );
        });
        const map = type === 'bond' ? BOND_V2_TO_V1 : BRIDGE_V2_TO_V1;
        const params: Obj = {};
        const p = c.parameters === undefined ? {} : obj(c.parameters, `${k}.parameters`);
        for (const [pk, pv] of Object.entries(p)) {
          const v1 = map[pk];
          if (!v1)
            throw new NetworkConfigError(
              `${k}.parameters.${pk}`,
              `unknown ${type} parameter; expected one of ${Object.keys(map).join(', ')}`,
            );
          if (pk === 'mode' && !BOND_MODES.includes(String(pv)))
            throw new NetworkConfigError(
              `${k}.parameters.mode`,
              `unknown bond mode '${String(pv)}'; expected one of ${BOND_MODES.join(', ')}`,
            );
          params[v1] = pv;
        }
        const cmd: Obj = { type, name, [`${type}_interfaces`]: members, params, subnets: ipConfigToSubnets(it, c) };
        if (c.mtu !== undefined) cmd.mtu = c.mtu;
        if (type === 'bond') it.bond(cmd, k);
        else it.bridge(cmd, k);
      }
      // An interface's `nameservers` stay the interface's (cloud-init 25.1; 22.4 also made them global). Without
      // `addresses` cloud-init rejects the entry and skips the DNS of the rest of the section; the addresses' own
      // dns-nameservers/dns-search (above) are kept either way.
      if (c.nameservers !== undefined && !dnsSkipped.has(section)) {
        const ns = obj(c.nameservers, `${k}.nameservers`);
        const addresses = ns.addresses === undefined ? [] : strList(ns.addresses, `${k}.nameservers.addresses`);
        const search = ns.search === undefined ? [] : strList(ns.search, `${k}.nameservers.search`);
        if (addresses.length === 0) {
          dnsSkipped.add(section);
          state.warnings.push(
            `${k}.nameservers: no addresses, so (as in cloud-init) the interface DNS of ${key}.${section} from here on is not applied`,
          );
        } else {
          const iface = it.state.interfaces.get(name);
          if (iface) iface.dns = { nameservers: [...addresses], search: [...search] };
        }
      }
    }
  }
  return it.finish();
}
