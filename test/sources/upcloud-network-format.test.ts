// UpCloud's network metadata to v1, checked against what cloud-init's helpers/upcloud.py gives for its documented
// example.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertUpCloudNetwork } from '../../src/sources/upcloud/network-format';
import { NetworkConfigError } from '../../src/net/net-error';
import { parseNetworkInput } from '../../src/net/parse-network-config';

// The example in cloud-init's convert_to_network_config_v1 docstring (and tests/unittests/sources/test_upcloud.py).
const NETWORK = {
  interfaces: [
    {
      index: 1,
      ip_addresses: [
        {
          address: '94.237.105.53',
          dhcp: true,
          dns: ['94.237.127.9', '94.237.40.9'],
          family: 'IPv4',
          floating: false,
          gateway: '94.237.104.1',
          network: '94.237.104.0/22',
        },
        {
          address: '94.237.105.50',
          dhcp: false,
          dns: [],
          family: 'IPv4',
          floating: true,
          gateway: '',
          network: '94.237.105.50/32',
        },
      ],
      mac: '32:d5:ba:4a:36:e7',
      type: 'public',
    },
    {
      index: 2,
      ip_addresses: [
        {
          address: '10.6.3.27',
          dhcp: true,
          dns: [],
          family: 'IPv4',
          floating: false,
          gateway: '10.6.0.1',
          network: '10.6.0.0/22',
        },
      ],
      mac: '32:d5:ba:4a:84:cc',
      type: 'utility',
    },
    {
      index: 3,
      ip_addresses: [
        {
          address: '2a04:3545:1000:720:38d6:baff:fe4a:63e7',
          dhcp: true,
          dns: ['2a04:3540:53::1', '2a04:3544:53::1'],
          family: 'IPv6',
          floating: false,
          gateway: '2a04:3545:1000:720::1',
          network: '2a04:3545:1000:720::/64',
        },
      ],
      mac: '32:d5:ba:4a:63:e7',
      type: 'public',
    },
    {
      index: 4,
      ip_addresses: [
        {
          address: '172.30.1.10',
          dhcp: false,
          dns: ['172.30.1.1'],
          family: 'IPv4',
          floating: false,
          gateway: '172.30.1.1',
          network: '172.30.1.0/24',
        },
      ],
      mac: '32:d5:ba:4a:8a:e1',
      type: 'private',
    },
  ],
  dns: ['94.237.127.9', '94.237.40.9'],
};
const MACS = new Map([
  ['32:d5:ba:4a:36:e7', 'eth0'],
  ['32:d5:ba:4a:84:cc', 'eth1'],
  ['32:d5:ba:4a:63:e7', 'eth2'],
  ['32:d5:ba:4a:8a:e1', 'eth3'],
]);

test('upcloud: DHCP, floating static /32, DHCPv6 stateless, a static private address with its own DNS; global DNS last', () => {
  const cfg = convertUpCloudNetwork(NETWORK, MACS);
  assert.deepEqual(cfg, {
    version: 1,
    config: [
      {
        type: 'physical',
        name: 'eth0',
        mac_address: '32:d5:ba:4a:36:e7',
        subnets: [{ type: 'dhcp' }, { type: 'static', control: 'auto', address: '94.237.105.50', netmask: '32' }],
      },
      { type: 'physical', name: 'eth1', mac_address: '32:d5:ba:4a:84:cc', subnets: [{ type: 'dhcp' }] },
      {
        type: 'physical',
        name: 'eth2',
        mac_address: '32:d5:ba:4a:63:e7',
        subnets: [{ type: 'ipv6_dhcpv6-stateless' }],
      },
      {
        type: 'physical',
        name: 'eth3',
        mac_address: '32:d5:ba:4a:8a:e1',
        subnets: [
          {
            type: 'static',
            control: 'auto',
            address: '172.30.1.10',
            gateway: '172.30.1.1',
            netmask: '24',
            dns_nameservers: ['172.30.1.1'],
          },
        ],
      },
      { type: 'nameserver', address: ['94.237.127.9', '94.237.40.9'] },
    ],
  });
  assert.ok(parseNetworkInput('yaml', cfg, { macs: MACS, key: 'upcloud' }));
});

test('upcloud: an interface whose MAC is not on the machine is an error naming the MAC', () => {
  assert.throws(
    () => convertUpCloudNetwork(NETWORK, new Map([['32:d5:ba:4a:36:e7', 'eth0']])),
    (err: unknown) => err instanceof NetworkConfigError && /32:d5:ba:4a:84:cc/.test(err.message),
  );
});
