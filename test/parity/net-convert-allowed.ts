// Where kiln's renderers deliberately differ from cloud-init 25.1's net-convert, each entry with its reason. An
// entry names the case, renderer and file and rewrites cloud-init's file into what kiln writes, so any other
// difference still fails; the parity test fails on an entry that excused nothing.
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { NETWORK_FILE_HEADER } from '../../src/net/distro-renderer-configs';
import type { RendererName } from '../../src/net/renderer';
import type { DebianSuite } from '../helpers/debian-rootfs';

export interface AllowedRenderDifference {
  /** The oracle whose output it excuses: trixie's cloud-init 25.1 or bookworm's 22.4. */
  oracle: DebianSuite;
  /** A case name, or '*' for any case. */
  case: string;
  renderer: RendererName;
  path: string;
  why: string;
  fix(cloudInit: string): string;
}

type Yaml = Record<string, unknown>;

/** Rewrites every device of the SECTIONS of a netplan file with EDIT (the file read and written as YAML). */
function eachNetplanDevice(text: string, sections: readonly string[], edit: (device: Yaml) => void): string {
  const doc = parseYaml(text, { version: '1.1', merge: true }) as { network?: Record<string, Record<string, Yaml> | undefined> };
  for (const section of sections) for (const device of Object.values(doc.network?.[section] ?? {})) edit(device);
  return stringifyYaml(doc, { version: '1.1' });
}

const NETPLAN_FILE = '/etc/netplan/50-cloud-init.yaml';

/** The bond and bridge parameters netplan's emitter writes as strings (its parser keeps them as text). */
const NETPLAN_TEXT_PARAMETERS = ['mii-monitor-interval', 'up-delay', 'down-delay', 'arp-interval', 'learn-packet-interval', 'ageing-time', 'forward-delay', 'hello-time', 'max-age'];

