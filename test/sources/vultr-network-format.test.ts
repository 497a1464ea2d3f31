// Vultr's interfaces to v1, checked against what cloud-init's helpers/vultr.py gives for its published test metadata.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertVultrNetwork } from '../../src/sources/vultr/network-format';
import { NetworkConfigError } from '../../src/net/net-error';
import { parseNetworkInput } from '../../src/net/parse-network-config';

// cloud-init's tests/unittests/sources/test_vultr.py VULTR_V1_2 interfaces (public with an extra IPv6 range, private).
const INTERFACES = [
  {
    ipv4: { additional: [], address: '45.76.7.171', gateway: '45.76.6.1', netmask: '255.255.254.0' },
    ipv6: {
      additional: [{ network: '2002:19f0:5:28a7::', prefix: '64' }],
      address: '2001:19f0:5:28a7:5400:03ff:fe1b:4eca',
      network: '2001:19f0:5:28a7::',
      prefix: '64',
    },
    mac: '56:00:03:1b:4e:ca',
    'network-type': 'public',
  },
  {
    ipv4: { additional: [], address: '10.1.112.3', gateway: '', netmask: '255.255.240.0' },
    ipv6: { additional: [], network: '', prefix: '' },
    mac: '5a:00:03:1b:4e:ca',
    'network-type': 'private',
  },
];
const MACS = new Map([
  ['56:00:03:1b:4e:ca', 'eth0'],
  ['5a:00:03:1b:4e:ca', 'eth1'],
]);

// Its EXPECTED_VULTR_NETWORK_2.
const EXPECTED = {
  version: 1,
  config: [
    { type: 'nameserver', address: ['108.61.10.10', '2001:19f0:300:1704::6'] },
    {
      name: 'eth0',
      type: 'physical',
      mac_address: '56:00:03:1b:4e:ca',
      'accept-ra': 1,
      subnets: [
        { type: 'dhcp', control: 'auto' },
        { type: 'ipv6_slaac', control: 'auto' },
        { type: 'static6', control: 'auto', address: '2002:19f0:5:28a7::/64' },
      ],
    },
    {
      name: 'eth1',
      type: 'physical',
      mac_address: '5a:00:03:1b:4e:ca',
      subnets: [{ type: 'static', control: 'auto', address: '10.1.112.3', netmask: '255.255.240.0' }],
    },
  ],
};

test('vultr: public NIC DHCP + SLAAC with its extra IPv6 range, private NIC static, Vultr resolvers (cloud-init test_private_network_config)', () => {
  const cfg = convertVultrNetwork({ interfaces: INTERFACES }, MACS);
  assert.deepEqual(cfg, EXPECTED);
  const state = parseNetworkInput('yaml', cfg, { macs: MACS, key: 'vultr' });
  assert.ok(state);
});

test('vultr: an interface marked unconfigured is left out; mtu, accept-ra and routes of the metadata are kept', () => {
  const marked = [INTERFACES[0], { ...INTERFACES[1], unconfigured: true }];
  assert.deepEqual(convertVultrNetwork({ interfaces: marked }, MACS), {
    ...EXPECTED,
    config: EXPECTED.config.slice(0, 2),
  });
  const tuned = [
    { ...INTERFACES[0], mtu: 1450, routes: [{ network: '10.0.0.0', netmask: '255.0.0.0', gateway: '45.76.6.1' }] },
  ];
  const nic = (convertVultrNetwork({ interfaces: tuned }, MACS).config as Array<Record<string, unknown>>)[1] as Record<
    string,
    unknown
  >;
  assert.equal(nic.mtu, 1450);
  assert.deepEqual((nic.subnets as Array<Record<string, unknown>>)[0]?.routes, [
    { network: '10.0.0.0', netmask: '255.0.0.0', gateway: '45.76.6.1' },
  ]);
});

test("vultr: cloud_interfaces (Vultr's own v1) only get their names from the machine's MACs", () => {
  const given = {
    version: 1,
    config: [
      { type: 'nameserver', address: ['108.61.10.10'] },
      { type: 'physical', mac_address: '5A:00:03:1B:4E:CA', subnets: [{ type: 'dhcp' }] },
    ],
  };
  assert.deepEqual(convertVultrNetwork({ cloudInterfaces: given }, MACS), {
    version: 1,
    config: [given.config[0], { ...given.config[1], name: 'eth1' }],
  });
});

test('vultr: a NIC that is not on the machine is an error naming it, as cloud-init raises', () => {
  assert.throws(
    () => convertVultrNetwork({ interfaces: INTERFACES }, new Map([['56:00:03:1b:4e:ca', 'eth0']])),
    (err: unknown) => err instanceof NetworkConfigError && /5a:00:03:1b:4e:ca could not be found/.test(err.message),
  );
});
