// `devel hotplug-hook` on --root sandboxes holding a booted instance's cache: query per source and config, enable,
// the usage errors; handle's real run (a NIC added in a network namespace) is in test/cli/hotplug-netns.test.ts.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { main } from '../../src/main';
import { serializeInstance } from '../../src/runner/instance-cache';
import type { InstanceData } from '../../src/sources/datasource';
import { tempDir } from '../helpers/temp';

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await main({
    argv: args,
    argv0: '/usr/bin/cloud-init',
    env: {},
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
  });
  return { code, out, err };
}

/** A root as a boot left it: SOURCE's instance in obj.json, USER CONFIG as the instance's cloud-config.txt. */
function bootedRoot(t: TestContext, source: string, userConfig?: string, extra: Partial<InstanceData> = {}): string {
  const root = tempDir(t);
  const data: InstanceData = {
    instanceId: 'i-hotplug',
    cloudName: source.toLowerCase(),
    platform: source.toLowerCase(),
    subplatform: 'metadata (http://169.254.169.254)',
    publicKeys: [],
    metadata: {},
    ...extra,
  };
  const dir = join(root, 'var/lib/cloud/instances/i-hotplug');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'obj.json'), serializeInstance(source, data, 'network'));
  if (userConfig !== undefined) writeFileSync(join(dir, 'cloud-config.txt'), `#cloud-config\n${userConfig}`);
  symlinkSync('/var/lib/cloud/instances/i-hotplug', join(root, 'var/lib/cloud/instance'));
  mkdirSync(join(root, 'etc/cloud'), { recursive: true });
  return root;
}

const HOTPLUG = 'updates:\n  network:\n    when: [boot-new-instance, hotplug]\n';

test("hotplug-hook query: enabled with hotplug in updates.network.when, for any source (25.1's base class supports it); disabled otherwise but on Ec2, whose default events include hotplug in 25.1", async (t) => {
  for (const source of ['Ec2', 'OpenStack', 'ConfigDrive', 'NoCloud', 'Azure', 'GCE', 'None']) {
    const r = await cli(['--root', bootedRoot(t, source, HOTPLUG), 'devel', 'hotplug-hook', '-s', 'net', 'query']);
    assert.deepEqual([r.code, r.out], [0, 'enabled\n'], `${source}: ${r.err}`);
    const off = await cli([
      '--root',
      bootedRoot(t, source, 'hostname: x\n'),
      'devel',
      'hotplug-hook',
      '--subsystem',
      'net',
      'query',
    ]);
    assert.deepEqual([off.code, off.out], [0, source === 'Ec2' ? 'enabled\n' : 'disabled\n'], source);
  }
});

test("hotplug-hook query: the system config's updates count too; with no cached instance it asks None as 25.1's fetch does (disabled, or enabled by hotplug.enabled), and without None in datasource_list it says so and exits 1", async (t) => {
  const root = bootedRoot(t, 'OpenStack');
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/10-hotplug.cfg'), HOTPLUG);
  assert.equal((await cli(['--root', root, 'devel', 'hotplug-hook', '-s', 'net', 'query'])).out, 'enabled\n');
  const empty = tempDir(t);
  const r = await cli(['--root', empty, 'devel', 'hotplug-hook', '-s', 'net', 'query']);
  assert.deepEqual([r.code, r.out], [0, 'disabled\n'], r.err);
  const enabled = await cli(['--root', empty, 'devel', 'hotplug-hook', '-s', 'net', 'enable']);
  assert.deepEqual([enabled.code, enabled.out], [0, 'Enabled cloud-init hotplug for subsystem=net\n'], enabled.err);
  assert.equal((await cli(['--root', empty, 'devel', 'hotplug-hook', '-s', 'net', 'query'])).out, 'enabled\n');
  const noNone = tempDir(t);
  mkdirSync(join(noNone, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(noNone, 'etc/cloud/cloud.cfg.d/10-list.cfg'), 'datasource_list: [NoCloud]\n');
  const without = await cli(['--root', noNone, 'devel', 'hotplug-hook', '-s', 'net', 'query']);
  assert.deepEqual([without.code, without.out], [1, 'Unable to determine hotplug state. No datasource detected\n']);
});

test('hotplug-hook enable: writes hotplug.enabled for the network scope as 25.1 (its JSON, 0640, "Enabled cloud-init hotplug for subsystem=net"), after which query says enabled; a second enable is already done and says enabled too', async (t) => {
  const root = bootedRoot(t, 'Ec2', 'hostname: x\n');
  const r = await cli(['--root', root, 'devel', 'hotplug-hook', '-s', 'net', 'enable']);
  assert.deepEqual([r.code, r.out], [0, 'Enabled cloud-init hotplug for subsystem=net\n'], r.err);
  assert.equal(
    readFileSync(join(root, 'var/lib/cloud/hotplug.enabled'), 'utf8'),
    '{"scopes": ["network"]}',
    "25.1's json.dumps",
  );
  assert.equal(statSync(join(root, 'var/lib/cloud/hotplug.enabled')).mode & 0o777, 0o640);
  // No udevadm in this sandbox: the rule is skipped as cloud-init skips it (the module test checks its text).
  assert.equal(existsSync(join(root, 'etc/udev/rules.d/90-cloud-init-hook-hotplug.rules')), false);
  assert.equal((await cli(['--root', root, 'devel', 'hotplug-hook', '-s', 'net', 'query'])).out, 'enabled\n');
  const again = await cli(['--root', root, 'devel', 'hotplug-hook', '-s', 'net', 'enable']);
  assert.deepEqual(
    [again.code, again.err, again.out],
    [
      0,
      'Not installing hotplug for event of type net. Reason: Already done.\n',
      'Enabled cloud-init hotplug for subsystem=net\n',
    ],
  );
});

test('hotplug-hook: usage errors name what is wrong; handle does nothing when hotplug is disabled', async (t) => {
  const root = bootedRoot(t, 'OpenStack', 'hostname: x\n');
  const noSub = await cli(['--root', root, 'devel', 'hotplug-hook', 'query']);
  assert.equal(noSub.code, 2);
  assert.match(noSub.err, /-s\/--subsystem is required and must be net/);
  const badAction = await cli(['--root', root, 'devel', 'hotplug-hook', '-s', 'net', 'frob']);
  assert.match(badAction.err, /must be one of query, handle, enable, not 'frob'/);
  const noAction = await cli([
    '--root',
    root,
    'devel',
    'hotplug-hook',
    '-s',
    'net',
    'handle',
    '-d',
    '/devices/virtual/net/eth1',
  ]);
  assert.match(noAction.err, /-u\/--udevaction add or remove/);
  const disabled = await cli([
    '--root',
    root,
    'devel',
    'hotplug-hook',
    '-s',
    'net',
    'handle',
    '-d',
    '/devices/virtual/net/eth1',
    '-u',
    'add',
  ]);
  assert.equal(disabled.code, 0, disabled.err);
  assert.equal(existsSync(join(root, 'etc/network')), false);
});
