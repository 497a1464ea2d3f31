// EC2's <persist>true</persist> as kiln takes it (EC2Launch's meaning: the user data runs at every boot; cloudbase-init
// ignores the tag), through the whole flow: a persisted user data never trips the reboot-loop guard into marking it
// done.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { pluginsKey } from '../../src/plugins/plugin-state';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import type { Datasource } from '../../src/sources/datasource';
import { Logger, MemorySink } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const CD = 'cloudbaseinit.metadata.services.configdrive.ConfigDriveService';
const USER_DATA = 'cloudbaseinit.plugins.common.userdata.UserDataPlugin';

function machine(userData: string, exitCode: number) {
  const source: Datasource = {
    name: 'ConfigDrive',
    kind: 'local',
    detect: async () => true,
    crawl: async () => ({
      instanceId: 'i-0123',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'config-disk (D:\\)',
      publicKeys: [],
      metadata: {},
      userData: Buffer.from(userData),
    }),
  };
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const files = new FakeFiles();
  files.onRun = () => ({ code: exitCode });
  const win = new FakeWindows();
  const deps: CloudbaseRunnerDeps = {
    platform: files,
    windows: win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([
      {
        path: 'cloudbase-init.conf',
        text: `[DEFAULT]\nmetadata_services=${CD}\nplugins=${USER_DATA}\nmax_consecutive_reboots=2\n`,
      },
    ]),
    sources: [source],
    finder: { find: async () => [] },
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows' },
    sleep: async () => undefined,
  };
  return { deps, win, files, lines: sink.lines };
}

test('a persisted EC2 user data runs at every boot, and its runs never count as a reboot loop', async () => {
  const m = machine('<script>echo hi</script><persist>true</persist>', 0);
  for (let boot = 1; boot <= 5; boot++) {
    const r = await runCloudbaseInit(m.deps);
    assert.deepEqual(
      r.plugins.map((p) => [p.name, p.outcome]),
      [['UserDataPlugin', 'next-boot']],
      `boot ${boot}`,
    );
    assert.equal(r.rebooting, false);
  }
  assert.equal(m.files.runs.length, 5);
  assert.deepEqual(m.win.getValue('HKLM', pluginsKey('i-0123'), 'UserDataPlugin'), { type: 'REG_DWORD', data: 2 });
});

test('without <persist> the same user data runs once', async () => {
  const m = machine('<script>echo hi</script>', 0);
  await runCloudbaseInit(m.deps);
  assert.equal((await runCloudbaseInit(m.deps)).plugins[0]?.outcome, 'already-done');
  assert.equal(m.files.runs.length, 1);
});

test('a persisted user data that asks for a reboot at every boot: the guard drops the reboot past max_consecutive_reboots, never the persistence', async () => {
  const m = machine('<powershell>Restart-Needed</powershell><persist>true</persist>', 1001);
  assert.equal((await runCloudbaseInit(m.deps)).rebooting, true);
  assert.equal((await runCloudbaseInit(m.deps)).rebooting, true);
  const third = await runCloudbaseInit(m.deps);
  assert.equal(third.rebooting, false, 'the third reboot in a row is not done');
  assert.equal(third.plugins[0]?.outcome, 'stopped');
  assert.match(
    third.plugins[0]?.error ?? '',
    /asked for a reboot 3 boots in a row \(max_consecutive_reboots=2\); this reboot is not done, and the persisted plugin runs again at the next boot/,
  );
  assert.deepEqual(
    m.win.getValue('HKLM', pluginsKey('i-0123'), 'UserDataPlugin'),
    { type: 'REG_DWORD', data: 2 },
    'still persisted',
  );
  const fourth = await runCloudbaseInit(m.deps);
  assert.deepEqual(
    fourth.plugins.map((p) => p.outcome),
    ['next-boot'],
    'it still runs at the next boot',
  );
  assert.equal(m.files.runs.length, 4);
  assert.equal(m.win.shutdowns.length, 3, 'reboots at boots 1, 2 and 4 (the count starts over after the dropped one)');
});
