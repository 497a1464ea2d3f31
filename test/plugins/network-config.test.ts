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

/**
 * netsh as far as the plugin uses it: `interface ipv4 set address` (the adapter's static address, DHCP off) and
 * the IPv6 persistent store (`show`/`add address|route … store=persistent`), printed as Windows prints them.
 */
class FakeNetsh {
  readonly staticIpv4 = new Map<number, string[]>();
  readonly addresses: Array<{ ifIndex: number; address: string }> = [];
  readonly routes: Array<{ ifIndex: number; prefix: string; nextHop: string; metric: string }> = [];
  handle(argv: string[]): { code: number; stdout: string } {
    if (argv[0] !== 'netsh') return { code: 0, stdout: '' };
    const args = argv.slice(1).join(' ');
    const opt = (name: string) => argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1) ?? '';
    if (args.startsWith('interface ipv4 set address ')) {
      this.staticIpv4.set(Number(opt('name')), argv.slice(5));
      return { code: 0, stdout: 'Ok.\r\n' };
    }
    if (args.startsWith('interface ipv6 show addresses ')) {
      const mine = this.addresses.filter((a) => a.ifIndex === Number(opt('interface')));
      return {
        code: 0,
        stdout: mine
          .map(
            (a) =>
              `Address ${a.address} Parameters\r\n---------------------------------------------------------\r\nInterface Luid     : Ethernet\r\nDad State          : Preferred\r\n\r\n`,
          )
          .join(''),
      };
    }
    if (args.startsWith('interface ipv6 show route ')) {
      const head =
        'Publish  Type      Met  Prefix                    Idx  Gateway/Interface Name\r\n-------  --------  ---  ------------------------  ---  ------------------------\r\n';
      return {
        code: 0,
        stdout:
          head +
          this.routes
            .map(
              (r) =>
                `No       Manual    ${r.metric.padEnd(3)}  ${r.prefix.padEnd(24)}  ${String(r.ifIndex).padStart(3)}  ${r.nextHop}\r\n`,
            )
            .join(''),
      };
    }
    if (args.startsWith('interface ipv6 add address ')) {
      this.addresses.push({ ifIndex: Number(opt('interface')), address: opt('address').split('/')[0] as string });
      return { code: 0, stdout: 'Ok.\r\n' };
    }
    if (args.startsWith('interface ipv6 add route ')) {
      this.routes.push({
        ifIndex: Number(opt('interface')),
        prefix: opt('prefix'),
        nextHop: opt('nexthop'),
        metric: opt('metric') || '256',
      });
      return { code: 0, stdout: 'Ok.\r\n' };
    }
    return { code: 1, stdout: 'The following command was not found\r\n' };
  }
}

function setup(networkConfig: InstanceData['networkConfig']) {
  const win = new FakeWindows();
  win.adapters.push({
    ifIndex: 7,
    luid: 0x6000000000000n,
    guid: GUID,
    mac: 'fa:16:3e:00:00:01',
    friendlyName: 'Ethernet',
    description: 'virtio',
    mtu: 1500,
    dhcpv4: true,
    up: true,
    unicast: [],
    dnsServers: [],
  });
  const files = new FakeFiles();
  const netsh = new FakeNetsh();
  files.onRun = (argv) => netsh.handle(argv);
  const ctx: PluginContext = {
    platform: files,
    windows: win.platform(new Logger()),
    log: new Logger().for('test'),
    conf: loadCloudbaseConf([]),
    instance: {
      instanceId: 'i',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'x',
      publicKeys: [],
      metadata: {},
      ...(networkConfig ? { networkConfig } : {}),
    },
    shared: new Map(),
    randomPassword: () => 'x',
    secret: () => undefined,
    env: {},
  };
  return { ctx, win, files, netsh };
}

const NETWORK_DATA = {
  links: [{ id: 'tap1', type: 'phy', ethernet_mac_address: 'FA:16:3E:00:00:01', mtu: 1450 }],
  networks: [
    {
      id: 'n4',
      type: 'ipv4',
      link: 'tap1',
      ip_address: '10.0.0.5',
      netmask: '255.255.255.0',
      routes: [
        { network: '0.0.0.0', netmask: '0.0.0.0', gateway: '10.0.0.1' },
        { network: '192.168.0.0', netmask: '255.255.0.0', gateway: '10.0.0.254' },
      ],
    },
    {
      id: 'n6',
      type: 'ipv6',
      link: 'tap1',
      ip_address: '2001:db8::5/64',
      routes: [{ network: '::', netmask: '::', gateway: '2001:db8::1' }],
    },
  ],
  services: [
    { type: 'dns', address: '10.0.0.2' },
    { type: 'dns', address: '2001:db8::53' },
  ],
};

