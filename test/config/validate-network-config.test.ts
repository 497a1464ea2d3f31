// `schema -t network-config`'s check: v1 and v2 documents, at the top level or under `network:`, judged as cloud-init
// 25.1.4's validate_cloudconfig_schema judges them with its network-config v1/v2 schemas (on a system without
// netplan): each row is the document and what 25.1 reported, 'valid', 'skipped' (an empty config) or 'invalid' with
// its errors as `path: message`, joined by ' | '.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileValidators } from '../../src/config/schema/compile-validators';
import { validateNetworkConfig } from '../../src/config/validate-network-config';

const ROWS: Array<[yaml: string, verdict: string]> = [
  [
    "version: 1\nconfig:\n- type: physical\n  name: eth0\n  mac_address: 'aa:bb:cc:dd:ee:ff'\n  subnets:\n  - type: dhcp\n",
    'valid',
  ],
  [
    'network:\n  version: 1\n  config:\n  - type: physical\n    name: eth0\n    subnets: [{type: static, address: 192.168.1.2/24, gateway: 192.168.1.1, dns_nameservers: [1.1.1.1]}]\n',
    'valid',
  ],
  [
    'version: 1\nconfig:\n- type: physical\n  name: eth0\n  ipv4_conf: {}\n',
    "invalid config.0: Additional properties are not allowed ('ipv4_conf' was unexpected) | config.0: {'type': 'physical', 'name': 'eth0', 'ipv4_conf': {}} is not valid under any of the given schemas",
  ],
  [
    'version: 1\nconfig:\n- type: physical\n  name: averyveryverylongname0\n',
    "invalid config.0.name: 'averyveryverylongname0' is too long",
  ],
  [
    'version: 1\nconfig:\n- type: bond\n  name: bond0\n  bond_interfaces: [eth0, eth1]\n  params: {bond-mode: active-backup, bond-miimon: 100}\n- type: vlan\n  name: vlan10\n  vlan_link: bond0\n  vlan_id: 10\n- type: nameserver\n  address: [8.8.8.8]\n  search: [example.com]\n- type: route\n  destination: 10.0.0.0/8\n  gateway: 192.168.1.1\n',
    'valid',
  ],
  [
    'version: 1\nconfig:\n- type: bond\n  name: bond0\n  params: {bond-mode: wild}\n',
    "invalid config.0.params.bond-mode: 'wild' is not one of ['balance-rr', 'active-backup', 'balance-alb', 'balance-tcp', 'balance-tlb', 'balance-slb', 'balance-xor', 'broadcast', '802.3ad']",
  ],
  [
    'version: 1\nconfig:\n- type: vlan\n  name: vlan10\n  vlan_link: eth0\n',
    "invalid config.0: 'vlan_id' is a required property | config.0: {'type': 'vlan', 'name': 'vlan10', 'vlan_link': 'eth0'} is not valid under any of the given schemas",
  ],
  ['version: 1\nconfig:\n- type: route\n  gateway: 192.168.1.1\n', 'valid'],
  [
    "version: 1\nconfig:\n- type: bridge\n  name: br0\n  bridge_interfaces: [eth0]\n  params: {bridge_stp: 'on'}\n",
    'valid',
  ],
  [
    'version: 1\nconfig:\n- type: bridge\n  name: br0\n  bridge_interfaces: [eth0]\n',
    "invalid config.0: 'params' is a required property | config.0: {'type': 'bridge', 'name': 'br0', 'bridge_interfaces': ['eth0']} is not valid under any of the given schemas",
  ],
  [
    'version: 1\nconfig:\n- type: wifi\n  name: wlan0\n',
    "invalid config.0: 'bridge_interfaces' is a required property | config.0: {'type': 'wifi', 'name': 'wlan0'} is not valid under any of the given schemas",
  ],
  [
    'version: 1\nconfig:\n- type: physical\n  name: eth0\n  subnets: [{type: dhcp7}]\n',
    "invalid config.0.subnets.0.type: 'dhcp7' is not one of ['dhcp4', 'dhcp', 'dhcp6', 'static', 'static6', 'ipv6_dhcpv6-stateful', 'ipv6_dhcpv6-stateless', 'ipv6_slaac', 'manual']",
  ],
  [
    'version: 1\n',
    "invalid : 'config' is a required property | : 'network' is a required property | : Additional properties are not allowed ('version' was unexpected)",
  ],
  [
    'version: 1\nconfig: []\nextra: 1\n',
    "invalid : 'network' is a required property | : Additional properties are not allowed ('config', 'extra', 'version' were unexpected) | : Additional properties are not allowed ('extra' was unexpected)",
  ],
  [
    'network:\n  version: 1\n  config: [{type: physical, name: eth0, id: x}]\n',
    "invalid network.config.0: Additional properties are not allowed ('id' was unexpected) | network.config.0: {'type': 'physical', 'name': 'eth0', 'id': 'x'} is not valid under any of the given schemas",
  ],
  [
    "version: 2\nethernets:\n  eth0:\n    dhcp4: true\n    match: {macaddress: 'aa:bb:cc:dd:ee:ff'}\n    set-name: eth0\n",
    'valid',
  ],
  ["network:\n  version: 2\n  ethernets:\n    eth0: {dhcp4: 'yes', foo: bar}\n", 'valid'],
  [
    'version: 2\nethernets:\n  eth0: {dhcp4: maybe}\n',
    "invalid ethernets.eth0.dhcp4: 'maybe' is not one of ['yes', 'no', True, False]",
  ],
  [
    'version: 2\nethernets:\n  eth0:\n    addresses: [192.168.1.2/24]\n    routes: [{via: 192.168.1.1}]\n',
    "invalid ethernets.eth0.routes.0: 'to' is a required property",
  ],
  [
    "version: 2\nbonds:\n  bond0:\n    interfaces: [eth0]\n    parameters: {mode: active-backup, mii-monitor-interval: '100'}\n",
    'valid',
  ],
  [
    'version: 2\nbonds:\n  bond0:\n    parameters: {mode: sideways}\n',
    "invalid bonds.bond0.parameters.mode: 'sideways' is not one of ['balance-rr', 'active-backup', 'balance-xor', 'broadcast', '802.3ad', 'balance-tlb', 'balance-alb']",
  ],
  [
    'version: 2\nwifis:\n  wlan0: {}\n',
    "invalid : 'network' is a required property | : Additional properties are not allowed ('version', 'wifis' were unexpected) | : Additional properties are not allowed ('wifis' was unexpected)",
  ],
  [
    'version: 2\nethernets:\n  eth0:\n    nameservers: {addresses: [1.1.1.1], search: [a], other: 1}\n',
    "invalid ethernets.eth0.nameservers: Additional properties are not allowed ('other' was unexpected)",
  ],
  ["version: 2\nvlans:\n  vlan10: {id: '10', link: eth0}\n", "invalid vlans.vlan10.id: '10' is not of type 'integer'"],
  [
    "version: 2\nethernets:\n  eth0:\n    match: {name: 'en*', path: x}\n",
    "invalid ethernets.eth0.match: Additional properties are not allowed ('path' was unexpected)",
  ],
  [
    'renderer: networkd\nethernets: {}\n',
    "invalid : 'network' is a required property | : 'version' is a required property | : Additional properties are not allowed ('ethernets', 'renderer' were unexpected)",
  ],
  ['version: 3\nethernets: {}\n', 'invalid version: 3 is not one of [2]'],
  ['network: {}\n', 'skipped'],
  ['{}\n', 'skipped'],
  [
    'network:\n  version: 2\nfoo: 1\n',
    "invalid : 'version' is a required property | : Additional properties are not allowed ('foo' was unexpected) | : Additional properties are not allowed ('foo', 'network' were unexpected)",
  ],
];

