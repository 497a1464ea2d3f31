// sysconfig renderer: ifcfg-*, route files, /etc/sysconfig/network, resolv.conf for RHEL- and SUSE-style distros.
import type { Interface, NetworkState, Subnet } from '../model';
import { hasDefaultRoute, isDefaultRoute } from '../model';
import { isIPv6, prefixToIpv4Mask } from '../ip';
import { NetworkConfigError } from '../net-error';
import type { NetworkRenderer, RenderedFile, RendererConfig } from '../renderer';
import { hasAnyDns, renderResolvConf } from './sysconfig-resolv-conf';
import { renderPersistentNetRules } from './udev-rules';

type Flavor = 'rhel' | 'suse';
type Value = string | number | boolean;

const HEADER = '# Created by cloud-init automatically, do not edit.\n#';
const IPV6_DYNAMIC = ['dhcp6', 'ipv6_slaac', 'ipv6_dhcpv6-stateless', 'ipv6_dhcpv6-stateful'];
const TYPE_NAMES: Record<string, string> = {
  ethernet: 'Ethernet',
  bond: 'Bond',
  bridge: 'Bridge',
  infiniband: 'InfiniBand',
  vlan: 'Vlan',
};
const DEFAULTS: Record<Flavor, Record<string, Value>> = {
  rhel: { ONBOOT: true, USERCTL: false, BOOTPROTO: 'none' },
  suse: { BOOTPROTO: 'static', STARTMODE: 'auto' },
};
const KEY_MAPS: Record<Flavor, Record<string, string>> = {
  rhel: {
    'accept-ra': 'IPV6_FORCE_ACCEPT_RA',
    bridge_stp: 'STP',
    bridge_ageing: 'AGEING',
    bridge_bridgeprio: 'PRIO',
    mac_address: 'HWADDR',
    mtu: 'MTU',
  },
  suse: {
    bridge_stp: 'BRIDGE_STP',
    bridge_ageing: 'BRIDGE_AGEINGTIME',
    bridge_bridgeprio: 'BRIDGE_PRIORITY',
    mac_address: 'LLADDR',
    mtu: 'MTU',
  },
};
const BOND_OPTS: Array<[string, string]> = [
  ['bond_mode', 'mode'],
  ['bond_xmit_hash_policy', 'xmit_hash_policy'],
  ['bond_miimon', 'miimon'],
  ['bond_min_links', 'min_links'],
  ['bond_arp_interval', 'arp_interval'],
  ['bond_arp_ip_target', 'arp_ip_target'],
  ['bond_arp_validate', 'arp_validate'],
  ['bond_ad_select', 'ad_select'],
  ['bond_num_grat_arp', 'num_grat_arp'],
  ['bond_downdelay', 'downdelay'],
  ['bond_updelay', 'updelay'],
  ['bond_lacp_rate', 'lacp_rate'],
  ['bond_fail_over_mac', 'fail_over_mac'],
  ['bond_primary', 'primary'],
  ['bond_primary_reselect', 'primary_reselect'],
];

function quote(v: string): string {
  return /\s/.test(v) && !(v.startsWith('"') && v.endsWith('"')) ? `"${v}"` : v;
}

function valueText(v: Value): string {
  return typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v);
}

function subnetIsV6(s: Subnet): boolean {
  return (
    s.type.endsWith('6') ||
    IPV6_DYNAMIC.includes(s.type) ||
    (s.type === 'static' && typeof s.address === 'string' && isIPv6(s.address))
  );
}

/** Where a RHEL ifcfg file takes the metric of SUBNET's routes (its default route's included). */
function routeMetricKey(s: Subnet): string {
  return subnetIsV6(s) ? 'IPV6_ROUTE_METRIC' : 'IPV4_ROUTE_METRIC';
}

