// Where kiln's renderers deliberately differ from cloud-init 25.1's net-convert, each entry with its reason. An
// entry names the case, renderer and file and rewrites cloud-init's file into what kiln writes, so any other
// difference still fails; the parity test fails on an entry that excused nothing.
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

export const ALLOWED_RENDER_DIFFERENCES: AllowedRenderDifference[] = [
  {
    oracle: 'bookworm',
    case: '*',
    renderer: 'eni',
    path: '/etc/network/interfaces.d/50-cloud-init',
    why: "22.4 writes the interface's DNS dict as a Python repr (`dns {'nameservers': …}`), a line ifupdown cannot read; kiln leaves it out (the dns-nameservers/dns-search lines carry it)",
    fix: (t) => t.replace(/^ {4}dns \{.*\n/m, ''),
  },
  ...(
    [
      ['eni', '/etc/network/interfaces.d/50-cloud-init', (t: string) => t.replace(/(gw 10\.60\.0\.254)( \|\| true)/g, '$1 metric 200$2')],
      ['networkd', '/etc/systemd/network/10-cloud-init-eth0.network', (t: string) => t.replace('Gateway=10.60.0.254\n\n', 'Gateway=10.60.0.254\n\nMetric=200\n\n')],
      ['sysconfig', '/etc/sysconfig/network-scripts/route-eth0', (t: string) => `${t}METRIC0=200\n`],
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
