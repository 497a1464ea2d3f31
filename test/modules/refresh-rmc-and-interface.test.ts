// refresh_rmc_and_interface: nothing without rmcctrl; with it, each IPv6-only interface is cycled, its ifcfg file
// rewritten NM_CONTROLLED=no, NetworkManager restarted.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { refreshRmcAndInterfaceModule, sysconfigPath } from '../../src/modules/refresh-rmc-and-interface';
import { findModule } from '../../src/modules/registry';
import { scriptedModule } from './scripted-module-platform';

/** `ip --json addr` of a PowerVM guest: lo, eth0 with IPv4, env3 with only an IPv6 link-local address (RMC's). */
const IP_ADDR = JSON.stringify([
  {
    ifname: 'lo',
    flags: ['LOOPBACK', 'UP', 'LOWER_UP'],
    link_type: 'loopback',
    address: '00:00:00:00:00:00',
    addr_info: [{ family: 'inet', local: '127.0.0.1', prefixlen: 8, scope: 'host' }],
  },
  {
    ifname: 'eth0',
    flags: ['UP', 'LOWER_UP'],
    link_type: 'ether',
    address: 'fa:16:3e:00:00:01',
    addr_info: [{ family: 'inet', local: '10.0.0.5', prefixlen: 24, scope: 'global' }],
  },
  {
    ifname: 'env3',
    flags: ['UP', 'LOWER_UP'],
    link_type: 'ether',
    address: 'fa:16:3e:00:00:02',
    addr_info: [{ family: 'inet6', local: 'fe80::f816:3eff:fe00:2', prefixlen: 64, scope: 'link' }],
  },
]);

function tool(root: string, path: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), '#!/bin/sh\n');
  chmodSync(join(root, path), 0o755);
}

function powerVm(
  t: TestContext,
  answers: Record<string, { stdout?: string; code?: number }> = { 'ip --json addr': { stdout: IP_ADDR } },
) {
  const s = scriptedModule(t, answers);
  tool(s.root, 'usr/sbin/rmcctrl');
  tool(s.root, 'usr/bin/ip');
  return s;
}

test('registered as 22.4 declares it: final stage, always, every distro, no activating keys', () => {
  const m = findModule('refresh-rmc-and-interface');
  assert.equal(m, refreshRmcAndInterfaceModule);
  assert.deepEqual([m?.stage, m?.frequency, m?.distros, m?.activateBy], ['final', 'always', 'all', []]);
});

test('without rmcctrl on PATH the module logs that it is disabled and does nothing', async (t) => {
  const s = scriptedModule(t);
  tool(s.root, 'usr/bin/ip');
  await refreshRmcAndInterfaceModule.run(s.ctx, {});
  assert.deepEqual(s.dry.effects, []);
  assert.match(s.ctx.lines.join('\n'), /No 'rmcctrl' in path, disabled/);
});

test('the IPv6-only interface is cycled, its ifcfg file loses its IPv6 and NM_CONTROLLED lines and gains NM_CONTROLLED=no, NetworkManager restarts', async (t) => {
  const s = powerVm(t);
  mkdirSync(join(s.root, 'etc/sysconfig/network-scripts'), { recursive: true });
  writeFileSync(
    join(s.root, 'etc/sysconfig/network-scripts/ifcfg-env3'),
    'DEVICE=env3\nIPV6INIT=yes\nIPV6ADDR=fe80::1/64\nIPADDR6=fe80::2/64\nNM_CONTROLLED=yes\nONBOOT=yes\n',
  );
  await refreshRmcAndInterfaceModule.run(s.ctx, {});
  assert.deepEqual(s.commands(), [
    'ip --json addr',
    'ip link set env3 down',
    'ip link set env3 up',
    'systemctl restart NetworkManager',
  ]);
  assert.equal(await s.dry.readText(sysconfigPath('env3')), 'DEVICE=env3\nONBOOT=yes\nNM_CONTROLLED=no\n');
  assert.deepEqual(
    s.dry.effects.filter((e) => e.kind === 'write-file').map((e) => e.path),
    ['/etc/sysconfig/network-scripts/ifcfg-env3'],
  );
});

test('an ifcfg file without IPV6INIT is left alone; NetworkManager still restarts', async (t) => {
  const s = powerVm(t);
  mkdirSync(join(s.root, 'etc/sysconfig/network-scripts'), { recursive: true });
  writeFileSync(join(s.root, 'etc/sysconfig/network-scripts/ifcfg-env3'), 'DEVICE=env3\nNM_CONTROLLED=yes\n');
  await refreshRmcAndInterfaceModule.run(s.ctx, {});
  assert.deepEqual(
    s.dry.effects.filter((e) => e.kind === 'write-file'),
    [],
  );
  assert.match(
    s.ctx.lines.join('\n'),
    /Interface file \/etc\/sysconfig\/network-scripts\/ifcfg-env3 did not have IPV6INIT/,
  );
  assert.equal(s.commands().at(-1), 'systemctl restart NetworkManager');
});

test('a missing ifcfg file fails the module after the interface was cycled, as 22.4 fails', async (t) => {
  const s = powerVm(t);
  await assert.rejects(refreshRmcAndInterfaceModule.run(s.ctx, {}), /ifcfg-env3 does not exist/);
  assert.deepEqual(s.commands(), ['ip --json addr', 'ip link set env3 down', 'ip link set env3 up']);
});

test('every interface has IPv4: nothing is cycled and NetworkManager is not restarted', async (t) => {
  const onlyV4 = JSON.stringify(JSON.parse(IP_ADDR).slice(0, 2));
  const s = powerVm(t, { 'ip --json addr': { stdout: onlyV4 } });
  await refreshRmcAndInterfaceModule.run(s.ctx, {});
  assert.deepEqual(s.commands(), ['ip --json addr']);
  assert.match(s.ctx.lines.join('\n'), /Did not find any interfaces with ipv6 addresses\./);
});

test('lo without an address (a fresh network namespace) is taken, as 22.4 takes it despite its "Skipping" log', async (t) => {
  const bareLo = JSON.stringify([
    { ifname: 'lo', flags: ['LOOPBACK'], link_type: 'loopback', address: '00:00:00:00:00:00', addr_info: [] },
  ]);
  const s = powerVm(t, { 'ip --json addr': { stdout: bareLo } });
  await assert.rejects(refreshRmcAndInterfaceModule.run(s.ctx, {}), /ifcfg-lo does not exist/);
  assert.match(s.ctx.lines.join('\n'), /Skipping localhost interface/);
  assert.deepEqual(s.commands(), ['ip --json addr', 'ip link set lo down', 'ip link set lo up']);
});

test('a failing command fails the module', async (t) => {
  const s = powerVm(t, { 'ip --json addr': { stdout: IP_ADDR }, 'ip link set env3 down': { code: 2 } });
  await assert.rejects(refreshRmcAndInterfaceModule.run(s.ctx, {}), /ip link set env3 down failed/);
});