/** One ifcfg file and its routes. */
class IfCfg {
  readonly conf = new Map<string, Value>();
  readonly routes = new Map<string, Value>();
  routeIdx = 1;
  hasDefault4 = false;
  hasDefault6 = false;
  constructor(
    readonly name: string,
    flavor: Flavor,
  ) {
    if (flavor === 'rhel') {
      this.conf.set('DEVICE', name);
      this.conf.set('TYPE', 'Ethernet');
    }
  }
  set kind(k: string) {
    this.conf.set('TYPE', TYPE_NAMES[k] as string);
  }
  text(): string {
    let out = HEADER;
    if (this.conf.size) out += '\n';
    for (const k of [...this.conf.keys()].sort()) {
      const v = this.conf.get(k) as Value;
      if (k === 'TYPE' && v === 'Vlan') continue;
      out += `${k}=${quote(valueText(v))}\n`;
    }
    return out;
  }
  routeText(proto: 'ipv4' | 'ipv6'): string {
    let out = HEADER;
    if (this.routes.size) out += '\n';
    let reindex = -1;
    for (const key of [...this.routes.keys()].sort()) {
      if (!key.includes('ADDRESS')) continue;
      const index = key.replace('ADDRESS', '');
      const address = String(this.routes.get(key));
      const gateway = String(this.routes.get(`GATEWAY${index}`));
      const metric = this.routes.get(`METRIC${index}`);
      if (proto === 'ipv4' && !address.includes(':')) {
        reindex++;
        out += `ADDRESS${reindex}=${quote(address)}\nGATEWAY${reindex}=${quote(gateway)}\nNETMASK${reindex}=${quote(String(this.routes.get(`NETMASK${index}`)))}\n`;
        if (metric !== undefined) out += `METRIC${reindex}=${quote(String(metric))}\n`;
      } else if (proto === 'ipv6' && address.includes(':')) {
        out += `${address}/${String(this.routes.get(`PREFIX${index}`))} via ${gateway} ${metric !== undefined ? `metric ${String(metric)}` : ''} dev ${this.name}\n`;
      }
    }
    return out;
  }
}

