// ENI renderer: /etc/network/interfaces.d/50-cloud-init for ifupdown, plus the udev naming rules.
import type { Interface, NetworkState, Route, Subnet } from '../model';
import { isIpv6Subnet } from '../model';
import type { NetworkRenderer, RenderedFile, RendererConfig } from '../renderer';
import { renderPersistentNetRules } from './udev-rules';

const SUBNET_KEYS = [
  'address',
  'netmask',
  'broadcast',
  'metric',
  'gateway',
  'pointopoint',
  'mtu',
  'scope',
  'dns_search',
  'dns_nameservers',
];
const IGNORED_ATTRS = [
  'control',
  'device_id',
  'driver',
  'index',
  'inet',
  'mode',
  'name',
  'subnets',
  'type',
  'match',
  'dns',
  'config_id',
];
const MULTILINE = ['bridge_pathcost', 'bridge_portprio', 'bridge_waitport'];
const ORDER: Record<string, number> = { loopback: 0, physical: 1, infiniband: 2, bond: 3, bridge: 4, vlan: 5 };

type State = Record<string, unknown>;

function present(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  return v !== undefined && v !== null && v !== '' && v !== 0 && v !== false;
}

function subnetLines(s: Subnet): string[] {
  const lines: string[] = [];
  for (const [k, raw] of Object.entries(s)) {
    if (k === 'netmask') continue;
    const v = k === 'address' ? `${s.address}/${s.prefix}` : raw;
    if (!present(v) || !SUBNET_KEYS.includes(k)) continue;
    lines.push(`    ${k.replace(/_/g, '-')} ${Array.isArray(v) ? v.join(' ') : String(v)}`);
  }
  return lines.sort();
}

function attrLines(iface: State, index: number, ipv4SubnetMtu: unknown): string[] {
  if (index !== 0) return [];
  const ignore = [...IGNORED_ATTRS];
  if (!['bond', 'bridge', 'infiniband', 'vlan'].includes(String(iface.type))) ignore.push('mac_address');
  const lines: string[] = [];
  for (const [k, raw] of Object.entries(iface)) {
    const v = typeof raw === 'boolean' ? (raw ? 'on' : 'off') : raw;
    if (!present(v) || ignore.includes(k)) continue;
    if (k === 'mtu' && present(ipv4SubnetMtu)) continue;
    const name = k === 'mac_address' ? 'hwaddress' : k;
    if (MULTILINE.includes(k) && Array.isArray(v)) {
      for (const item of v) lines.push(`    ${name} ${String(item)}`);
      continue;
    }
    lines.push(`    ${name} ${Array.isArray(v) ? v.join(' ') : String(v)}`);
  }
  return lines.sort();
}

export function renderEniRoute(r: Route, indent = ''): string[] {
  let def = '';
  if (r.network === '0.0.0.0' && r.netmask === '0.0.0.0') def = ' default';
  else if (r.network === '::' && r.prefix === 0) def = ' -A inet6 default';
  let line = '';
  if (!def)
    line += `${r.network.includes(':') ? ' -A inet6' : r.prefix === 32 ? ' -host' : ' -net'} ${r.network}/${r.prefix}`;
  line += `${def} gw ${String(r.gateway)}`;
  if (r.metric !== undefined) line += ` metric ${r.metric}`;
  return [`${indent}post-up route add${line} || true`, `${indent}pre-down route del${line} || true`];
}

function renderIface(source: Interface | State): string[][] {
  const iface: State = { ...source };
  const sections: string[][] = [];
  const subnets = (iface.subnets as Subnet[] | undefined) ?? [];
  const acceptRa = iface['accept-ra'];
  delete iface['accept-ra'];
  const wol = iface.wakeonlan;
  delete iface.wakeonlan;
  if (wol) iface['ethernet-wol'] = 'g';
  if (subnets.length === 0) {
    const lines: string[] = [];
    if ('bond-master' in iface || 'bond-slaves' in iface) lines.push(`auto ${String(iface.name)}`);
    lines.push(`iface ${String(iface.name)} ${String(iface.inet)} ${String(iface.mode)}`);
    lines.push(...attrLines(iface, 0, undefined));
    return [lines];
  }
  subnets.forEach((s, index) => {
    let ipv4Mtu: unknown;
    iface.index = index;
    iface.mode = s.type;
    iface.control = s.control ?? 'auto';
    const v6 = isIpv6Subnet(s) && s.type !== 'dhcp';
    iface.inet = v6 ? 'inet6' : 'inet';
    if (!v6) ipv4Mtu = s.mtu;
    if (s.type === 'dhcp4' || s.type === 'dhcp6' || s.type === 'ipv6_dhcpv6-stateful') {
      iface.mode = 'dhcp';
      if (acceptRa !== undefined && acceptRa !== null) iface.accept_ra = acceptRa ? '1' : '0';
    } else if (s.type === 'ipv6_dhcpv6-stateless') {
      iface.mode = 'auto';
      iface.dhcp = '1';
    } else if (s.type === 'ipv6_slaac') {
      iface.mode = 'auto';
      iface.dhcp = '0';
    } else if (v6) {
      iface.mode = 'static';
      if (acceptRa !== undefined && acceptRa !== null) iface.accept_ra = acceptRa ? '1' : '0';
    }
    if (sections.some((sec) => sec.some((l) => l.includes(`auto ${String(iface.name)}`)))) iface.control = 'alias';
    const control = String(iface.control);
    const verb = control === 'auto' ? 'auto' : control === 'hotplug' ? 'allow-hotplug' : `# control-${control}`;
    const lines = [
      `${verb} ${String(iface.name)}`,
      `iface ${String(iface.name)} ${String(iface.inet)} ${String(iface.mode)}`,
    ];
    lines.push(...subnetLines(s), ...attrLines(iface, index, ipv4Mtu));
    for (const r of s.routes) lines.push(...renderEniRoute(r, '    '));
    sections.push(lines);
  });
  return sections;
}

export function renderEniContent(ns: NetworkState): string {
  let lo: State = {
    name: 'lo',
    type: 'physical',
    inet: 'inet',
    subnets: [{ type: 'loopback', control: 'auto', routes: [] }],
  };
  const given = ns.interfaces.get('lo');
  if (given) lo = structuredClone(given) as unknown as State;
  const loSubnet = ((lo.subnets as Subnet[])[0] ?? { type: 'loopback', routes: [] }) as Subnet;
  if (ns.dns.nameservers.length) loSubnet.dns_nameservers = [ns.dns.nameservers.join(' ')];
  if (ns.dns.search.length) loSubnet.dns_search = [ns.dns.search.join(' ')];
  const sections = renderIface(lo);
  const ifaces = [...ns.interfaces.values()].filter((i) => i.name !== 'lo');
  ifaces.sort(
    (a, b) => (ORDER[a.type] ?? 9) - (ORDER[b.type] ?? 9) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  for (const iface of ifaces) sections.push(...renderIface(iface));
  for (const r of ns.routes) sections.push(renderEniRoute(r));
  return `${sections.map((s) => s.join('\n')).join('\n\n')}\n`;
}

export const eniRenderer: NetworkRenderer = {
  name: 'eni',
  render(ns: NetworkState, cfg: RendererConfig): RenderedFile[] {
    const files: RenderedFile[] = [
      { path: cfg.eniPath ?? '/etc/network/interfaces', content: (cfg.header ?? '') + renderEniContent(ns) },
    ];
    if (cfg.netrulesPath) files.push({ path: cfg.netrulesPath, content: renderPersistentNetRules(ns) });
    return files;
  },
};
