// runModules: a module listed under the name cloud-init renamed (ubuntu_advantage) runs as the new one, with a
// deprecation.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Module } from '../../src/modules/module';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cloudPaths } from '../../src/runner/cloud-paths';
import { EventLog } from '../../src/runner/event-log';
import { runModules } from '../../src/runner/run-modules';
import { Logger, MemorySink } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

/** A sandbox root, a log whose lines are kept, and ubuntu_pro as a module that records each run. */
function setup(t: TestContext, frequency: Module['frequency']) {
  const root = tempDir(t);
  const logger = new Logger();
  const sink = new MemorySink('DEBUG');
  logger.addSink(sink);
  const log = logger.for('test');
  const platform = new LinuxPlatform({ root, log, isolateNetwork: true });
  const ran: string[] = [];
  const pro: Module = {
    name: 'ubuntu_pro',
    stage: 'config',
    frequency,
    distros: ['ubuntu'],
    activateBy: [],
    run: async () => void ran.push('ubuntu_pro'),
  };
  const now = () => new Date(0);
  return { root, sink, log, platform, ran, pro, now };
}

test('a cloud.cfg listing ubuntu_advantage runs ubuntu_pro and logs the rename as a deprecation', async (t) => {
  const { sink, log, platform, ran, pro, now } = setup(t, 'always');
  const out = await runModules({
    platform,
    log,
    stage: 'config',
    eventPrefix: 'modules-config',
    modules: [pro],
    config: { cloud_config_modules: ['ubuntu-advantage'] },
    distro: { name: 'ubuntu', family: 'debian', version: '24.04' },
    instance: {
      instanceId: 'i-1',
      cloudName: 'nocloud',
      platform: 'nocloud',
      subplatform: '',
      publicKeys: [],
      metadata: {},
    },
    paths: cloudPaths(),
    events: new EventLog(platform, '/var/log/events', log, now),
    now,
    output: async () => undefined,
  });
  assert.deepEqual(ran, ['ubuntu_pro']);
  assert.deepEqual(
    out.modules.map((m) => m.name),
    ['ubuntu_pro'],
  );
  assert.match(sink.lines.join('\n'), /DEPRECATED.*Module has been renamed from cc_ubuntu_advantage to cc_ubuntu_pro/);
});

test('unverified_modules names the module as the list spells it: a listed ubuntu_advantage forced by that name runs on Debian, under its listed semaphore', async (t) => {
  const { root, log, platform, ran, pro, now } = setup(t, 'once-per-instance');
  const run = (unverified: string[]) =>
    runModules({
      platform,
      log,
      stage: 'config',
      eventPrefix: 'modules-config',
      modules: [pro],
      config: { cloud_config_modules: ['ubuntu_advantage'], unverified_modules: unverified },
      distro: { name: 'debian', family: 'debian', version: '12' },
      instance: {
        instanceId: 'i-1',
        cloudName: 'nocloud',
        platform: 'nocloud',
        subplatform: '',
        publicKeys: [],
        metadata: {},
      },
      paths: cloudPaths(),
      events: new EventLog(platform, '/var/log/events', log, now),
      now,
      output: async () => undefined,
    });
  const skipped = await run([]);
  assert.deepEqual([ran, skipped.modules[0]?.outcome], [[], 'skipped']);
  await run(['ubuntu_advantage']);
  assert.deepEqual(ran, ['ubuntu_pro']);
  // The semaphore keeps the listed name, as 22.4's config_ubuntu_advantage.
  assert.deepEqual(readdirSync(join(root, 'var/lib/cloud/instances/i-1/sem')), ['config_ubuntu_advantage']);
});