function renderSubnets(cfg: IfCfg, subnets: Subnet[], hasDefault: boolean, flavor: Flavor): void {
  const c = cfg.conf;
  if (flavor === 'suse') {
    c.set('BOOTPROTO', 'static');
    if (c.has('BRIDGE')) {
      c.set('BOOTPROTO', 'dhcp');
      c.delete('BRIDGE');
    }
  } else c.set('BOOTPROTO', 'none');
  const suseDhcp6 = (mode: string) => {
    c.set('BOOTPROTO', c.get('BOOTPROTO') === 'dhcp4' || c.get('BOOTPROTO') === 'dhcp' ? 'dhcp' : 'dhcp6');
    c.set('DHCLIENT6_MODE', mode);
  };
  for (const s of subnets) {
    let mtuKey = 'MTU';
    const t = s.type;
    if (t === 'dhcp6' || t === 'ipv6_dhcpv6-stateful') {
      if (flavor === 'suse') suseDhcp6('managed');
      else if (t === 'ipv6_dhcpv6-stateful') {
        c.set('DHCPV6C', true);
        c.set('IPV6INIT', true);
        c.set('IPV6_AUTOCONF', false);
        c.set('IPV6_FAILURE_FATAL', true);
      } else {
        c.set('IPV6INIT', true);
        c.set('DHCPV6C', true);
      }
    } else if (t === 'ipv6_dhcpv6-stateless') {
      if (flavor === 'suse') suseDhcp6('info');
      else {
        c.set('IPV6INIT', true);
        c.set('IPV6_AUTOCONF', true);
        c.set('DHCPV6C', true);
        c.set('DHCPV6C_OPTIONS', '-S');
      }
    } else if (t === 'ipv6_slaac') {
      if (flavor === 'suse') suseDhcp6('info');
      else {
        c.set('IPV6INIT', true);
        c.set('IPV6_AUTOCONF', true);
      }
    } else if (t === 'dhcp4' || t === 'dhcp') {
      const before = c.get('BOOTPROTO');
      c.set('BOOTPROTO', 'dhcp');
      if (flavor === 'suse' && before !== 'dhcp6' && before !== 'dhcp') c.set('BOOTPROTO', 'dhcp4');
    } else if (t === 'static' || t === 'static6') {
      const v6 = subnetIsV6(s);
      if (v6 && flavor !== 'suse') {
        mtuKey = 'IPV6_MTU';
        c.set('IPV6INIT', true);
      }
      if (s.mtu !== undefined && !(v6 && flavor === 'suse')) c.set(mtuKey, s.mtu);
      if (v6 && flavor === 'rhel') {
        c.set('IPV6_FORCE_ACCEPT_RA', false);
        c.set('IPV6_AUTOCONF', false);
      }
    } else if (t === 'manual') {
      if (flavor !== 'suse') c.set('ONBOOT', c.has(mtuKey));
    } else if (t !== 'loopback')
      throw new NetworkConfigError(`interfaces.${cfg.name}`, `subnet type '${t}' cannot be rendered by sysconfig`);
    if (s.control === 'manual') {
      if (flavor === 'suse') c.set('STARTMODE', 'manual');
      else c.set('ONBOOT', false);
    }
  }
  let v4 = -1;
  let v6 = -1;
  for (const s of subnets) {
    if (s.metric !== undefined && flavor === 'rhel') c.set(routeMetricKey(s), s.metric);
    if (s.type === 'dhcp' || s.type === 'dhcp4') {
      if (flavor !== 'suse' && hasDefault && c.get('BOOTPROTO') !== 'none') c.set('DHCLIENT_SET_DEFAULT_ROUTE', false);
      continue;
    }
    if (IPV6_DYNAMIC.includes(s.type)) continue;
    if (s.type !== 'static' && s.type !== 'static6') continue;
    if (subnetIsV6(s)) {
      v6++;
      const cidr = `${s.address}/${s.prefix}`;
      if (v6 === 0) c.set(flavor === 'suse' ? 'IPADDR6' : 'IPV6ADDR', cidr);
      else if (flavor === 'suse') c.set(v6 === 1 ? 'IPADDR6_1' : `IPADDR6_${v6}`, cidr);
      else c.set('IPV6ADDR_SECONDARIES', v6 === 1 ? cidr : `${String(c.get('IPV6ADDR_SECONDARIES'))} ${cidr}`);
    } else {
      v4++;
      const suffix = v4 === 0 ? '' : String(v4);
      c.set(`IPADDR${suffix}`, s.address as string);
      c.set(`NETMASK${suffix}`, prefixToIpv4Mask(s.prefix as number));
    }
    if (s.gateway !== undefined && flavor !== 'suse') {
      c.set('DEFROUTE', true);
      c.set(isIPv6(s.gateway) ? 'IPV6_DEFAULTGW' : 'GATEWAY', s.gateway);
    }
    if (s.dns_search !== undefined && flavor !== 'suse') c.set('DOMAIN', s.dns_search.join(' '));
    if (s.dns_nameservers !== undefined && flavor !== 'suse')
      for (const [i, n] of s.dns_nameservers.slice(0, 3).entries()) c.set(`DNS${i + 1}`, n);
  }
}

function renderSubnetRoutes(cfg: IfCfg, subnets: Subnet[], flavor: Flavor): void {
  if (flavor === 'suse') return;
  const c = cfg.conf;
  for (const s of subnets) {
    for (const r of s.routes) {
      const v6 = Boolean(s.ipv6) || (r.gateway !== undefined && isIPv6(r.gateway));
      if (isDefaultRoute(r) && !IPV6_DYNAMIC.includes(s.type)) {
        if ((s.ipv4 && cfg.hasDefault4) || (s.ipv6 && cfg.hasDefault6))
          throw new NetworkConfigError(`interfaces.${cfg.name}`, 'a second default route on one interface');
        c.set('DEFROUTE', true);
        if (c.get('BOOTPROTO') === 'dhcp' || c.get('BOOTPROTO') === 'dhcp4') c.set('DHCLIENT_SET_DEFAULT_ROUTE', true);
        if (r.gateway !== undefined) {
          if (v6) {
            c.set('IPV6_DEFAULTGW', r.gateway);
            cfg.hasDefault6 = true;
          } else {
            c.set('GATEWAY', r.gateway);
            cfg.hasDefault4 = true;
          }
        }
        if (r.metric !== undefined) c.set(routeMetricKey(s), r.metric);
      } else {
        for (const [from, to] of [
          ['gateway', 'GATEWAY'],
          ['metric', 'METRIC'],
          ['prefix', 'PREFIX'],
          ['netmask', 'NETMASK'],
          ['network', 'ADDRESS'],
        ] as const) {
          const v = r[from];
          if (v !== undefined) cfg.routes.set(`${to}${cfg.routeIdx}`, v as Value);
        }
        cfg.routeIdx++;
      }
    }
  }
}

