// Hetzner's metadata network-config with its private networks added, on cloud-init's documented example.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertHetznerNetwork } from '../../src/sources/hetzner/network-format';
import { NetworkConfigError } from '../../src/net/net-error';

// cloud-init's tests/unittests/sources/test_hetzner.py METADATA network-config and PRIVATE_NETWORKS.
const NETWORK_CONFIG = {
  config: [
    {
      mac_address: '96:00:00:08:19:da',
      name: 'eth0',
      subnets: [
        { dns_nameservers: ['185.12.64.1', '185.12.64.2'], ipv4: true, type: 'dhcp' },
        {
          address: '2a01:4f8:beef:beef::1/64',
          dns_nameservers: ['2a01:4ff:ff00::add:2', '2a01:4ff:ff00::add:1'],
          gateway: 'fe80::1',
          ipv6: true,
        },
      ],
      type: 'physical',
    },
  ],
  version: 1,
};
const PRIVATE_NETWORKS = [
  {
    ip: '10.1.0.2',
    alias_ips: [],
    interface_num: 2,
    mac_address: '86:00:00:aa:5d:f8',
    network_id: 11352901,
    network_name: 'network-2',
    network: '10.1.0.0/16',
    subnet: '10.1.0.0/24',
    gateway: '10.1.0.1',
  },
];

test('Hetzner: the metadata v1 config as given, each private network a DHCP NIC named by its MAC (cloud-init since 25.2)', () => {
  const out = convertHetznerNetwork(
    { networkConfig: NETWORK_CONFIG, privateNetworks: PRIVATE_NETWORKS },
    new Map([
      ['96:00:00:08:19:da', 'eth0'],
      ['86:00:00:aa:5d:f8', 'enp7s0'],
    ]),
  );
  assert.deepEqual(out, {
    version: 1,
    config: [
      ...NETWORK_CONFIG.config,
      { type: 'physical', mac_address: '86:00:00:aa:5d:f8', name: 'enp7s0', subnets: [{ ipv4: true, type: 'dhcp' }] },
    ],
  });
  // The metadata's own object is not changed (the source keeps it for instance-data.json).
  assert.equal(NETWORK_CONFIG.config.length, 1);
});

test('Hetzner: no private networks (cloud-init 22.4 reads none) leaves the config as it is; a private NIC not on the machine is left out', () => {
  assert.deepEqual(convertHetznerNetwork({ networkConfig: NETWORK_CONFIG }, new Map()), NETWORK_CONFIG);
  assert.deepEqual(
    convertHetznerNetwork(
      { networkConfig: NETWORK_CONFIG, privateNetworks: PRIVATE_NETWORKS },
      new Map([['96:00:00:08:19:da', 'eth0']]),
    ),
    NETWORK_CONFIG,
  );
});

test('Hetzner: a network-config without a config list, or a private network without a MAC, is an error naming the key', () => {
  assert.throws(
    () => convertHetznerNetwork({ networkConfig: { version: 1 } }, new Map()),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'hetzner.network-config.config',
  );
  assert.throws(
    () => convertHetznerNetwork({ networkConfig: NETWORK_CONFIG, privateNetworks: [{ ip: '10.1.0.2' }] }, new Map()),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'hetzner.private-networks[0].mac_address',
  );
});
