// Whether the init stage needs the network (cloud-init 25.1's _should_wait_on_network) and the .skip-network marker
// init-local leaves when it does not.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { dataNeedsNetwork, initNeedsNetwork } from '../../src/runner/network-wait';
import { StageRunner } from '../../src/runner/stage-runner';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { fakeDeps, fakeSource } from './fakes';

const bytes = (s: string) => new TextEncoder().encode(s);
const judge = (s: string | undefined) => dataNeedsNetwork(s === undefined ? undefined : bytes(s));

test('user data needs the network unless it is plain cloud-config without bootcmd, mounts, a random_seed command or a remote write_files source', () => {
  assert.deepEqual(judge(undefined), { wait: false, reason: 'no configuration found' });
  assert.deepEqual(judge(''), { wait: false, reason: 'no configuration found' });
  assert.deepEqual(
    judge(
      '#cloud-config\nruncmd: [ls]\nwrite_files: [{path: /a, source: {uri: file:///x}}, {path: /b, source: {uri: /y}}]\nrandom_seed: {file: /dev/urandom}\nbootcmd: []\nmounts: []\n',
    ),
    { wait: false, reason: 'cloud-config does not contain network requiring elements' },
  );
  assert.deepEqual(judge('#!/bin/sh\necho hi\n'), { wait: true, reason: 'non-cloud-config user data found' });
  assert.deepEqual(judge('#cloud-config-archive\n- type: text/cloud-config\n'), {
    wait: true,
    reason: 'non-cloud-config user data found',
  });
  assert.deepEqual(judge(' \n'), { wait: true, reason: 'non-cloud-config user data found' });
  assert.deepEqual(dataNeedsNetwork(new Uint8Array([0x1f, 0x8b, 0x08, 0xff, 0xfe])), {
    wait: true,
    reason: 'non-cloud-config user data found',
  });
  assert.deepEqual(judge('#cloud-config\n[a\n'), { wait: true, reason: 'failed to parse user data as yaml' });
  assert.deepEqual(judge('#cloud-config\n- a\n'), { wait: true, reason: 'parsed config not in cloud-config format' });
  assert.deepEqual(judge('#cloud-config\nwrite_files: [{path: /a, source: {uri: "https://x/y"}}]\n'), {
    wait: true,
    reason: 'write_files with source uri found',
  });
  assert.deepEqual(judge('#cloud-config\nbootcmd: [ls]\n'), { wait: true, reason: 'bootcmd found' });
  assert.deepEqual(judge('#cloud-config\nrandom_seed: {command: [pollinate]}\n'), {
    wait: true,
    reason: 'random_seed command found',
  });
  assert.deepEqual(judge('#cloud-config\nmounts: [[/dev/vdb, /mnt]]\n'), { wait: true, reason: 'mounts found' });
});

test('vendor data and vendor data 2 are judged after user data, each reason naming where it was found', () => {
  const ok = bytes('#cloud-config\nruncmd: [ls]\n');
  assert.deepEqual(initNeedsNetwork(ok, bytes('#!/bin/sh\n'), undefined), {
    wait: true,
    reason: 'non-cloud-config user data found in vendor data',
  });
  assert.deepEqual(initNeedsNetwork(ok, undefined, bytes('#cloud-config\nbootcmd: [ls]\n')), {
    wait: true,
    reason: 'bootcmd found in vendor data2',
  });
  assert.deepEqual(initNeedsNetwork(ok, undefined, undefined), {
    wait: false,
    reason:
      'user data: cloud-config does not contain network requiring elements, vendor data: no configuration found, vendor data2: no configuration found',
  });
});

async function initLocal(t: Parameters<typeof tempDir>[0], userData: string): Promise<string> {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'), 'datasource_list: [Fake]\n');
  mkdirSync(join(root, 'seed/fake'), { recursive: true });
  writeFileSync(join(root, 'seed/fake/instance-id'), 'i-1\n');
  writeFileSync(join(root, 'seed/fake/user-data'), userData);
  const logger = new Logger();
  await new StageRunner({
    platform: new LinuxPlatform({ root, log: logger.for('p') }),
    logger,
    deps: fakeDeps([fakeSource()], []),
  }).runStage('init-local');
  return root;
}

test('init-local leaves /run/cloud-init/.skip-network when the found source needs no network in the init stage, as 25.1 does', async (t) => {
  const quiet = await initLocal(t, '#cloud-config\nruncmd: [ls]\n');
  assert.ok(
    existsSync(join(quiet, 'var/lib/cloud/data/instance-id')) ||
      existsSync(join(quiet, 'run/cloud-init/instance-data.json')),
    'init-local found the fake source',
  );
  assert.ok(existsSync(join(quiet, 'run/cloud-init/.skip-network')));
  const busy = await initLocal(t, '#cloud-config\nbootcmd: [ls]\n');
  assert.ok(existsSync(join(busy, 'run/cloud-init/instance-data.json')), 'init-local found the fake source');
  assert.ok(!existsSync(join(busy, 'run/cloud-init/.skip-network')));
});
