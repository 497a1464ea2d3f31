// DigitalOcean's droplet interfaces to v1, checked against what cloud-init 22.4's convert_network_configuration gives
// for its documented examples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertDigitalOceanNetwork } from '../../src/sources/digitalocean/network-format';
import { NetworkConfigError } from '../../src/net/net-error';
import { parseNetworkInput } from '../../src/net/parse-network-config';

// cloud-init's tests/unittests/sources/test_digitalocean.py DO_META (taken from a droplet).
const DO_META = {
  interfaces: {
    private: [
      {
        ipv4: { ip_address: '10.132.6.205', netmask: '255.255.0.0', gateway: '10.132.0.1' },
        mac: '04:01:57:d1:9e:02',
        type: 'private',
      },
    ],
    public: [
      {
        ipv4: { ip_address: '192.0.0.20', netmask: '255.255.255.0', gateway: '104.236.0.1' },
        ipv6: {
          ip_address: '2604:A880:0800:0000:1000:0000:0000:0000',
          cidr: 64,
          gateway: '2604:A880:0800:0000:0000:0000:0000:0001',
        },
        anchor_ipv4: { ip_address: '10.0.0.5', netmask: '255.255.0.0', gateway: '10.0.0.1' },
        mac: '04:01:57:d1:9e:01',
        type: 'public',
      },
    ],
  },
  floating_ip: { ipv4: { active: false } },
  dns: { nameservers: ['2001:4860:4860::8844', '2001:4860:4860::8888', '8.8.8.8'] },
};

// Its DO_META_2: no private interface, a floating IP that is active.
const DO_META_2 = {
  interfaces: {
    public: [
      {
        ipv4: { ip_address: '45.55.249.133', netmask: '255.255.192.0', gateway: '45.55.192.1' },
        anchor_ipv4: { ip_address: '10.17.0.5', netmask: '255.255.0.0', gateway: '10.17.0.1' },
        mac: 'ae:cc:08:7c:88:00',
        type: 'public',
      },
    ],
  },
  floating_ip: { ipv4: { active: true, ip_address: '138.197.59.92' } },
  dns: { nameservers: ['8.8.8.8', '8.8.4.4'] },
};

const MACS = new Map([
  ['04:01:57:d1:9e:01', 'ens1'],
  ['04:01:57:d1:9e:02', 'ens2'],
  ['b8:ae:ed:75:5f:9a', 'enp0s25'],
  ['ae:cc:08:7c:88:00', 'meta2p1'],
]);

test("DigitalOcean: public NIC eth0 with both gateways, private eth1 without one, the anchor address without a gateway, nameservers last (cloud-init 22.4's output)", () => {
  assert.deepEqual(
    convertDigitalOceanNetwork({ interfaces: DO_META.interfaces, nameservers: DO_META.dns.nameservers }, MACS),
    {
      version: 1,
      config: [
        {
          type: 'physical',
          mac_address: '04:01:57:d1:9e:02',
          name: 'eth1',
          subnets: [{ type: 'static', control: 'auto', address: '10.132.6.205', netmask: '255.255.0.0' }],
        },
        {
          type: 'physical',
          mac_address: '04:01:57:d1:9e:01',
          name: 'eth0',
          subnets: [
            {
              type: 'static',
              control: 'auto',
              address: '192.0.0.20',
              gateway: '104.236.0.1',
              netmask: '255.255.255.0',
            },
            {
              type: 'static',
              control: 'auto',
              address: '2604:A880:0800:0000:1000:0000:0000:0000/64',
              gateway: '2604:A880:0800:0000:0000:0000:0000:0001',
            },
            { type: 'static', control: 'auto', address: '10.0.0.5', netmask: '255.255.0.0' },
          ],
        },
        { type: 'nameserver', address: ['2001:4860:4860::8844', '2001:4860:4860::8888', '8.8.8.8'] },
      ],
    },
  );
});

test('DigitalOcean: without a private NIC only eth0 is configured; the floating IP is left to the anchor route, never an address', () => {
  const cfg = convertDigitalOceanNetwork(
    { interfaces: DO_META_2.interfaces, nameservers: DO_META_2.dns.nameservers },
    MACS,
  );
  const nics = (cfg.config as Array<Record<string, unknown>>).filter((c) => c.type === 'physical');
  assert.deepEqual(
    nics.map((n) => [n.name, n.mac_address]),
    [['eth0', 'ae:cc:08:7c:88:00']],
  );
  assert.doesNotMatch(JSON.stringify(cfg), /138\.197\.59\.92/);
  // And it is a v1 config kiln's parser takes: the public and the anchor address on eth0, one gateway.
  const eth0 = parseNetworkInput('v1', cfg, { macs: MACS, key: 'digitalocean' }).interfaces.get('eth0');
  assert.deepEqual(
    eth0?.subnets.map((s) => [s.address, s.prefix ?? s.netmask, s.gateway]),
    [
      ['45.55.249.133', 18, '45.55.192.1'],
      ['10.17.0.5', 16, undefined],
    ],
  );
});

test('DigitalOcean: an interface of another type keeps its kernel name', () => {
  const cfg = convertDigitalOceanNetwork(
    {
      interfaces: {
        extra: [
          {
            mac: 'B8:AE:ED:75:5F:9A',
            type: 'other',
            ipv4: { ip_address: '10.9.0.2', netmask: '255.255.255.0', gateway: '10.9.0.1' },
          },
        ],
      },
    },
    MACS,
  );
  assert.deepEqual(cfg.config, [
    {
      type: 'physical',
      mac_address: 'B8:AE:ED:75:5F:9A',
      name: 'enp0s25',
      subnets: [{ type: 'static', control: 'auto', address: '10.9.0.2', netmask: '255.255.255.0' }],
    },
  ]);
});

test('DigitalOcean: a MAC that is not on the machine, or an IPv6 address without a prefix, is an error naming the key', () => {
  assert.throws(
    () => convertDigitalOceanNetwork({ interfaces: DO_META.interfaces }, new Map([['04:01:57:d1:9e:01', 'ens1']])),
    (e: unknown) =>
      e instanceof NetworkConfigError &&
      e.key === 'digitalocean.interfaces.private[0].mac' &&
      /04:01:57:d1:9e:02/.test(e.message),
  );
  assert.throws(
    () =>
      convertDigitalOceanNetwork(
        { interfaces: { public: [{ mac: '04:01:57:d1:9e:01', type: 'public', ipv6: { ip_address: '2604::1' } }] } },
        MACS,
      ),
    (e: unknown) => e instanceof NetworkConfigError && e.key.endsWith('ipv6.cidr'),
  );
  assert.throws(
    () => convertDigitalOceanNetwork({ interfaces: 'none' }, MACS),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'digitalocean.interfaces',
  );
});
