// Provider converters' edge cases: EC2 primary-only mode, NIC order and netplan's source routing, ENI text errors,
// klibc files without a device.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertEc2Network } from '../../src/sources/ec2/network-format';
import { convertEniText } from '../../src/net/convert-eni';
import { initramfsNetworkConfig, kernelCmdlineNetworkConfig } from '../../src/net/initramfs-config';
import { NetworkConfigError } from '../../src/net/net-error';

const IMDS = {
  interfaces: {
    macs: {
      '0a:00:00:00:00:01': {
        'device-number': '0',
        'local-ipv4s': ['10.0.0.5', '10.0.0.6'],
        'subnet-ipv4-cidr-block': '10.0.0.0/20',
        ipv6s: '2600::5',
      },
      '0a:00:00:00:00:02': { 'device-number': '1', 'local-ipv4s': '10.0.1.5' },
      '0a:00:00:00:00:03': { 'device-number': '2', 'local-ipv4s': '10.0.2.5' },
    },
  },
};
const MACS = new Map([
  ['0a:00:00:00:00:01', 'ens5'],
  ['0a:00:00:00:00:02', 'ens6'],
]);

test('EC2: every NIC on the machine gets DHCP with a metric per device number; NICs not on the machine are left out', () => {
  assert.deepEqual(convertEc2Network(IMDS, MACS), {
    version: 2,
    ethernets: {
      ens5: {
        dhcp4: true,
        'dhcp4-overrides': { 'route-metric': 100 },
        dhcp6: true,
        'dhcp6-overrides': { 'route-metric': 100 },
        match: { macaddress: '0a:00:00:00:00:01' },
        'set-name': 'ens5',
        addresses: ['10.0.0.6/20'],
      },
      ens6: {
        dhcp4: true,
        'dhcp4-overrides': { 'route-metric': 200 },
        dhcp6: false,
        match: { macaddress: '0a:00:00:00:00:02' },
        'set-name': 'ens6',
      },
    },
  });
});

