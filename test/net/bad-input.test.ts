// Bad network config: every error names the key, and a chosen config that is bad never falls back silently.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readYaml } from '../../src/config/read-yaml';
import { NetworkConfigError } from '../../src/net/net-error';
import { parseNetworkDocument, parseNetworkInput } from '../../src/net/parse-network-config';
import { selectNetworkConfig } from '../../src/net/select-network-config';
import type { NicFacts } from '../../src/net/sys-class-net';

function rejects(yaml: string, key: string, reason: RegExp): void {
  assert.throws(
    () => parseNetworkDocument(readYaml(yaml, 'bad-input.yaml')),
    (err: unknown) => {
      assert.ok(err instanceof NetworkConfigError, `expected NetworkConfigError, got ${String(err)}`);
      assert.equal(err.key, key);
      assert.match(err.message, reason);
      return true;
    },
  );
}

const CASES: Array<[string, string, string, RegExp]> = [
  [
    'v2 bad address',
    'network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [10.0.0.1/24, 10.0.0.300/24]\n',
    'network.ethernets.eth0.addresses[1]',
    /not an address/,
  ],
  [
    'v2 address without prefix',
    'network:\n  version: 2\n  ethernets:\n    eth0:\n      addresses: [10.0.0.1]\n',
    'network.ethernets.eth0.addresses[0]',
    /with a prefix/,
  ],
  [
    'v2 wrong type',
    'network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: maybe\n',
    'network.ethernets.eth0.dhcp4',
    /true or false/,
  ],
  [
    'v2 mtu not a number',
    'network:\n  version: 2\n  ethernets:\n    eth0:\n      mtu: big\n',
    'network.ethernets.eth0.mtu',
    /integer/,
  ],
  [
    'v2 duplicate name',
    'network:\n  version: 2\n  ethernets:\n    bond0: {}\n  bonds:\n    bond0:\n      interfaces: []\n',
    'network.bonds.bond0',
    /already defined/,
  ],
  [
    'v2 bad bond mode',
    'network:\n  version: 2\n  ethernets:\n    eth0: {}\n  bonds:\n    bond0:\n      interfaces: [eth0]\n      parameters:\n        mode: fastest\n',
    'network.bonds.bond0.parameters.mode',
    /unknown bond mode/,
  ],
  [
    'v2 unknown bond parameter',
    'network:\n  version: 2\n  ethernets:\n    eth0: {}\n  bonds:\n    bond0:\n      interfaces: [eth0]\n      parameters:\n        speed: 9\n',
    'network.bonds.bond0.parameters.speed',
    /unknown bond parameter/,
  ],
  [
    'v2 vlan link missing',
    'network:\n  version: 2\n  vlans:\n    v1:\n      id: 1\n      link: eth3\n',
    'network.vlans.v1.link',
    /not defined/,
  ],
  [
    'v2 bad mac',
    'network:\n  version: 2\n  ethernets:\n    e:\n      match:\n        macaddress: zz:00\n',
    'network.ethernets.e.match.macaddress',
    /not a MAC/,
  ],
  ['v1 unknown type', 'version: 1\nconfig:\n  - type: wifi\n    name: w0\n', 'network.config[0].type', /unknown type/],
  [
    'v1 duplicate name',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n  - type: physical\n    name: eth0\n',
    'network.config[1].name',
    /already defined at network.config\[0\]/,
  ],
  [
    'v1 bad MAC',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    mac_address: 52-54-00\n',
    'network.config[0].mac_address',
    /not a MAC address/,
  ],
  [
    'v1 bad bond mode',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n  - type: bond\n    name: bond0\n    bond_interfaces: [eth0]\n    params:\n      bond-mode: round-robin\n',
    'network.config[1].params.bond-mode',
    /unknown bond mode 'round-robin'/,
  ],
  [
    'v1 bad subnet type',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      - type: dhcp7\n',
    'network.config[0].subnets[0].type',
    /unknown subnet type/,
  ],
  [
    'v1 bad static address',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      - type: static\n        address: 10.1.2\n',
    'network.config[0].subnets[0].address',
    /not an IP address/,
  ],
  [
    'v1 static without address',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      - type: static\n',
    'network.config[0].subnets[0].address',
    /needs an address/,
  ],
  [
    'v1 vlan id out of range',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n  - type: vlan\n    name: eth0.5000\n    vlan_link: eth0\n    vlan_id: 5000\n',
    'network.config[1].vlan_id',
    /outside 0..4094/,
  ],
  [
    'v1 nameserver for unknown interface',
    'version: 1\nconfig:\n  - type: nameserver\n    address: 1.1.1.1\n    interface: eth7\n',
    'network.config[0].interface',
    /not defined/,
  ],
  [
    'v1 metric not a number',
    'version: 1\nconfig:\n  - type: route\n    destination: 10.0.0.0/8\n    gateway: 10.0.0.1\n    metric: high\n',
    'network.config[0].metric',
    /integer/,
  ],
  ['wrong version', 'version: 3\n', 'network.version', /expected 1 or 2/],
];

