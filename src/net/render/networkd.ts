// systemd-networkd renderer: /etc/systemd/network/10-cloud-init-<name>.network per interface, in cloud-init 22.4's layout.
import { isObj, type Obj } from '../check';
import type { Interface, NetworkState, Route } from '../model';
import type { NetworkRenderer, RenderedFile, RendererConfig } from '../renderer';

/** One .network file being built: sections of sorted, de-duplicated `Key=value` lines; routes keyed by id. */
class NetworkdFile {
  private readonly sections = new Map<string, string[]>();
  private readonly routes = new Map<string, string[]>();

  add(section: string, key: string, value: unknown): void {
    const lines = this.sections.get(section) ?? [];
    const line = `${key}=${pyStr(value)}`;
    if (!lines.includes(line)) lines.push(line);
    this.sections.set(section, lines.sort());
  }

  addRoute(id: string, key: string, value: unknown): void {
    const lines = this.routes.get(id) ?? [];
    const line = `${key}=${pyStr(value)}`;
    if (!lines.includes(line)) lines.push(line);
    this.routes.set(id, lines.sort());
  }

  text(): string {
    let out = '';
    const names = [...this.sections.keys(), ...(this.routes.size ? ['Route'] : [])].sort();
    for (const name of names) {
      if (name === 'Route') {
        // cloud-init 22.4 ends every Route line with a blank line; systemd reads it the same.
        for (const id of [...this.routes.keys()].sort()) {
          out += '[Route]\n';
          for (const l of this.routes.get(id) as string[]) out += `${l}\n\n`;
        }
      } else if (name === 'Address') {
        for (const l of [...(this.sections.get(name) as string[])].sort()) out += `[Address]\n${l}\n\n`;
      } else out += `[${name}]\n${(this.sections.get(name) as string[]).join('\n')}\n\n`;
    }
    return out;
  }
}

/** Python's str() of a value, as cloud-init writes it. */
function pyStr(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

function addRoute(f: NetworkdFile, id: string, r: Route): void {
  for (const [k, v] of Object.entries(r)) {
    if (k === 'gateway') f.addRoute(id, 'Gateway', v);
    else if (k === 'network') f.addRoute(id, 'Destination', r.prefix !== undefined ? `${String(v)}/${r.prefix}` : v);
    else if (k === 'metric') f.addRoute(id, 'Metric', v);
  }
}

function subnets(iface: Interface, f: NetworkdFile): string {
  let dhcp = 'no';
  let rid = 0;
  for (const s of iface.subnets) {
    if (s.type === 'dhcp4' || s.type === 'dhcp') dhcp = dhcp === 'no' ? 'ipv4' : dhcp === 'ipv6' ? 'yes' : dhcp;
    else if (s.type === 'dhcp6') dhcp = dhcp === 'no' ? 'ipv6' : dhcp === 'ipv4' ? 'yes' : dhcp;
    for (const r of s.routes) addRoute(f, `r${rid++}`, r);
    if ('address' in s) {
      for (const [k, v] of Object.entries(s)) {
        if (k === 'address') f.add('Address', 'Address', s.prefix !== undefined ? `${String(v)}/${s.prefix}` : v);
        else if (k === 'gateway') f.addRoute(`a${rid++}`, 'Gateway', v);
        else if (k === 'dns_nameservers') f.add('Network', 'DNS', (v as string[]).join(' '));
        else if (k === 'dns_search') f.add('Network', 'Domains', (v as string[]).join(' '));
      }
    }
  }
  f.add('Network', 'DHCP', dhcp);
  if ((dhcp === 'ipv6' || dhcp === 'yes') && typeof iface['accept-ra'] === 'boolean') f.add('Network', 'IPv6AcceptRA', iface['accept-ra']);
  return dhcp;
}

const DHCP_OVERRIDES: Record<string, string> = { UseDNS: 'use-dns', UseDomains: 'use-domains', UseHostname: 'use-hostname', UseNTP: 'use-ntp' };
const DHCP4_OVERRIDES: Record<string, string> = { SendHostname: 'send-hostname', Hostname: 'hostname', RouteMetric: 'route-metric', UseMTU: 'use-mtu', UseRoutes: 'use-routes' };

export function renderNetworkdFiles(ns: NetworkState): Map<string, string> {
  const out = new Map<string, string>();
  const ethernets = ns.v2 && isObj(ns.v2.ethernets) ? ns.v2.ethernets : {};
  for (const iface of ns.interfaces.values()) {
    const f = new NetworkdFile();
    if (iface.name) f.add('Match', 'Name', iface.name);
    if (iface.driver) f.add('Match', 'Driver', iface.driver);
    if (iface.mac_address) f.add('Match', 'MACAddress', iface.mac_address);
    if (iface.mtu) f.add('Link', 'MTUBytes', iface.mtu);
    const dhcp = subnets(iface, f);
    const use = iface.dns ?? (ns.version === 1 ? ns.dns : undefined);
    if (use) {
      if (use.search.length) f.add('Network', 'Domains', use.search.join(' '));
      if (use.nameservers.length) f.add('Network', 'DNS', use.nameservers.join(' '));
    }
    ns.routes.forEach((r, i) => addRoute(f, `c${i}`, r));
    if (ns.version === 2) {
      let name = iface.name;
      for (const [dev, cfg] of Object.entries(ethernets)) {
        if (isObj(cfg) && cfg['set-name'] === name) {
          name = dev;
          break;
        }
      }
      const device = ethernets[name];
      if (isObj(device)) {
        for (const version of ['4', '6']) {
          const overrides = device[`dhcp${version}-overrides`];
          if (!isObj(overrides) || !(dhcp === 'yes' || dhcp === `ipv${version}`)) continue;
          const map: Record<string, string> = version === '4' ? { ...DHCP_OVERRIDES, ...DHCP4_OVERRIDES } : DHCP_OVERRIDES;
          for (const [k, v] of Object.entries(map)) if (v in overrides) f.add(`DHCPv${version}`, k, (overrides as Obj)[v]);
        }
      }
    }
    out.set(iface.name, f.text());
  }
  return out;
}

export const networkdRenderer: NetworkRenderer = {
  name: 'networkd',
  render(ns: NetworkState, _cfg: RendererConfig): RenderedFile[] {
    return [...renderNetworkdFiles(ns)].map(([name, content]) => ({ path: `/etc/systemd/network/10-cloud-init-${name}.network`, content }));
  },
};