function fill(tpl: string, base: string, name: string): string {
  return tpl.replace('{base}', base).replace('{name}', name);
}

export function renderSysconfig(ns: NetworkState, cfg: RendererConfig): RenderedFile[] {
  const flavor: Flavor = cfg.flavor ?? 'rhel';
  const base = '/etc/sysconfig';
  const ifaceTpl = cfg.ifaceTemplate ?? '{base}/network-scripts/ifcfg-{name}';
  const routeTpl = cfg.routeTemplates ?? {
    ipv4: '{base}/network-scripts/route-{name}',
    ipv6: '{base}/network-scripts/route6-{name}',
  };
  const hasDefault = hasDefaultRoute(ns);
  const cfgs = new Map<string, IfCfg>();
  const ifaces = [...ns.interfaces.values()].filter((i) => i.type !== 'loopback');
  for (const iface of ifaces) {
    const c = new IfCfg(iface.name, flavor);
    for (const [k, v] of Object.entries(DEFAULTS[flavor])) c.conf.set(k, v);
    for (const old of ['mac_address', 'mtu', 'accept-ra'] as const) {
      const v = iface[old];
      if (v === undefined || v === null) continue;
      if (old === 'mac_address' && iface.type !== 'physical' && iface.type !== 'infiniband') continue;
      const key = KEY_MAPS[flavor][old];
      if (key) c.conf.set(key, v as Value);
    }
    if (iface.wakeonlan && iface.type === 'physical') c.conf.set('ETHTOOL_OPTS', 'wol g');
    cfgs.set(iface.name, c);
  }
  const of = (type: string) => ifaces.filter((i) => i.type === type);
  const get = (name: string, from: Interface) => {
    const c = cfgs.get(name);
    if (!c)
      throw new NetworkConfigError(`interfaces.${from.name}`, `refers to interface '${name}', which is not defined`);
    return c;
  };
  const subnetsAndRoutes = (iface: Interface, c: IfCfg) => {
    renderSubnets(c, iface.subnets, hasDefault, flavor);
    renderSubnetRoutes(c, iface.subnets, flavor);
  };
  for (const iface of of('physical')) subnetsAndRoutes(iface, get(iface.name, iface));
  for (const iface of of('bond')) {
    const c = get(iface.name, iface);
    const opts: string[] = [];
    for (const [key, opt] of BOND_OPTS) {
      for (const k of [key, key.replace(/_/g, '-')]) {
        if (k in iface && iface[k] !== undefined) {
          const v = iface[k];
          opts.push(`${opt}=${Array.isArray(v) ? v.join(' ') : String(v)}`);
          break;
        }
      }
    }
    if (opts.length) c.conf.set(flavor === 'suse' ? 'BONDING_MODULE_OPTS' : 'BONDING_OPTS', opts.join(' '));
    c.conf.set('BONDING_MASTER', true);
    if (flavor !== 'suse') c.kind = 'bond';
    if (iface.mac_address) c.conf.set(flavor === 'suse' ? 'LLADDR' : 'MACADDR', iface.mac_address);
    subnetsAndRoutes(iface, c);
    const members = ifaces
      .filter((i) => i['bond-master'] === iface.name)
      .map((i) => i.name)
      .sort();
    members.forEach((m, i) => {
      c.conf.set(flavor === 'suse' ? `BONDING_SLAVE_${i}` : `BONDING_SLAVE${i}`, m);
      const mc = get(m, iface);
      if (flavor === 'suse') {
        mc.conf.set('BOOTPROTO', 'none');
        mc.conf.set('STARTMODE', 'hotplug');
      } else {
        mc.conf.set('MASTER', iface.name);
        mc.conf.set('SLAVE', true);
      }
    });
  }
  for (const iface of of('vlan')) {
    const c = get(iface.name, iface);
    if (flavor === 'suse') {
      if (iface.vlan_id) c.conf.set('VLAN_ID', iface.vlan_id);
      c.conf.set('ETHERDEVICE', iface.name.slice(0, iface.name.lastIndexOf('.')));
    } else {
      c.conf.set('VLAN', true);
      c.kind = 'vlan';
      c.conf.set('PHYSDEV', String(iface['vlan-raw-device']));
    }
    subnetsAndRoutes(iface, c);
  }
  for (const iface of of('bridge')) {
    const c = get(iface.name, iface);
    if (flavor !== 'suse') c.kind = 'bridge';
    for (const [old, key] of Object.entries(KEY_MAPS[flavor]))
      if (old.startsWith('bridge') && iface[old] !== undefined) c.conf.set(key, iface[old] as Value);
    if (flavor === 'suse' && c.conf.has('BRIDGE_STP'))
      c.conf.set('BRIDGE_STP', c.conf.get('BRIDGE_STP') ? 'on' : 'off');
    if (iface.mac_address) c.conf.set(flavor === 'suse' ? 'LLADDRESS' : 'MACADDR', iface.mac_address);
    if (flavor === 'suse' && iface.bridge_ports?.length) c.conf.set('BRIDGE_PORTS', iface.bridge_ports.join(' '));
    for (const port of iface.bridge_ports ?? [])
      get(port, iface).conf.set('BRIDGE', flavor === 'suse' ? 'yes' : iface.name);
    subnetsAndRoutes(iface, c);
  }
  for (const iface of of('infiniband')) {
    const c = get(iface.name, iface);
    c.kind = 'infiniband';
    subnetsAndRoutes(iface, c);
  }
  const files: RenderedFile[] = [];
  const seen = new Set<string>();
  for (const c of cfgs.values()) {
    files.push({ path: fill(ifaceTpl, base, c.name), content: c.text() });
    if (c.routes.size) {
      for (const proto of ['ipv4', 'ipv6'] as const) {
        const path = fill(routeTpl[proto], base, c.name);
        if (seen.has(path)) continue;
        seen.add(path);
        files.push({ path, content: c.routeText(proto) });
      }
    }
  }
  const resolv = renderResolvConf(ns, cfg.existingResolvConf);
  if (resolv) files.push({ path: '/etc/resolv.conf', content: resolv });
  if (hasAnyDns(ns))
    files.push({ path: '/etc/NetworkManager/conf.d/99-cloud-init.conf', content: `${HEADER}\n[main]\ndns = none\n` });
  if (cfg.netrulesPath) files.push({ path: cfg.netrulesPath, content: renderPersistentNetRules(ns) });
  const control = cfg.control ?? '/etc/sysconfig/network';
  if (control.endsWith('network')) files.push({ path: control, content: renderControlFile(ns, cfg.existingControl) });
  return files;
}

/**
 * RHEL's /etc/sysconfig/network: NETWORKING (and IPv6's settings), then, as cloud-init 25.1 keeps customizations,
 * every line of EXISTING that mentions none of those settings and is not a line of the header.
 */
function renderControlFile(ns: NetworkState, existing = ''): string {
  const lines = [HEADER, 'NETWORKING=yes'];
  if (ns.useIpv6) lines.push('NETWORKING_IPV6=yes', 'IPV6_AUTOCONF=no');
  const ours = ['NETWORKING', 'IPV6_AUTOCONF'];
  const headerLines = HEADER.split('\n');
  const existingLines = existing === '' ? [] : existing.replace(/\r\n?/g, '\n').replace(/\n$/, '').split('\n');
  for (const line of existingLines)
    if (!ours.some((k) => line.includes(k)) && !headerLines.includes(line)) lines.push(line);
  return `${lines.join('\n')}\n`;
}

export const sysconfigRenderer: NetworkRenderer = { name: 'sysconfig', render: renderSysconfig };