test('EC2 for netplan: a secondary NIC with a device number routes its own addresses through its own table (25.1), the primary NIC does not', () => {
  const imds = {
    interfaces: {
      macs: {
        '0a:00:00:00:00:01': {
          'device-number': '0',
          'local-ipv4s': '10.0.0.5',
          'subnet-ipv4-cidr-block': '10.0.0.0/20',
        },
        '0a:00:00:00:00:02': {
          'device-number': '1',
          'local-ipv4s': ['10.0.16.5', '10.0.16.6'],
          'subnet-ipv4-cidr-block': '10.0.16.0/20',
          ipv6s: '2600:1f18::5',
          'subnet-ipv6-cidr-blocks': '2600:1f18::/64',
        },
      },
    },
  };
  const v2 = convertEc2Network(imds, MACS, { policyRouting: true }) as {
    ethernets: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(v2.ethernets.ens5, {
    dhcp4: true,
    'dhcp4-overrides': { 'route-metric': 100 },
    dhcp6: false,
    match: { macaddress: '0a:00:00:00:00:01' },
    'set-name': 'ens5',
  });
  assert.deepEqual(v2.ethernets.ens6, {
    dhcp4: true,
    'dhcp4-overrides': { 'route-metric': 200, 'use-routes': true },
    dhcp6: true,
    'dhcp6-overrides': { 'route-metric': 200, 'use-routes': true },
    match: { macaddress: '0a:00:00:00:00:02' },
    'set-name': 'ens6',
    addresses: ['10.0.16.6/20'],
    routes: [
      { scope: 'link', table: 101, to: '10.0.16.0/20' },
      { scope: 'link', table: 101, to: '2600:1f18::/64' },
    ],
    'routing-policy': [
      { from: '10.0.16.5', table: 101 },
      { from: '10.0.16.6', table: 101 },
      { from: '2600:1f18::5', table: 101 },
    ],
  });
  // Not for other renderers, and not for a lone NIC.
  assert.equal(
    (convertEc2Network(imds, MACS) as { ethernets: Record<string, Record<string, unknown>> }).ethernets.ens6?.routes,
    undefined,
  );
  const lone = convertEc2Network(imds, new Map([['0a:00:00:00:00:02', 'ens6']]), { policyRouting: true }) as {
    ethernets: Record<string, Record<string, unknown>>;
  };
  assert.deepEqual(
    Object.keys(lone.ethernets.ens6 ?? {}).filter((k) => /routes|routing|overrides/.test(k)),
    [],
  );
});

test('EC2 NIC order: by network card, then device number, then MAC; the metric follows the place, not the number (25.1)', () => {
  const imds = {
    interfaces: {
      macs: {
        '0a:00:00:00:00:01': { 'network-card': '1', 'device-number': '0', 'local-ipv4s': '10.0.0.5' },
        '0a:00:00:00:00:02': { 'network-card': '0', 'device-number': '3', 'local-ipv4s': '10.0.1.5' },
        '0a:00:00:00:00:03': { 'network-card': '0', 'device-number': '0', 'local-ipv4s': '10.0.2.5' },
      },
    },
  };
  const macs = new Map([
    ['0a:00:00:00:00:01', 'ens5'],
    ['0a:00:00:00:00:02', 'ens6'],
    ['0a:00:00:00:00:03', 'ens7'],
  ]);
  const v2 = convertEc2Network(imds, macs) as {
    ethernets: Record<string, { 'dhcp4-overrides': Record<string, unknown> }>;
  };
  assert.deepEqual(
    Object.fromEntries(Object.entries(v2.ethernets).map(([n, e]) => [n, e['dhcp4-overrides']['route-metric']])),
    { ens5: 300, ens6: 200, ens7: 100 },
  );
  assert.throws(
    () => convertEc2Network({ interfaces: { macs: { '0a:00:00:00:00:01': { 'device-number': 'eth0' } } } }, MACS),
    (e: unknown) =>
      e instanceof NetworkConfigError && e.key === 'ec2.network.interfaces.macs.0a:00:00:00:00:01.device-number',
  );
});

test('EC2 without full network config: DHCP on the primary NIC only', () => {
  assert.deepEqual(convertEc2Network(IMDS, MACS, { full: false, primary: 'ens5' }), {
    version: 2,
    ethernets: { ens5: { dhcp4: true, dhcp6: true, match: { macaddress: '0a:00:00:00:00:01' }, 'set-name': 'ens5' } },
  });
});

test('ENI text: source lines and options outside a stanza are errors naming the line', () => {
  assert.throws(
    () => convertEniText('auto lo\nsource /etc/network/interfaces.d/*\n'),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'network-interfaces line 2',
  );
  assert.throws(
    () => convertEniText('address 10.0.0.1\n'),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'network-interfaces line 1',
  );
  assert.throws(() => convertEniText('iface eth0 inet dhcp\niface eth0 inet static\n'), /can only be defined once/);
});

test('klibc files without DEVICE, or with an unknown PROTO, are errors naming the file', () => {
  assert.throws(
    () => initramfsNetworkConfig({ '/run/net-x.conf': 'PROTO=dhcp\n' }, 'ip=dhcp', false, new Map()),
    (e: unknown) => e instanceof NetworkConfigError && e.key === '/run/net-x.conf',
  );
  assert.throws(
    () => initramfsNetworkConfig({ '/run/net-x.conf': 'DEVICE=eth0\nPROTO=bootp\n' }, 'ip=dhcp', false, new Map()),
    /unexpected value 'bootp'/,
  );
  assert.equal(initramfsNetworkConfig({}, 'ip=dhcp', false, new Map()), undefined);
});

test('kernel network-config= that is not base64 YAML is an error, not ignored', () => {
  assert.throws(
    () => kernelCmdlineNetworkConfig('network-config=%%%'),
    (e: unknown) => e instanceof NetworkConfigError && /not base64/.test(e.message),
  );
  assert.throws(
    () => kernelCmdlineNetworkConfig(`network-config=${Buffer.from('- just\n- a list\n').toString('base64')}`),
    /does not decode to a mapping/,
  );
});