function verdict(r: ReturnType<typeof validateNetworkConfig>): string {
  if (r.skipped) return 'skipped';
  const errors = r.problems.filter((p) => p.kind === 'error');
  return errors.length ? `invalid ${errors.map((p) => `${p.path}: ${p.message}`).join(' | ')}` : 'valid';
}

test('network-config v1 and v2 judged as cloud-init 25.1 judges them', () => {
  const wrong = ROWS.filter(([yaml, expected]) => verdict(validateNetworkConfig(yaml)) !== expected).map(
    ([yaml, expected]) => `${JSON.stringify(yaml)}: ${verdict(validateNetworkConfig(yaml))}; 25.1: ${expected}`,
  );
  assert.deepEqual(wrong, []);
});

test('the validators compiled at run time judge network config alike', () => {
  for (const [yaml] of ROWS)
    assert.deepEqual(validateNetworkConfig(yaml, { validators: compileValidators }), validateNetworkConfig(yaml), yaml);
});

test('errors name the line of the key at fault; a document that is not a mapping is refused', () => {
  const r = validateNetworkConfig('version: 2\nethernets:\n  eth0:\n    dhcp4: maybe\n');
  assert.deepEqual(
    r.problems.map((p) => [p.path, p.line, p.column]),
    [['ethernets.eth0.dhcp4', 4, 5]],
  );
  assert.match(validateNetworkConfig('- a\n').fatal ?? '', /not a YAML dict/);
});
