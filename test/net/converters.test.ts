// Provider converters' edge cases: EC2 primary-only mode, ENI text errors, klibc files without a device.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertEc2Network } from '../../src/net/convert-ec2';
import { convertEniText } from '../../src/net/convert-eni';
import { initramfsNetworkConfig, kernelCmdlineNetworkConfig } from '../../src/net/initramfs-config';
import { NetworkConfigError } from '../../src/net/net-error';

const IMDS = {
  interfaces: {
    macs: {
      '0a:00:00:00:00:01': { 'device-number': '0', 'local-ipv4s': ['10.0.0.5', '10.0.0.6'], 'subnet-ipv4-cidr-block': '10.0.0.0/20', ipv6s: '2600::5' },
      '0a:00:00:00:00:02': { 'device-number': '1', 'local-ipv4s': '10.0.1.5' },
      '0a:00:00:00:00:03': { 'device-number': '2', 'local-ipv4s': '10.0.2.5' },
    },
  },
};
const MACS = new Map([['0a:00:00:00:00:01', 'ens5'], ['0a:00:00:00:00:02', 'ens6']]);

test('EC2: every NIC on the machine gets DHCP with a metric per device number; NICs not on the machine are left out', () => {
  assert.deepEqual(convertEc2Network(IMDS, MACS), {
    version: 2,
    ethernets: {
      ens5: { dhcp4: true, 'dhcp4-overrides': { 'route-metric': 100 }, dhcp6: true, 'dhcp6-overrides': { 'route-metric': 100 }, match: { macaddress: '0a:00:00:00:00:01' }, 'set-name': 'ens5', addresses: ['10.0.0.6/20'] },
      ens6: { dhcp4: true, 'dhcp4-overrides': { 'route-metric': 200 }, dhcp6: false, match: { macaddress: '0a:00:00:00:00:02' }, 'set-name': 'ens6' },
    },
  });
});

test('EC2 without full network config: DHCP on the primary NIC only', () => {
  assert.deepEqual(convertEc2Network(IMDS, MACS, { full: false, primary: 'ens5' }), {
    version: 2,
    ethernets: { ens5: { dhcp4: true, dhcp6: true, match: { macaddress: '0a:00:00:00:00:01' }, 'set-name': 'ens5' } },
  });
});

test('ENI text: source lines and options outside a stanza are errors naming the line', () => {
  assert.throws(() => convertEniText('auto lo\nsource /etc/network/interfaces.d/*\n'), (e: unknown) => e instanceof NetworkConfigError && e.key === 'network-interfaces line 2');
  assert.throws(() => convertEniText('address 10.0.0.1\n'), (e: unknown) => e instanceof NetworkConfigError && e.key === 'network-interfaces line 1');
  assert.throws(() => convertEniText('iface eth0 inet dhcp\niface eth0 inet static\n'), /can only be defined once/);
});

test('klibc files without DEVICE, or with an unknown PROTO, are errors naming the file', () => {
  assert.throws(() => initramfsNetworkConfig({ '/run/net-x.conf': 'PROTO=dhcp\n' }, 'ip=dhcp', false, new Map()), (e: unknown) => e instanceof NetworkConfigError && e.key === '/run/net-x.conf');
  assert.throws(() => initramfsNetworkConfig({ '/run/net-x.conf': 'DEVICE=eth0\nPROTO=bootp\n' }, 'ip=dhcp', false, new Map()), /unexpected value 'bootp'/);
  assert.equal(initramfsNetworkConfig({}, 'ip=dhcp', false, new Map()), undefined);
});

test('kernel network-config= that is not base64 YAML is an error, not ignored', () => {
  assert.throws(() => kernelCmdlineNetworkConfig('network-config=%%%'), (e: unknown) => e instanceof NetworkConfigError && /not base64/.test(e.message));
  assert.throws(() => kernelCmdlineNetworkConfig(`network-config=${Buffer.from('- just\n- a list\n').toString('base64')}`), /does not decode to a mapping/);
});