export const ALLOWED_RENDER_DIFFERENCES: AllowedRenderDifference[] = [
  // 25.1 on Debian 13 writes netplan's file through netplan's Python API (netplan_api_write_yaml_file), which
  // re-emits it in netplan's own form. kiln writes the file itself, as 25.1 does without python3-netplan
  // (fallback_write_netplan_yaml): the same configuration, which netplan reads the same. Where netplan's emitter
  // changes the YAML, these entries undo it. They come before the header entry: they re-emit the YAML.
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter lists a bond's or bridge's member interfaces in an order of its own (it keeps each membership on the member, not a list); kiln keeps cloud-init's order (sorted for v1, as given for v2, which the fixtures give sorted): members are a set to netplan",
    fix: (t) => eachNetplanDevice(t, ['bonds', 'bridges'], (d) => Array.isArray(d.interfaces) && d.interfaces.sort()),
  },
  {
    oracle: 'trixie',
    case: 'v2-optional-accept-ra',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter leaves out `optional: false`, its default; kiln passes the v2 input through as cloud-init renders it",
    fix: (t) => eachNetplanDevice(t, ['ethernets'], (d) => d.optional === undefined && (d.optional = false)),
  },
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter writes bond and bridge timing parameters (mii-monitor-interval, forward-delay, …) as quoted strings; kiln writes cloud-init's numbers, which netplan reads the same",
    fix: (t) =>
      eachNetplanDevice(t, ['bonds', 'bridges'], (d) => {
        const params = d.parameters as Yaml | undefined;
        for (const k of NETPLAN_TEXT_PARAMETERS) if (params && typeof params[k] === 'string' && /^\d+$/.test(params[k])) params[k] = Number(params[k]);
      }),
  },
  {
    oracle: 'trixie',
    case: 'v2-wifi-dhcp-overrides',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's parser turns an access point's bare `password` into `auth: {key-management: psk, password}`, which its emitter writes; kiln passes the v2 input through as cloud-init renders it",
    fix: (t) =>
      eachNetplanDevice(t, ['wifis'], (d) => {
        for (const ap of Object.values((d['access-points'] as Record<string, Yaml> | undefined) ?? {})) {
          const auth = ap.auth as Yaml | undefined;
          if (auth?.['key-management'] !== 'psk' || Object.keys(auth).length !== 2) continue;
          delete ap.auth;
          ap.password = auth.password;
        }
      }),
  },
  // kiln's Azure IMDS conversion is still 22.4's (the converters move to 25.1 separately): 25.1's
  // generate_network_config also turns off DNS from DHCP on secondary NICs. Goes when that converter is 25.1's.
  {
    oracle: 'trixie',
    case: 'azure-imds-secondary-ips',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "25.1's Azure conversion adds use-dns: false to secondary NICs' dhcp4-overrides; kiln's Azure converter is still 22.4's",
    fix: (t) => eachNetplanDevice(t, ['ethernets'], (d) => delete (d['dhcp4-overrides'] as Yaml | undefined)?.['use-dns']),
  },
  {
    oracle: 'trixie',
    case: 'azure-imds-secondary-ips',
    renderer: 'networkd',
    path: '/etc/systemd/network/10-cloud-init-eth1.network',
    why: "25.1's Azure conversion adds use-dns: false to secondary NICs' dhcp4-overrides (UseDNS=False); kiln's Azure converter is still 22.4's",
    fix: (t) => t.replace('[DHCPv4]\nRouteMetric=200\nUseDNS=False\n', '[DHCPv4]\nRouteMetric=200\n'),
  },
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'netplan',
    path: NETPLAN_FILE,
    why: "netplan's emitter drops comments; kiln keeps the header cloud-init puts first on Debian (netplan_header), which 25.1's own writer keeps too: it tells whoever opens the file that it is generated and how to switch that off",
    fix: (t) => NETWORK_FILE_HEADER + t,
  },
  {
    oracle: 'trixie',
    case: 'openstack-bond-vlan',
    renderer: 'sysconfig',
    path: '/etc/sysconfig/network-scripts/ifcfg-bond0',
    why: "25.1's OpenStack conversion (convert_net_json) renames network_data.json's bond_* keys to bond-*, keeping the rest (bond-xmit_hash_policy), a spelling sysconfig's bond options look-up (bond_xmit_hash_policy or bond-xmit-hash-policy) misses, so the bond loses its hash policy; kiln's conversion still keeps the bond_* names, so kiln's bond keeps it. Not the renderer's doing: goes when kiln's OpenStack conversion follows 25.1",
    fix: (t) => t.replace('BONDING_OPTS="mode=802.3ad miimon=100"', 'BONDING_OPTS="mode=802.3ad xmit_hash_policy=layer3+4 miimon=100"'),
  },
  {
    oracle: 'trixie',
    case: '*',
    renderer: 'eni',
    path: '/etc/network/interfaces.d/50-cloud-init',
    why: "25.1 (as 22.4) writes a v2 interface's DNS dict as a Python repr (`dns {'nameservers': …}`, eni.py's _iface_add_attrs passes the interface's `dns` key through), a line ifupdown cannot read; kiln leaves it out (the dns-nameservers/dns-search lines carry it)",
    fix: (t) => t.replace(/^ {4}dns \{.*\n/gm, ''),
  },
  {
    oracle: 'bookworm',
    case: 'v1-iface-dns',
    renderer: 'sysconfig',
    path: '/etc/resolv.conf',
    why: "22.4's sysconfig writes only the global DNS to resolv.conf; kiln adds each interface's first, as 25.1's sysconfig _render_dns does (needed now that v2 interface DNS is no longer global)",
    fix: (t) => t.replace('nameserver 9.9.9.9\n', 'nameserver 10.66.0.53\nnameserver 9.9.9.9\nsearch iface.example\n'),
  },
  ...(
    [
      ['eni', '/etc/network/interfaces.d/50-cloud-init', (t: string) => t.replace(/(gw 10\.60\.0\.254)( \|\| true)/g, '$1 metric 200$2')],
    ] as const
  ).map(([renderer, path, fix]) => ({
    oracle: 'bookworm' as const,
    case: 'v2-routes-metric',
    renderer: renderer as RendererName,
    path,
    why: "22.4 drops the metric of v2 routes when translating them for non-netplan renderers; kiln keeps it, as newer cloud-init does",
    fix,
  })),
  {
    oracle: 'trixie',
    case: 'openstack-bond-vlan',
    renderer: 'network-manager',
    path: '/etc/NetworkManager/system-connections/cloud-init-bond0.nmconnection',
    why: "input conversion, not the renderer: 25.1's openstack convert_net_json renames network_data.json's bond_* keys to bond-*, which NetworkManager's renderer reads; kiln's converter still keeps them as 22.4 did, so the bond gets no mode/miimon/xmit_hash_policy until the converter moves to 25.1",
    fix: (t) => t.replace('mode=802.3ad\nmiimon=100\nxmit_hash_policy=layer3+4\n', ''),
  },
  {
    oracle: 'trixie',
    case: 'v2-set-name-by-mac',
    renderer: 'network-manager',
    path: '/etc/NetworkManager/system-connections/cloud-init-id0.nmconnection',
    why: "v2 parsing, not the renderer: 25.1's network_state (_v2_common) keeps a v2 interface's nameservers on that interface only; kiln's v2 parser still also adds them to the global DNS as 22.4 did, so id0 (which has none) falls back to id1's",
    fix: (t) => t.replace('may-fail=false\n', 'may-fail=false\ndns=192.168.7.53;\ndns-search=seven.example;\n'),
  },
  ...(
    [
      ['vmware-imc-dhcp-2nic', 'NIC1', (t: string) => t.replace('may-fail=false\n', 'may-fail=false\ndns-search=example.internal;\n')],
      ['vmware-imc-dhcp-2nic', 'NIC2', (t: string) => t.replace('may-fail=false\n', 'may-fail=false\ndns-search=example.internal;\n')],
      ['vmware-imc-primary', 'NIC1', (t: string) => t.replace('route1=0.0.0.0/0,172.16.5.1\n', 'gateway=172.16.5.1\n')],
      ['vmware-imc-primary', 'NIC2', (t: string) => t],
      ['vmware-imc-primary', 'NIC3', (t: string) => t.replace('address1=172.16.7.10/24\n', '')],
      ['vmware-imc-static-2nic', 'NIC1', (t: string) => t.replace(/^(route\d=10\.40\.12\.0\/22,[\d.]+)$/gm, '$1,10000').replace('route1=fd00:40:12::/64,fd00:40:12::1\n', '')],
      ['vmware-imc-static-2nic', 'NIC2', (t: string) => t.replace('route1=192.168.0.0/16,192.168.0.1\n', 'route1=192.168.0.0/16,192.168.0.1,10000\n')],
    ] as const
  ).map(([caseName, nic, fix]) => ({
    oracle: 'trixie' as const,
    case: caseName,
    renderer: 'network-manager' as RendererName,
    path: `/etc/NetworkManager/system-connections/cloud-init-${nic}.nmconnection`,
    why: "input conversion, not the renderer: 25.1's VMware IMC conversion (config_nic.py, NicConfigurator.gen_one_nic_v2) writes v2 where 22.4's wrote v1 — ONBOOT becomes wakeonlan, the primary gateway a 0.0.0.0/0 route, non-primary gateways routes without metric 10000 and with their IPv6 twin, a DHCP NIC's IPADDR an address, the DNS suffixes per NIC; kiln's converter is still 22.4's until it moves",
    fix: (t: string) => fix(t.replace('wake-on-lan=64\n', '')),
  })),
  // Cases whose input conversion still follows 22.4 are compared with 22.4 for every renderer (net-convert.test.ts's
  // CONVERTED_AS_22_4), but kiln's sysconfig renderer writes as 25.1's: these entries are 25.1's renderer changes.
  ...(
    [
      ['ec2-secondary-ips', ['network', 'network-scripts/ifcfg-ens5', 'network-scripts/ifcfg-ens6']],
      ['vmware-imc-dhcp-2nic', ['network', 'network-scripts/ifcfg-NIC1', 'network-scripts/ifcfg-NIC2']],
      ['vmware-imc-primary', ['network', 'network-scripts/ifcfg-NIC1', 'network-scripts/ifcfg-NIC2', 'network-scripts/ifcfg-NIC3']],
      ['vmware-imc-static-2nic', ['network', ...['NIC1', 'NIC2'].flatMap((n) => [`network-scripts/ifcfg-${n}`, `network-scripts/route-${n}`, `network-scripts/route6-${n}`])]],
    ] as const
  ).flatMap(([c, files]) =>
    [...files.map((f) => `/etc/sysconfig/${f}`), ...(c === 'ec2-secondary-ips' ? [] : ['/etc/resolv.conf']), ...(c === 'vmware-imc-primary' || c === 'vmware-imc-static-2nic' ? ['/etc/NetworkManager/conf.d/99-cloud-init.conf'] : [])].map((path) => ({
      oracle: 'bookworm' as const,
      case: c,
      renderer: 'sysconfig' as const,
      path,
      why: "25.1's sysconfig heads its files 'Created by cloud-init automatically' (22.4: '… on instance boot automatically') and no longer writes NM_CONTROLLED=no (upstream #4457 and 'fix(rhel): Fix network ordering in sysconfig'); kiln's renderer is 25.1's",
      fix: (t: string) => t.replace(/^([#;]) Created by cloud-init on instance boot automatically/, '$1 Created by cloud-init automatically').replace(/^NM_CONTROLLED=no\n/m, ''),
    })),
  ),
  {
    oracle: 'bookworm',
    case: 'ec2-secondary-ips',
    renderer: 'sysconfig',
    path: '/etc/sysconfig/network-scripts/ifcfg-ens5',
    why: "25.1's sysconfig writes a RHEL subnet's metric as IPV4_ROUTE_METRIC or IPV6_ROUTE_METRIC (22.4: METRIC; upstream #5777); kiln's renderer is 25.1's",
    fix: (t) => t.replace(/^METRIC=100\n/m, 'IPV6_ROUTE_METRIC=100\n').replace('IPADDR1=172.31.10.7\n', 'IPADDR1=172.31.10.7\nIPV4_ROUTE_METRIC=100\n'),
  },
  {
    oracle: 'bookworm',
    case: 'ec2-secondary-ips',
    renderer: 'sysconfig',
    path: '/etc/sysconfig/network-scripts/ifcfg-ens6',
    why: "25.1's sysconfig writes a RHEL subnet's metric as IPV4_ROUTE_METRIC (22.4: METRIC); kiln's renderer is 25.1's",
    fix: (t) => t.replace(/^METRIC=200\n/m, '').replace('HWADDR=0a:12:34:56:78:02\n', 'HWADDR=0a:12:34:56:78:02\nIPV4_ROUTE_METRIC=200\n'),
  },
  {
    oracle: 'bookworm',
    case: 'vmware-imc-dhcp-2nic',
    renderer: 'sysconfig',
    path: '/etc/NetworkManager/conf.d/99-cloud-init.conf',
    why: "25.1's sysconfig tells NetworkManager to leave resolv.conf alone when any DNS is configured, search domains alone included (22.4: only with global name servers; upstream #5846), so it writes this file where 22.4 wrote none; kiln's renderer is 25.1's",
    fix: (t) => (t === '' ? '# Created by cloud-init automatically, do not edit.\n#\n[main]\ndns = none\n' : t),
  },
];

/**
 * cloud-init's TEXT of PATH as ORACLE wrote it, with every entry for the case and renderer applied; USED collects
 * the entries that changed it.
 */
export function applyAllowed(oracle: DebianSuite, caseName: string, renderer: RendererName, path: string, text: string, used: Set<number>): string {
  let want = text;
  ALLOWED_RENDER_DIFFERENCES.forEach((a, i) => {
    if (a.oracle !== oracle || (a.case !== caseName && a.case !== '*') || a.renderer !== renderer || a.path !== path) return;
    const fixed = a.fix(want);
    if (fixed !== want) used.add(i);
    want = fixed;
  });
  return want;
}
