// cc_lxd on a sandbox root, as cloud-init 25.1: lxd from the snap, the packages each storage backend needs, lxd init's
// exact options (and the lvm retry without a thin pool), the preseed on stdin, and the bridge through lxc or debconf.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';
import { bridgeCommands, lxdModule } from '../../src/modules/lxd';
import { putTool } from './root-files';
import { scriptedModule } from './scripted-module-platform';

const UBUNTU = { name: 'ubuntu', family: 'debian', version: '22.04' } as const;
const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';

test('lxd: installs lxd from the snap and zfsutils-linux when missing, waits, then lxd init --auto with every option in order', async (t) => {
  const { ctx, commands } = scriptedModule(t, {}, UBUNTU);
  await lxdModule.run(ctx, {
    lxd: {
      init: {
        trust_password: 'pw',
        storage_pool: 'pool1',
        storage_create_loop: 10,
        storage_backend: 'zfs',
        network_port: 8443,
        network_address: '0.0.0.0',
        storage_create_device: '',
      },
    },
  });
  assert.deepEqual(commands(), [
    'snap install lxd',
    `${APT} update`,
    `${APT} install zfsutils-linux`,
    'lxd waitready --timeout=300',
    'lxd init --auto --network-address=0.0.0.0 --network-port=8443 --storage-backend=zfs --storage-create-loop=10 --storage-pool=pool1 --trust-password=pw',
  ]);
});

test('lxd: the backend tools already present install nothing; btrfs and dir need no other package', async (t) => {
  const { root, ctx, commands } = scriptedModule(t, {}, UBUNTU);
  putTool(root, '/usr/bin/lxd');
  putTool(root, '/usr/bin/mkfs.btrfs');
  await lxdModule.run(ctx, { lxd: { init: { storage_backend: 'btrfs' } } });
  await lxdModule.run(ctx, { lxd: { init: { storage_backend: 'dir' } } });
  assert.deepEqual(commands(), [
    'lxd waitready --timeout=300',
    'lxd init --auto --storage-backend=btrfs',
    'lxd waitready --timeout=300',
    'lxd init --auto --storage-backend=dir',
  ]);
});

test('lxd: lvm goes to lxd init; only when that fails is the pool made without a thin pool and init run again without the backend (25.1)', async (t) => {
  const INIT = 'lxd init --auto --storage-backend=lvm --storage-pool=p';
  const failing = scriptedModule(t, { [INIT]: { code: 1, stderr: 'Error: thin pool' } }, UBUNTU);
  putTool(failing.root, '/usr/bin/lxd');
  putTool(failing.root, '/usr/sbin/lvcreate');
  await lxdModule.run(failing.ctx, { lxd: { init: { storage_backend: 'lvm', storage_pool: 'p' } } });
  assert.deepEqual(failing.commands(), [
    'lxd waitready --timeout=300',
    INIT,
    'lxc storage create default lvm lvm.use_thinpool=false',
    'lxd init --auto --storage-pool=p',
  ]);
  assert.ok(failing.ctx.lines.some((l) => l.includes('LP #1982780')));
  const working = scriptedModule(t, {}, UBUNTU);
  putTool(working.root, '/usr/bin/lxd');
  await lxdModule.run(working.ctx, { lxd: { init: { storage_backend: 'lvm' } } });
  assert.deepEqual(working.commands(), [
    `${APT} update`,
    `${APT} install lvm2`,
    'lxd waitready --timeout=300',
    'lxd init --auto --storage-backend=lvm',
  ]);
  // Another backend's failure fails the module; without a backend, cloud-init's lookup of it is a KeyError.
  const zfs = scriptedModule(
    t,
    { 'lxd init --auto --storage-backend=dir': { code: 1 }, 'lxd init --auto --network-port=1': { code: 1 } },
    UBUNTU,
  );
  putTool(zfs.root, '/usr/bin/lxd');
  await assert.rejects(lxdModule.run(zfs.ctx, { lxd: { init: { storage_backend: 'dir' } } }), /exited with code 1/);
  await assert.rejects(lxdModule.run(zfs.ctx, { lxd: { init: { network_port: 1 } } }), /'storage_backend'/);
});

test('lxd: without lxd and without snap, the snap install fails the module before anything else runs (25.1)', async (t) => {
  const { ctx, commands } = scriptedModule(
    t,
    { 'snap install lxd': { code: 1, stderr: 'error: snap "lxd" not found' } },
    UBUNTU,
  );
  await assert.rejects(
    lxdModule.run(ctx, { lxd: { init: { storage_backend: 'dir' } } }),
    /Failed to install lxd from snap/,
  );
  assert.deepEqual(commands(), ['snap install lxd']);
});

