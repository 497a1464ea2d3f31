// fan: the config file cloud-init writes, the ubuntu-fan install when fanctl is missing, and the stop/start/enable.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fanModule } from '../../src/modules/fan';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';

const UBUNTU = { name: 'ubuntu', family: 'debian', version: '22.04' } as const;
const APT =
  'apt-get --option=Dpkg::Options::=--force-confold --option=Dpkg::options::=--force-unsafe-io --assume-yes --quiet';

test('fan writes its config with a final newline, installs ubuntu-fan without fanctl, and stops, starts and enables it', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  const ctx = dryContext(root, { distro: UBUNTU });
  await fanModule.run(ctx, { fan: { config: '10.0.0.0/8 250.0.0.0/8' } });
  assert.equal(await ctx.dry.readText('/etc/network/fan'), '10.0.0.0/8 250.0.0.0/8\n');
  assert.deepEqual(ctx.commands(), [
    `${APT} update`,
    `${APT} install ubuntu-fan`,
    'systemctl stop ubuntu-fan',
    'systemctl start ubuntu-fan',
    'systemctl enable ubuntu-fan',
  ]);
});

test('fan with fanctl present installs nothing and honours config_path; without config it does nothing', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'usr/sbin'), { recursive: true });
  writeFileSync(join(root, 'usr/sbin/fanctl'), '#!/bin/sh\n');
  chmodSync(join(root, 'usr/sbin/fanctl'), 0o755);
  const ctx = dryContext(root, { distro: UBUNTU });
  await fanModule.run(ctx, { fan: { config: 'a b\n', config_path: '/etc/fan.conf' } });
  assert.equal(await ctx.dry.readText('/etc/fan.conf'), 'a b\n');
  // No /run/systemd/system in the target: the distro's `service` tool, enable meaning start.
  assert.deepEqual(ctx.commands(), ['service ubuntu-fan stop', 'service ubuntu-fan start', 'service ubuntu-fan start']);
  const none = dryContext(root, { distro: UBUNTU });
  await fanModule.run(none, { fan: { config_path: '/etc/x' } });
  assert.deepEqual(none.dry.effects, []);
  await assert.rejects(fanModule.run(none, { fan: { config: ['not', 'text'] } }), /'fan\.config' must be a string/);
});
