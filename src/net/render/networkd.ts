// systemd-networkd renderer: /etc/systemd/network/10-cloud-init-<name>.network per interface, in cloud-init 25.1's
// layout.
import { isObj, type Obj } from '../check';
import { gatewayIsOnLink } from '../ip';
import type { Interface, NetworkState, Route } from '../model';
import type { NetworkRenderer, RenderedFile, RendererConfig } from '../renderer';
import { pyStr } from '../../util/python-str';

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
        for (const id of [...this.routes.keys()].sort())
          out += `[Route]\n${(this.routes.get(id) as string[]).join('\n')}\n\n`;
      } else if (name === 'Address') {
        for (const l of [...(this.sections.get(name) as string[])].sort()) out += `[Address]\n${l}\n\n`;
      } else out += `[${name}]\n${(this.sections.get(name) as string[]).join('\n')}\n\n`;
    }
    return out;
  }
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
      const address = s.prefix !== undefined ? `${String(s.address)}/${s.prefix}` : String(s.address);
      for (const [k, v] of Object.entries(s)) {
        if (k === 'address') f.add('Address', 'Address', address);
        else if (k === 'gateway') {
          // A gateway outside the subnet is reachable only as on-link (25.1's should_add_gateway_onlink_flag).
          const id = `a${rid++}`;
          f.addRoute(id, 'Gateway', v);
          if (gatewayIsOnLink(String(v), address)) f.addRoute(id, 'GatewayOnLink', 'yes');
        } else if (k === 'dns_nameservers') f.add('Network', 'DNS', (v as string[]).join(' '));
        else if (k === 'dns_search') f.add('Network', 'Domains', (v as string[]).join(' '));
      }
    }
  }
  f.add('Network', 'DHCP', dhcp);
  // 25.1 writes accept-ra whatever the DHCP mode (22.4: only with DHCPv6).
  if (typeof iface['accept-ra'] === 'boolean') f.add('Network', 'IPv6AcceptRA', iface['accept-ra']);
  return dhcp;
}

const DHCP_OVERRIDES: Record<string, string> = {
  UseDNS: 'use-dns',
  UseDomains: 'use-domains',
  UseHostname: 'use-hostname',
  UseNTP: 'use-ntp',
};
const DHCP4_OVERRIDES: Record<string, string> = {
  SendHostname: 'send-hostname',
  Hostname: 'hostname',
  RouteMetric: 'route-metric',
  UseMTU: 'use-mtu',
  UseRoutes: 'use-routes',
};

/** Bond parameter (v1 name) → [Bond] key of a .netdev, with how networkd wants the value. */
const BOND_NETDEV: Array<[string, string, (v: unknown) => string]> = [
  ['bond-mode', 'Mode', String],
  ['bond-xmit-hash-policy', 'TransmitHashPolicy', String],
  ['bond-lacp-rate', 'LACPTransmitRate', String],
  ['bond-miimon', 'MIIMonitorSec', (v) => `${String(v)}ms`],
  ['bond-updelay', 'UpDelaySec', (v) => `${String(v)}ms`],
  ['bond-downdelay', 'DownDelaySec', (v) => `${String(v)}ms`],
  ['bond-arp-interval', 'ARPIntervalSec', (v) => `${String(v)}ms`],
  ['bond-arp-ip-target', 'ARPIPTargets', (v) => (Array.isArray(v) ? v.join(' ') : String(v))],
  ['bond-arp-validate', 'ARPValidate', String],
  ['bond-ad-select', 'AdSelect', String],
  ['bond-fail-over-mac', 'FailOverMACPolicy', String],
  ['bond-primary-reselect', 'PrimaryReselectPolicy', String],
  ['bond-num-grat-arp', 'GratuitousARP', String],
  ['bond-min-links', 'MinLinks', String],
];
const BRIDGE_NETDEV: Array<[string, string, (v: unknown) => string]> = [
  ['bridge_stp', 'STP', (v) => (v === true || v === 'on' || v === 1 || v === '1' ? 'yes' : 'no')],
  ['bridge_fd', 'ForwardDelaySec', String],
  ['bridge_hello', 'HelloTimeSec', String],
  ['bridge_maxage', 'MaxAgeSec', String],
  ['bridge_ageing', 'AgeingTimeSec', String],
  ['bridge_bridgeprio', 'Priority', String],
];

function param(iface: Interface, v1: string): unknown {
  return iface[v1] ?? iface[v1.replace(/-/g, '_')];
}

/**
 * The .netdev files that create bonds, bridges and VLANs, and the lines that attach members to them. cloud-init
 * (22.4 and 25.1) writes neither (its networkd renderer leaves virtual devices uncreated); kiln writes both.
 */