test('lxd: a failed package install is a warning and ends the module without failing it', async (t) => {
  const { root, ctx, commands } = scriptedModule(
    t,
    { [`${APT} install zfsutils-linux`]: { code: 100, stderr: 'E: Unable to locate package zfsutils-linux' } },
    UBUNTU,
  );
  putTool(root, '/usr/bin/lxd');
  await lxdModule.run(ctx, { lxd: { init: { storage_backend: 'zfs' } } });
  assert.deepEqual(commands(), [`${APT} update`, `${APT} install zfsutils-linux`]);
  assert.ok(ctx.lines.some((l) => l.includes('failed to install packages ["zfsutils-linux"]')));
});

test('lxd: preseed goes to lxd init --preseed on stdin; its storage_pools drivers pick the packages', async (t) => {
  const { root, ctx, dry, commands } = scriptedModule(t, {}, UBUNTU);
  putTool(root, '/usr/bin/lxd');
  const preseed = 'config: {}\nstorage_pools:\n- name: default\n  driver: btrfs\n- name: z\n  driver: zfs\n';
  await lxdModule.run(ctx, { lxd: { preseed } });
  assert.deepEqual(commands(), [
    `${APT} update`,
    `${APT} install zfsutils-linux btrfs-progs`,
    'lxd waitready --timeout=300',
    'lxd init --preseed',
  ]);
  assert.equal(dry.calls.at(-1)?.input, preseed);
});

test('lxd: preseed with init or bridge is refused, naming both', async (t) => {
  const { ctx, commands } = scriptedModule(t, {}, UBUNTU);
  await assert.rejects(
    lxdModule.run(ctx, { lxd: { preseed: 'x', init: { storage_backend: 'dir' }, bridge: { mode: 'none' } } }),
    /can not be provided with key\(s\): lxd\.init, lxd\.bridge/,
  );
  assert.deepEqual(commands(), []);
});

test('lxd: a new bridge after init: lxdbr0 that init made is detached and deleted, eth0 removed, then created and attached with --force-local', async (t) => {
  // Exit code 1 from a cleanup step means the thing was not there: the module goes on.
  const { root, ctx, dry, commands } = scriptedModule(
    t,
    { 'lxc profile device remove default eth0 --force-local': { code: 1 } },
    UBUNTU,
  );
  putTool(root, '/usr/bin/lxd');
  await lxdModule.run(ctx, {
    lxd: {
      init: { storage_backend: 'dir' },
      bridge: {
        mode: 'new',
        ipv4_address: '10.0.8.1',
        ipv4_netmask: 24,
        ipv4_dhcp_first: '10.0.8.2',
        ipv4_dhcp_last: '10.0.8.254',
        ipv6_address: 'fd98::1',
        ipv6_netmask: 64,
        ipv6_nat: 'true',
        domain: 'lxd',
        mtu: 1400,
      },
    },
  });
  assert.deepEqual(commands(), [
    'lxd waitready --timeout=300',
    'lxd init --auto --storage-backend=dir',
    'lxc network detach-profile lxdbr0 default --force-local',
    'lxc network delete lxdbr0 --force-local',
    'lxc profile device remove default eth0 --force-local',
    'lxc network create lxdbr0 ipv4.address=10.0.8.1/24 ipv4.nat=true ipv4.dhcp.ranges=10.0.8.2-10.0.8.254 ipv6.address=fd98::1/64 ipv6.nat=true dns.domain=lxd bridge.mtu=1400 --force-local',
    'lxc network attach-profile lxdbr0 default eth0 --force-local',
  ]);
  assert.equal(dry.calls.at(-1)?.env?.LC_ALL, 'C');
});

test('lxd: bridge commands: no addresses means none; a boolean ipv4_nat does not match cloud-init\'s "true"; existing only attaches; none does nothing', () => {
  assert.deepEqual(bridgeCommands({ mode: 'new', name: 'br9' }), {
    create: ['network', 'create', 'br9', 'ipv4.address=none', 'ipv6.address=none'],
    attach: ['network', 'attach-profile', 'br9', 'default', 'eth0'],
  });
  assert.deepEqual(bridgeCommands({ mode: 'new', ipv4_address: '10.1.1.1', ipv4_netmask: 24, ipv4_nat: true }).create, [
    'network',
    'create',
    'lxdbr0',
    'ipv4.address=10.1.1.1/24',
    'ipv6.address=none',
  ]);
  assert.deepEqual(bridgeCommands({ mode: 'existing', name: 'br0' }), {
    attach: ['network', 'attach-profile', 'br0', 'default', 'eth0'],
  });
  assert.deepEqual(bridgeCommands({ mode: 'none' }), {});
  assert.throws(() => bridgeCommands({ mode: 'odd' }), /invalid bridge mode "odd"/);
  // cloud-init's 'invalid bridge mode "%s"' % None: Python's str() of a null mode.
  assert.throws(() => bridgeCommands({ mode: null }), /invalid bridge mode "None"/);
});

