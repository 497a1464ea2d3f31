// NetworkConfigPlugin against IP Helper and the registry faked at the binding boundary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { networkConfigPlugin } from '../../src/plugins/network-config';
import type { PluginContext } from '../../src/plugins/plugin';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const GUID = '{4D36E972-E325-11CE-BFC1-08002BE10318}';

function setup(networkConfig: InstanceData['networkConfig']) {
  const win = new FakeWindows();
  win.adapters.push({ ifIndex: 7, luid: 0x6000000000000n, guid: GUID, mac: 'fa:16:3e:00:00:01', friendlyName: 'Ethernet', description: 'virtio', mtu: 1500, dhcpv4: true, up: true, unicast: [], dnsServers: [] });
  const ctx: PluginContext = {
    platform: new FakeFiles(),
    windows: win.platform(new Logger()),
    log: new Logger().for('test'),
    conf: loadCloudbaseConf([]),
    instance: { instanceId: 'i', cloudName: 'openstack', platform: 'openstack', subplatform: 'x', publicKeys: [], metadata: {}, ...(networkConfig ? { networkConfig } : {}) },
    shared: new Map(),
    randomPassword: () => 'x',
    secret: () => undefined,
    env: {},
  };
  return { ctx, win };
}

const NETWORK_DATA = {
  links: [{ id: 'tap1', type: 'phy', ethernet_mac_address: 'FA:16:3E:00:00:01', mtu: 1450 }],
  networks: [
    { id: 'n4', type: 'ipv4', link: 'tap1', ip_address: '10.0.0.5', netmask: '255.255.255.0', routes: [{ network: '0.0.0.0', netmask: '0.0.0.0', gateway: '10.0.0.1' }, { network: '192.168.0.0', netmask: '255.255.0.0', gateway: '10.0.0.254' }] },
    { id: 'n6', type: 'ipv6', link: 'tap1', ip_address: '2001:db8::5/64', routes: [{ network: '::', netmask: '::', gateway: '2001:db8::1' }] },
  ],
  services: [{ type: 'dns', address: '10.0.0.2' }, { type: 'dns', address: '2001:db8::53' }],
};

test('OpenStack network_data.json: static v4 and v6, gateways, a route, DNS and MTU on the adapter with that MAC', async () => {
  const { ctx, win } = setup({ format: 'openstack', config: NETWORK_DATA });
  assert.deepEqual(await networkConfigPlugin.execute(ctx), { status: 'done', reboot: false });
  assert.deepEqual(win.calls.filter((c) => !c.startsWith('RegSetValueExW')), [
    'CreateUnicastIpAddressEntry 7 10.0.0.5/24',
    'CreateUnicastIpAddressEntry 7 2001:db8::5/64',
    'CreateIpForwardEntry2 7 0.0.0.0/0 via 10.0.0.1',
    'CreateIpForwardEntry2 7 ::/0 via 2001:db8::1',
    'CreateIpForwardEntry2 7 192.168.0.0/16 via 10.0.0.254',
    'SetIpInterfaceEntry 7 ipv4 mtu 1450',
    'SetIpInterfaceEntry 7 ipv6 mtu 1450',
  ]);
  const iface = `SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\${GUID}`;
  assert.deepEqual(win.getValue('HKLM', iface, 'EnableDHCP'), { type: 'REG_DWORD', data: 0 });
  assert.deepEqual(win.getValue('HKLM', iface, 'IPAddress'), { type: 'REG_MULTI_SZ', data: ['10.0.0.5'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'SubnetMask'), { type: 'REG_MULTI_SZ', data: ['255.255.255.0'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'DefaultGateway'), { type: 'REG_MULTI_SZ', data: ['10.0.0.1'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'NameServer'), { type: 'REG_SZ', data: '10.0.0.2' });
  assert.deepEqual(win.getValue('HKLM', `SYSTEM\\CurrentControlSet\\Services\\Tcpip6\\Parameters\\Interfaces\\${GUID}`, 'NameServer'), { type: 'REG_SZ', data: '2001:db8::53' });
  // Run again: nothing is added twice.
  await networkConfigPlugin.execute(ctx);
  assert.equal(win.adapters[0]?.unicast.length, 2);
  assert.equal(win.routes.length, 3);
});

test('v1 DHCP leaves the adapter alone; an unknown MAC fails naming the adapters present', async () => {
  const dhcp = setup({ format: 'v1', config: { version: 1, config: [{ type: 'physical', name: 'eth0', mac_address: 'fa:16:3e:00:00:01', subnets: [{ type: 'dhcp' }] }] } });
  await networkConfigPlugin.execute(dhcp.ctx);
  assert.deepEqual(dhcp.win.calls, []);
  const other = setup({ format: 'v1', config: { version: 1, config: [{ type: 'physical', name: 'eth9', mac_address: '02:00:00:00:00:99', subnets: [{ type: 'static', address: '10.1.1.1/24' }] }] } });
  await assert.rejects(networkConfigPlugin.execute(other.ctx), /no network adapter with MAC 02:00:00:00:00:99 \(adapters here: Ethernet fa:16:3e:00:00:01\)/);
  assert.deepEqual(other.win.calls, []);
});

test('no network config: nothing changes', async () => {
  const { ctx, win } = setup(undefined);
  assert.deepEqual(await networkConfigPlugin.execute(ctx), { status: 'done', reboot: false });
  assert.deepEqual(win.calls, []);
});
