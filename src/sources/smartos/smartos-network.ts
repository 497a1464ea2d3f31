// cloud-init's convert_smartos_network_data: SmartOS sdc:nics, sdc:resolvers, sdc:dns_domain and sdc:routes as network
// config v1.

const PHYSICAL_KEYS = ['mac_address', 'mtu', 'name', 'params', 'subnets', 'type'];
const SUBNET_KEYS = [
  'address',
  'broadcast',
  'dns_nameservers',
  'dns_search',
  'metric',
  'pointopoint',
  'routes',
  'scope',
  'type',
];
const ROUTE_KEYS = ['network', 'gateway'];

type Obj = Record<string, unknown>;

function pick(from: Obj, keys: string[]): Obj {
  return Object.fromEntries(Object.entries(from).filter(([k]) => keys.includes(k)));
}

const asList = (v: unknown): unknown[] => (v ? (Array.isArray(v) ? v : [v]) : []);

/**
 * Each NIC becomes a physical interface; each of its `ips` a subnet (`dhcp` → dhcp4, `addrconf` → dhcp6, else
 * static). Only the first gateway of each family, on the NIC marked primary, is used; every sdc:routes route
 * goes on every static subnet (SmartOS guarantees that an interface route's gateway is local). Resolvers
 * become one nameserver entry with the DNS domain as its search list.
 */
export function smartOsNetworkConfig(
  nics: unknown,
  dnsServers: unknown,
  dnsDomain: unknown,
  routes: unknown,
): { version: 1; config: Obj[] } {
  if (!Array.isArray(nics))
    throw new TypeError(`sdc:nics must be a JSON list, not ${JSON.stringify(nics)?.slice(0, 100)}`);
  const servers = asList(dnsServers);
  const search = asList(dnsDomain);
  const routeList = (Array.isArray(routes) ? routes : []).filter((r): r is Obj => !!r && typeof r === 'object');
  const gateways: Record<'ipv4' | 'ipv6', string | undefined> = { ipv4: undefined, ipv6: undefined };
  const config: Obj[] = [];
  for (const raw of nics) {
    if (!raw || typeof raw !== 'object')
      throw new TypeError(`an sdc:nics entry is not an object: ${JSON.stringify(raw)}`);
    const nic = raw as Obj;
    if (typeof nic.interface !== 'string')
      throw new TypeError(`an sdc:nics entry has no interface name: ${JSON.stringify(nic).slice(0, 200)}`);
    const cfg: Obj = { ...pick(nic, PHYSICAL_KEYS), type: 'physical', name: nic.interface };
    if ('mac' in nic) cfg.mac_address = nic.mac;
    const subnets: Obj[] = [];
    for (const ip of Array.isArray(nic.ips) ? nic.ips : []) {
      if (ip === 'dhcp') {
        subnets.push({ type: 'dhcp4' });
        continue;
      }
      if (ip === 'addrconf') {
        subnets.push({ type: 'dhcp6' });
        continue;
      }
      const address = String(ip);
      const subnet: Obj = { ...pick(nic, SUBNET_KEYS), type: 'static', address };
      const family = address.includes('.') ? 'ipv4' : 'ipv6';
      if (nic.primary && !gateways[family]) {
        const match = (Array.isArray(nic.gateways) ? nic.gateways : []).find(
          (g) => typeof g === 'string' && (family === 'ipv4' ? g.includes('.') : g.includes(':')),
        );
        if (match) {
          gateways[family] = match as string;
          subnet.gateway = match;
        }
      }
      if (routeList.length) subnet.routes = routeList.map((r) => ({ ...pick(r, ROUTE_KEYS), network: r.dst }));
      subnets.push(subnet);
    }
    cfg.subnets = subnets;
    config.push(cfg);
  }
  if (servers.length) config.push({ type: 'nameserver', address: servers, search });
  return { version: 1, config };
}