test('lxd: values 25.1 takes and its schema rejects reach the module: ipv4_nat "true" turns NAT on, a numeric port and netmask are their str()', async (t) => {
  const { root, ctx, commands } = scriptedModule(t, {}, UBUNTU);
  putTool(root, '/usr/bin/lxd');
  await lxdModule.run(ctx, {
    lxd: {
      init: { network_port: '8443', storage_backend: 'dir' },
      bridge: { mode: 'new', name: 'br1', ipv4_address: '10.2.0.1', ipv4_netmask: '16', ipv4_nat: 'true' },
    },
  });
  assert.deepEqual(commands(), [
    'lxd waitready --timeout=300',
    'lxd init --auto --network-port=8443 --storage-backend=dir',
    'lxc network create br1 ipv4.address=10.2.0.1/16 ipv4.nat=true ipv6.address=none --force-local',
    'lxc network attach-profile br1 default eth0 --force-local',
  ]);
});

test("lxd: its own checks fail the module in its words after the snap seed wait, as 25.1's do; a mapping-less lxd before it", async (t) => {
  const { root, ctx, commands } = scriptedModule(t, {}, UBUNTU);
  putTool(root, '/usr/bin/snap');
  await assert.rejects(lxdModule.run(ctx, { lxd: { init: 'dir', preseed: 5 } }), {
    name: 'ModuleError',
    message:
      "lxd: lxd.init config must be a dictionary. found a 'str'. lxd.preseed config must be a string. found a 'int'. Unable to configure LXD. lxd.preseed config can not be provided with key(s): lxd.init",
  });
  assert.deepEqual(commands(), ['snap wait system seed.loaded']);
  // A null init, bridge or preseed is None to dict.get, not its default: refused the same way.
  await assert.rejects(lxdModule.run(ctx, { lxd: { init: null, bridge: null, preseed: null } }), {
    name: 'ModuleError',
    message:
      "lxd: lxd.init config must be a dictionary. found a 'NoneType'. lxd.bridge config must be a dictionary. found a 'NoneType'. lxd.preseed config must be a string. found a 'NoneType'",
  });
  await assert.rejects(lxdModule.run(ctx, { lxd: ['x'] }), {
    name: 'ModuleError',
    message: "lxd: lxd config must be a dictionary. found a 'list'",
  });
  await lxdModule.run(ctx, { lxd: {} });
  assert.deepEqual(commands(), ['snap wait system seed.loaded']);
  assert.ok(ctx.lines.some((l) => l.includes('Skipping module named lxd, not present or disabled by cfg')));
});

test('lxd: with /etc/default/lxd-bridge and debconf-communicate, the bridge goes through debconf and dpkg-reconfigure', async (t) => {
  const { root, ctx, dry, commands } = scriptedModule(t, {}, UBUNTU);
  putTool(root, '/usr/bin/lxd');
  putTool(root, '/usr/bin/debconf-communicate');
  mkdirSync(join(root, 'etc/default'), { recursive: true });
  writeFileSync(join(root, 'etc/default/lxd-bridge'), 'USE_LXD_BRIDGE="true"\n');
  await lxdModule.run(ctx, {
    lxd: { bridge: { mode: 'new', name: 'lxdbr1', ipv4_address: '10.0.9.1', ipv4_netmask: 24, domain: 'x' } },
  });
  assert.deepEqual(commands(), [
    'lxd waitready --timeout=300',
    'debconf-communicate',
    'dpkg-reconfigure lxd --frontend=noninteractive',
  ]);
  assert.equal(
    dry.calls[1]?.input,
    [
      'set lxd/setup-bridge true',
      'set lxd/bridge-name lxdbr1',
      'set lxd/bridge-ipv4 true',
      'set lxd/bridge-ipv4-address 10.0.9.1',
      'set lxd/bridge-ipv4-netmask 24',
      'set lxd/bridge-ipv4-dhcp-first None',
      'set lxd/bridge-ipv4-dhcp-last None',
      'set lxd/bridge-ipv4-dhcp-leases None',
      'set lxd/bridge-ipv4-nat true',
      'set lxd/bridge-domain x',
      '',
    ].join('\n'),
  );
  assert.equal(await dry.exists('/etc/default/lxd-bridge'), false);
});

test('lxd: the schema names a bad key and its line', () => {
  const doc = [
    '#cloud-config',
    'lxd:',
    '  init:',
    '    storage_backend: ext4',
    '  bridge:',
    '    mode: new',
    '    ipv4_adress: 10.0.0.1',
    '',
  ].join('\n');
  assert.deepEqual(
    validateCloudConfig(doc).problems.map((p) => `${p.line} ${p.path}`),
    ['5 lxd.bridge', '4 lxd.init.storage_backend'],
  );
});
