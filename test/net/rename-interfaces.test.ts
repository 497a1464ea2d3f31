// The renames planned before a config is applied (cloud-init's _rename_interfaces), and the devices a config names
// (extract_physdevs).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { currentInterfaces, extractPhysdevs, type CurrentInterface } from '../../src/net/physdevs';
import { planRenames, RenameInterfacesError } from '../../src/net/rename-interfaces';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

const A = '52:54:00:00:00:0a';
const B = '52:54:00:00:00:0b';

function nic(name: string, mac: string, up = false, downable = true): CurrentInterface {
  return { name, mac, up, downable };
}

test('a down device is renamed in one step; a name already right needs nothing', () => {
  assert.deepEqual(planRenames([{ mac: A, name: 'eth1' }], [nic('ens9', A)]), {
    ops: [{ op: 'rename', mac: A, newName: 'eth1', from: 'ens9', to: 'eth1' }],
    errors: [],
  });
  assert.deepEqual(planRenames([{ mac: A.toUpperCase(), name: 'ens9' }], [nic('ens9', A)]), { ops: [], errors: [] });
});

test('an up device without addresses is taken down, renamed and brought up again; with addresses it is busy', () => {
  const { ops } = planRenames([{ mac: A, name: 'eth1' }], [nic('ens9', A, true)]);
  assert.deepEqual(
    ops.map((o) => (o.op === 'rename' ? `rename ${o.from} ${o.to}` : `${o.op} ${o.dev}`)),
    ['down ens9', 'rename ens9 eth1', 'up eth1'],
  );
  assert.deepEqual(planRenames([{ mac: A, name: 'eth1' }], [nic('ens9', A, true, false)]).errors, [
    `[busy] Error renaming mac=${A} from ens9 to eth1`,
  ]);
});

test('two devices swapping names: the name in use moves to cirename0 first', () => {
  const { ops, errors } = planRenames(
    [
      { mac: A, name: 'eth1' },
      { mac: B, name: 'eth0' },
    ],
    [nic('eth0', A), nic('eth1', B)],
  );
  assert.deepEqual(errors, []);
  assert.deepEqual(
    ops.map((o) => (o.op === 'rename' ? `${o.from}>${o.to}` : o.op)),
    ['eth1>cirename0', 'eth0>eth1', 'cirename0>eth0'],
  );
});

test('a MAC that is not present is an error; two devices matching one MAC refuse the whole plan', () => {
  assert.deepEqual(planRenames([{ mac: A, name: 'eth1' }], [nic('ens9', B)]).errors, [
    `[nic not present] Cannot rename mac=${A} to eth1, not available.`,
  ]);
  assert.throws(() => planRenames([{ mac: A, name: 'eth1' }], [nic('x', A), nic('y', A)]), RenameInterfacesError);
});

test('extract_physdevs: v1 physical entries with a MAC, v2 ethernets with set-name and a MAC match; the driver from the config', async (t) => {
  const p = new LinuxPlatform({ root: tempDir(t), log: new Logger().for('t'), isolateNetwork: true });
  const v1 = {
    version: 1,
    config: [
      { type: 'physical', name: 'eth0', mac_address: A, params: { driver: 'virtio_net' } },
      { type: 'physical', name: 'eth1' },
      { type: 'bond', name: 'bond0', mac_address: B },
    ],
  };
  assert.deepEqual(await extractPhysdevs(p, v1), [{ mac: A, name: 'eth0', driver: 'virtio_net' }]);
  const v2 = {
    network: {
      version: 2,
      ethernets: {
        a: { match: { macaddress: A }, 'set-name': 'lan' },
        b: { match: { macaddress: B } },
        c: { 'set-name': 'x' },
      },
    },
  };
  assert.deepEqual(await extractPhysdevs(p, v2), [{ mac: A, name: 'lan' }]);
  await assert.rejects(extractPhysdevs(p, { version: 3 }), /Unknown network config version: 3/);
});

test("the machine's interfaces: bridges, bonds, VLANs, enslaved and stolen-MAC devices and zero MACs are left out", async (t) => {
  const root = tempDir(t);
  const dev = (name: string, files: Record<string, string>, dirs: string[] = []): void => {
    const d = join(root, 'sys/class/net', name);
    mkdirSync(d, { recursive: true });
    for (const [f, v] of Object.entries(files)) {
      mkdirSync(join(d, f, '..'), { recursive: true });
      writeFileSync(join(d, f), `${v}\n`);
    }
    for (const sub of dirs) mkdirSync(join(d, sub), { recursive: true });
  };
  dev('ens9', {
    address: A.toUpperCase(),
    operstate: 'down',
    addr_assign_type: '3',
    'device/uevent': 'DRIVER=virtio_net',
    'device/device': '0x1000',
  });
  dev('br0', { address: B, operstate: 'up' }, ['bridge']);
  dev('bond0', { address: B, operstate: 'up' }, ['bonding']);
  dev('vlan5', { address: A, operstate: 'up', uevent: 'DEVTYPE=vlan\nINTERFACE=vlan5' });
  dev('stolen', { address: A, addr_assign_type: '2' });
  dev('dummy', { address: '00:00:00:00:00:00', operstate: 'unknown' });
  dev('lo', { address: '00:00:00:00:00:00', operstate: 'unknown' });
  const p = new LinuxPlatform({ root, log: new Logger().for('t'), isolateNetwork: true });
  const got = (await currentInterfaces(p)).sort((x, y) => x.name.localeCompare(y.name));
  assert.deepEqual(got, [
    { name: 'ens9', mac: A, up: false, driver: 'virtio_net', deviceId: '0x1000' },
    { name: 'lo', mac: '00:00:00:00:00:00', up: true },
  ]);
});