test('OpenStack network_data.json: static v4 and v6, gateways, a route, DNS and MTU on the adapter with that MAC', async () => {
  const { ctx, win } = setup({ format: 'openstack', config: NETWORK_DATA });
  assert.deepEqual(await networkConfigPlugin.execute(ctx), { status: 'done', reboot: false });
  assert.deepEqual(
    win.calls.filter((c) => !c.startsWith('RegSetValueExW')),
    [
      'CreateUnicastIpAddressEntry 7 10.0.0.5/24',
      'CreateUnicastIpAddressEntry 7 2001:db8::5/64',
      'CreateIpForwardEntry2 7 0.0.0.0/0 via 10.0.0.1',
      'CreateIpForwardEntry2 7 ::/0 via 2001:db8::1',
      'CreateIpForwardEntry2 7 192.168.0.0/16 via 10.0.0.254',
      'SetIpInterfaceEntry 7 ipv4 mtu 1450',
      'SetIpInterfaceEntry 7 ipv6 mtu 1450',
    ],
  );
  const iface = `SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\${GUID}`;
  assert.deepEqual(win.getValue('HKLM', iface, 'EnableDHCP'), { type: 'REG_DWORD', data: 0 });
  assert.deepEqual(win.getValue('HKLM', iface, 'IPAddress'), { type: 'REG_MULTI_SZ', data: ['10.0.0.5'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'SubnetMask'), { type: 'REG_MULTI_SZ', data: ['255.255.255.0'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'DefaultGateway'), { type: 'REG_MULTI_SZ', data: ['10.0.0.1'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'NameServer'), { type: 'REG_SZ', data: '10.0.0.2' });
  assert.deepEqual(
    win.getValue('HKLM', `SYSTEM\\CurrentControlSet\\Services\\Tcpip6\\Parameters\\Interfaces\\${GUID}`, 'NameServer'),
    { type: 'REG_SZ', data: '2001:db8::53' },
  );
  // Run again: nothing is added twice.
  await networkConfigPlugin.execute(ctx);
  assert.equal(win.adapters[0]?.unicast.length, 2);
  assert.equal(win.routes.length, 3);
});

test('v1 DHCP leaves the adapter alone; an unknown MAC fails naming the adapters present', async () => {
  const dhcp = setup({
    format: 'v1',
    config: {
      version: 1,
      config: [{ type: 'physical', name: 'eth0', mac_address: 'fa:16:3e:00:00:01', subnets: [{ type: 'dhcp' }] }],
    },
  });
  await networkConfigPlugin.execute(dhcp.ctx);
  assert.deepEqual(dhcp.win.calls, []);
  const other = setup({
    format: 'v1',
    config: {
      version: 1,
      config: [
        {
          type: 'physical',
          name: 'eth9',
          mac_address: '02:00:00:00:00:99',
          subnets: [{ type: 'static', address: '10.1.1.1/24' }],
        },
      ],
    },
  });
  await assert.rejects(
    networkConfigPlugin.execute(other.ctx),
    /no network adapter with MAC 02:00:00:00:00:99 \(adapters here: Ethernet fa:16:3e:00:00:01\)/,
  );
  assert.deepEqual(other.win.calls, []);
});

test('no network config: nothing changes', async () => {
  const { ctx, win } = setup(undefined);
  assert.deepEqual(await networkConfigPlugin.execute(ctx), { status: 'done', reboot: false });
  assert.deepEqual(win.calls, []);
});

const PERSISTENT_ROUTES = 'SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\PersistentRoutes';

test('what survives a reboot: static IPv4 with DHCP off and DNS in the Tcpip keys, extra IPv4 routes in PersistentRoutes, IPv6 addresses, gateway and routes in the persistent store; a second run adds nothing', async () => {
  const withRoutes = structuredClone(NETWORK_DATA);
  withRoutes.networks[1]?.routes.push({
    network: '2001:db8:100::',
    netmask: 'ffff:ffff:ffff::',
    gateway: '2001:db8::fe',
  });
  const { ctx, win, files, netsh } = setup({ format: 'openstack', config: withRoutes });
  assert.deepEqual(await networkConfigPlugin.execute(ctx), { status: 'done', reboot: false });
  // IPv4: netsh makes the address static now and for the next boots (DHCP off), the Tcpip key holds the rest.
  assert.deepEqual(netsh.staticIpv4.get(7), [
    'name=7',
    'source=static',
    'address=10.0.0.5',
    'mask=255.255.255.0',
    'gateway=10.0.0.1',
  ]);
  const iface = `SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\${GUID}`;
  assert.deepEqual(win.getValue('HKLM', iface, 'EnableDHCP'), { type: 'REG_DWORD', data: 0 });
  assert.deepEqual(win.getValue('HKLM', iface, 'IPAddress'), { type: 'REG_MULTI_SZ', data: ['10.0.0.5'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'DefaultGateway'), { type: 'REG_MULTI_SZ', data: ['10.0.0.1'] });
  assert.deepEqual(win.getValue('HKLM', iface, 'NameServer'), { type: 'REG_SZ', data: '10.0.0.2' });
  assert.deepEqual(
    win.getValue('HKLM', `SYSTEM\\CurrentControlSet\\Services\\Tcpip6\\Parameters\\Interfaces\\${GUID}`, 'NameServer'),
    { type: 'REG_SZ', data: '2001:db8::53' },
  );
  // The extra IPv4 route as `route -p` keeps it; the default gateway is the DefaultGateway value, not a persistent
  // route.
  assert.deepEqual(ctx.windows.regList('HKLM', PERSISTENT_ROUTES), [
    { name: '192.168.0.0,255.255.0.0,10.0.0.254,1', value: { type: 'REG_SZ', data: '' } },
  ]);
  // IPv6: address, default gateway and the extra route in the persistent store.
  assert.deepEqual(netsh.addresses, [{ ifIndex: 7, address: '2001:db8::5' }]);
  assert.deepEqual(
    netsh.routes.map((r) => [r.ifIndex, r.prefix, r.nextHop]),
    [
      [7, '::/0', '2001:db8::1'],
      [7, '2001:db8:100::/48', '2001:db8::fe'],
    ],
  );
  // And live, through IP Helper, all of it.
  assert.deepEqual(
    win.routes.map((r) => `${r.destination}/${r.prefixLength} via ${r.nextHop}`),
    [
      '0.0.0.0/0 via 10.0.0.1',
      '::/0 via 2001:db8::1',
      '192.168.0.0/16 via 10.0.0.254',
      '2001:db8:100::/48 via 2001:db8::fe',
    ],
  );

  const adds = () => files.runs.filter((argv) => argv[3] === 'add').length;
  const before = adds();
  await networkConfigPlugin.execute(ctx);
  assert.equal(adds(), before, 'what the persistent store has is not added again');
  assert.equal(netsh.addresses.length, 1);
  assert.equal(netsh.routes.length, 2);
});

test('DHCP goes off only on an adapter given a static IPv4 address: DHCPv4 with a static IPv6 keeps DHCPv4', async () => {
  const { ctx, win, netsh } = setup({
    format: 'v1',
    config: {
      version: 1,
      config: [
        {
          type: 'physical',
          name: 'eth0',
          mac_address: 'fa:16:3e:00:00:01',
          subnets: [{ type: 'dhcp' }, { type: 'static6', address: '2001:db8::9/64' }],
        },
      ],
    },
  });
  await networkConfigPlugin.execute(ctx);
  assert.equal(netsh.staticIpv4.size, 0);
  assert.equal(
    win.getValue('HKLM', `SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\${GUID}`, 'EnableDHCP'),
    undefined,
  );
  assert.deepEqual(netsh.addresses, [{ ifIndex: 7, address: '2001:db8::9' }]);

  const v4 = setup({
    format: 'v1',
    config: {
      version: 1,
      config: [
        {
          type: 'physical',
          name: 'eth0',
          mac_address: 'fa:16:3e:00:00:01',
          subnets: [
            { type: 'static', address: '10.1.1.5/24' },
            { type: 'static', address: '10.1.2.5/24' },
          ],
        },
      ],
    },
  });
  await networkConfigPlugin.execute(v4.ctx);
  assert.deepEqual(v4.netsh.staticIpv4.get(7), ['name=7', 'source=static', 'address=10.1.1.5', 'mask=255.255.255.0']);
  const iface = `SYSTEM\\CurrentControlSet\\Services\\Tcpip\\Parameters\\Interfaces\\${GUID}`;
  assert.deepEqual(v4.win.getValue('HKLM', iface, 'EnableDHCP'), { type: 'REG_DWORD', data: 0 });
  assert.deepEqual(v4.win.getValue('HKLM', iface, 'IPAddress'), {
    type: 'REG_MULTI_SZ',
    data: ['10.1.1.5', '10.1.2.5'],
  });
  assert.deepEqual(
    v4.win.adapters[0]?.unicast.map((u) => u.address),
    ['10.1.1.5', '10.1.2.5'],
  );
});
