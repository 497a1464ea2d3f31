// The Windows translation: per-MAC addresses, prefixes, gateways, routes, DNS and MTU from any input format.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNetworkDocument, parseNetworkInput } from '../../src/net/parse-network-config';
import { toWindowsAdapterSettings } from '../../src/net/windows-adapter-settings';

test('v1 static v4+v6 with DNS, MTU, routes and a global route', () => {
  const ns = parseNetworkDocument({
    version: 1,
    config: [
      {
        type: 'physical',
        name: 'eth0',
        mac_address: '52:54:00:AA:00:01',
        mtu: 1450,
        subnets: [
          {
            type: 'static',
            address: '10.0.0.5/24',
            gateway: '10.0.0.1',
            dns_nameservers: ['10.0.0.53'],
            dns_search: ['corp.example'],
            routes: [{ network: '10.9.0.0/16', gateway: '10.0.0.254', metric: 50 }],
          },
          { type: 'static6', address: '2001:db8::5/64', gateway: '2001:db8::1' },
        ],
      },
      { type: 'physical', name: 'eth1', mac_address: '52:54:00:aa:00:02', subnets: [{ type: 'dhcp' }] },
      { type: 'route', destination: '172.16.0.0/12', gateway: '10.0.0.253' },
      { type: 'route', destination: '192.168.0.0/16', gateway: '203.0.113.1' },
    ],
  });
  const plan = toWindowsAdapterSettings(ns);
  assert.deepEqual(plan.adapters[0], {
    mac: '52:54:00:aa:00:01',
    name: 'eth0',
    dhcp4: false,
    dhcp6: false,
    mtu: 1450,
    addresses: [
      { address: '10.0.0.5', prefixLength: 24, family: 'ipv4' },
      { address: '2001:db8::5', prefixLength: 64, family: 'ipv6' },
    ],
    gateways: [
      { address: '10.0.0.1', family: 'ipv4' },
      { address: '2001:db8::1', family: 'ipv6' },
    ],
    routes: [
      { destination: '10.9.0.0', prefixLength: 16, nextHop: '10.0.0.254', metric: 50, family: 'ipv4' },
      { destination: '172.16.0.0', prefixLength: 12, nextHop: '10.0.0.253', family: 'ipv4' },
    ],
    dnsServers: ['10.0.0.53'],
    dnsSearch: ['corp.example'],
  });
  assert.deepEqual(plan.adapters[1], {
    mac: '52:54:00:aa:00:02',
    name: 'eth1',
    dhcp4: true,
    dhcp6: false,
    addresses: [],
    gateways: [],
    routes: [],
    dnsServers: [],
    dnsSearch: [],
  });
  assert.deepEqual(plan.skipped, [
    { name: 'route 192.168.0.0/16', reason: 'no adapter has an address in the subnet of gateway 203.0.113.1' },
  ]);
});

test('OpenStack network_data.json: default route becomes the gateway, services DNS reaches static adapters', () => {
  const ns = parseNetworkInput(
    'openstack',
    {
      links: [{ id: 'tap', type: 'ovs', ethernet_mac_address: 'FA:16:3E:00:00:01', mtu: 1442 }],
      networks: [
        {
          id: 'n',
          type: 'ipv4',
          link: 'tap',
          ip_address: '192.0.2.10',
          netmask: '255.255.255.0',
          routes: [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: '192.0.2.1' }],
        },
      ],
      services: [{ type: 'dns', address: '192.0.2.53' }],
    },
    { macs: new Map([['fa:16:3e:00:00:01', 'Ethernet']]) },
  );
  const [a] = toWindowsAdapterSettings(ns).adapters;
  assert.equal(a?.mac, 'fa:16:3e:00:00:01');
  assert.equal(a?.mtu, 1442);
  assert.deepEqual(a?.gateways, [{ address: '192.0.2.1', family: 'ipv4' }]);
  assert.deepEqual(a?.dnsServers, ['192.0.2.53']);
});

test('bonds, VLANs and NICs without a MAC are reported as skipped, not dropped silently', () => {
  const ns = parseNetworkDocument({
    version: 2,
    ethernets: { e1: { match: { macaddress: '52:54:00:00:00:01' } }, e2: {} },
    bonds: { bond0: { interfaces: ['e1'], dhcp4: true } },
  });
  const plan = toWindowsAdapterSettings(ns);
  assert.deepEqual(plan.adapters, []);
  assert.deepEqual(plan.skipped.map((s) => s.name).sort(), ['bond0', 'e1', 'e2']);
});