for (const [what, yaml, key, reason] of CASES) test(`rejects ${what} naming ${key}`, () => rejects(yaml, key, reason));

/**
 * What cloud-init 25.1 renders, kiln renders: keys its network_state does not read are passed over and a bond's
 * or bridge's undeclared member is created as cloud-init creates it, each said in a warning naming the key.
 */
const ACCEPTED: Array<[string, string, string, RegExp]> = [
  [
    'v2 unknown key',
    'network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: true\n      dhcp5: true\n',
    'network.ethernets.eth0.dhcp5',
    /unknown key/,
  ],
  [
    'v2 bond member missing',
    'network:\n  version: 2\n  ethernets:\n    eth0: {}\n  bonds:\n    bond0:\n      interfaces: [eth0, eth9]\n',
    'network.bonds.bond0.interfaces[1]',
    /member 'eth9' is not defined/,
  ],
  [
    'v1 unknown key',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    colour: blue\n',
    'network.config[0].colour',
    /unknown key/,
  ],
  [
    'v1 bond member missing',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n  - type: bond\n    name: bond0\n    bond_interfaces: [eth0, eth1]\n',
    'network.config[1].bond_interfaces[1]',
    /bond member 'eth1' is not defined/,
  ],
  [
    'v1 top-level extra key',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\nrenderer: networkd\n',
    'network.renderer',
    /unknown key in a version 1 config, ignored/,
  ],
  [
    'v1 subnet unknown key',
    'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets:\n      - type: dhcp\n        id: s0\n',
    'network.config[0].subnets[0].id',
    /unknown key, ignored/,
  ],
];

for (const [what, yaml, key, reason] of ACCEPTED) {
  test(`accepts ${what}, warning about ${key}`, () => {
    const state = parseNetworkDocument(readYaml(yaml, 'accepted.yaml'));
    const warning = state.warnings.find((w) => w.startsWith(`${key}:`));
    assert.ok(warning, `no warning for ${key}: ${state.warnings.join('; ')}`);
    assert.match(warning, reason);
    assert.ok(state.interfaces.has('eth0'));
  });
}

test('OpenStack links that cannot be named are errors naming the link', () => {
  assert.throws(
    () =>
      parseNetworkInput(
        'openstack',
        { links: [{ id: 'a', type: 'phy', ethernet_mac_address: 'fa:16:3e:00:00:09' }], networks: [] },
        { macs: new Map() },
      ),
    (err: unknown) =>
      err instanceof NetworkConfigError && err.key === 'network_data.json.links[0].ethernet_mac_address',
  );
});

test('bad addresses in network_data.json are named by their place in network_data.json', () => {
  const doc = {
    links: [{ id: 'a', name: 'eth0', type: 'phy' }],
    networks: [{ id: 'n', link: 'a', type: 'ipv4', ip_address: '10.0.0.300', netmask: '255.255.255.0' }],
  };
  assert.throws(
    () => parseNetworkInput('openstack', doc),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'network_data.json.networks[0].ip_address',
  );
  const doc2 = {
    ...doc,
    networks: [
      {
        ...doc.networks[0],
        ip_address: '10.0.0.3',
        routes: [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: 'router' }],
      },
    ],
  };
  assert.throws(
    () => parseNetworkInput('openstack', doc2),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'network_data.json.networks[0].routes[0].gateway',
  );
});

test('a bad system config is an error, not a silent fallback to DHCP', () => {
  const nics: NicFacts[] = [
    {
      name: 'eth0',
      mac: '52:54:00:00:00:01',
      carrier: 1,
      isBridge: false,
      isBond: false,
      hasMaster: false,
      standbyFeature: false,
    },
  ];
  assert.throws(
    () =>
      selectNetworkConfig({
        kernelCmdline: '',
        systemConfig: { version: 2, ethernets: { eth0: { dhcp4: 'perhaps' } } },
        nics,
      }),
    (err: unknown) => err instanceof NetworkConfigError && err.key === 'system config network.ethernets.eth0.dhcp4',
  );
  assert.throws(
    () =>
      selectNetworkConfig({
        kernelCmdline: '',
        datasourceNetwork: {
          format: 'v1',
          config: { version: 1, config: [{ type: 'physical', name: 'eth0', subnets: [{ type: 'dhcp7' }] }] },
        },
        nics,
      }),
    (err: unknown) => err instanceof NetworkConfigError && /unknown subnet type 'dhcp7'/.test(err.message),
  );
});