export function renderNetdevs(ns: NetworkState): {
  netdevs: Map<string, string>;
  attach: Map<string, Array<[string, string, string]>>;
} {
  const netdevs = new Map<string, string>();
  const attach = new Map<string, Array<[string, string, string]>>();
  const add = (name: string, section: string, key: string, value: string) =>
    attach.set(name, [...(attach.get(name) ?? []), [section, key, value]]);
  for (const iface of ns.interfaces.values()) {
    const kind =
      iface.type === 'bond' ? 'bond' : iface.type === 'bridge' ? 'bridge' : iface.type === 'vlan' ? 'vlan' : undefined;
    // A bond's member the config never declared is typed 'bond' by cloud-init's placeholder: a NIC, not a device to
    // create.
    if (!kind || (kind === 'bond' && iface['bond-master'] !== undefined)) continue;
    const lines = ['[NetDev]', `Name=${iface.name}`, `Kind=${kind}`];
    if (iface.mac_address) lines.push(`MACAddress=${iface.mac_address}`);
    if (iface.mtu) lines.push(`MTUBytes=${iface.mtu}`);
    lines.push('');
    if (kind === 'bond') {
      const body = BOND_NETDEV.filter(([k]) => param(iface, k) !== undefined).map(
        ([k, key, fmt]) => `${key}=${fmt(param(iface, k))}`,
      );
      if (body.length) lines.push('[Bond]', ...body, '');
      const primary = param(iface, 'bond-primary');
      for (const m of ns.interfaces.values()) {
        if (m['bond-master'] !== iface.name) continue;
        add(m.name, 'Network', 'Bond', iface.name);
        if (primary === m.name) add(m.name, 'Network', 'PrimarySlave', 'yes');
      }
    } else if (kind === 'bridge') {
      const body = BRIDGE_NETDEV.filter(([k]) => iface[k] !== undefined).map(
        ([k, key, fmt]) => `${key}=${fmt(iface[k])}`,
      );
      if (body.length) lines.push('[Bridge]', ...body, '');
      for (const port of iface.bridge_ports ?? []) add(port, 'Network', 'Bridge', iface.name);
      for (const [k, key] of [
        ['bridge_pathcost', 'Cost'],
        ['bridge_portprio', 'Priority'],
      ] as const) {
        for (const item of (iface[k] as string[] | undefined) ?? []) {
          const [port, value] = String(item).split(/\s+/);
          if (port && value) add(port, 'Bridge', key, value);
        }
      }
    } else {
      lines.push('[VLAN]', `Id=${String(iface.vlan_id)}`, '');
      if (iface['vlan-raw-device']) add(iface['vlan-raw-device'], 'Network', 'VLAN', iface.name);
    }
    netdevs.set(iface.name, `${lines.join('\n')}\n`);
  }
  return { netdevs, attach };
}

export function renderNetworkdFiles(ns: NetworkState, opts: { netdevs?: boolean } = {}): Map<string, string> {
  const out = new Map<string, string>();
  const attach = opts.netdevs ? renderNetdevs(ns).attach : new Map<string, Array<[string, string, string]>>();
  const ethernets = ns.v2 && isObj(ns.v2.ethernets) ? ns.v2.ethernets : {};
  for (const iface of ns.interfaces.values()) {
    const f = new NetworkdFile();
    if (iface.name) f.add('Match', 'Name', iface.name);
    if (iface.driver) f.add('Match', 'Driver', iface.driver);
    if (iface.mac_address) f.add('Match', 'MACAddress', iface.mac_address);
    if (iface.mtu) f.add('Link', 'MTUBytes', iface.mtu);
    // An optional interface does not hold up systemd-networkd-wait-online.
    if (iface.optional) f.add('Link', 'RequiredForOnline', 'no');
    for (const [section, key, value] of attach.get(iface.name) ?? []) f.add(section, key, value);
    const dhcp = subnets(iface, f);
    const use = iface.dns ?? (ns.version === 1 ? ns.dns : undefined);
    if (use) {
      if (use.search.length) f.add('Network', 'Domains', use.search.join(' '));
      if (use.nameservers.length) f.add('Network', 'DNS', use.nameservers.join(' '));
    }
    for (const [i, r] of ns.routes.entries()) addRoute(f, `c${i}`, r);
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
          const map: Record<string, string> =
            version === '4' ? { ...DHCP_OVERRIDES, ...DHCP4_OVERRIDES } : DHCP_OVERRIDES;
          for (const [k, v] of Object.entries(map))
            if (v in overrides) f.add(`DHCPv${version}`, k, (overrides as Obj)[v]);
        }
      }
    }
    out.set(iface.name, f.text());
  }
  return out;
}

export const networkdRenderer: NetworkRenderer = {
  name: 'networkd',
  render(ns: NetworkState, cfg: RendererConfig): RenderedFile[] {
    const netdevs = cfg.networkdNetdevs !== false;
    const files: RenderedFile[] = [...renderNetworkdFiles(ns, { netdevs })].map(([name, content]) => ({
      path: `/etc/systemd/network/10-cloud-init-${name}.network`,
      content,
      owner: 'systemd-network:systemd-network',
    }));
    if (netdevs)
      for (const [name, content] of renderNetdevs(ns).netdevs)
        files.push({ path: `/etc/systemd/network/10-cloud-init-${name}.netdev`, content });
    return files;
  },
};
