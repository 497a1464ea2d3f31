// EC2 <script>/<powershell> user data as cloudbase-init's EC2Config executor runs it: every <script> block, then every
// <powershell> block, each run whatever the others returned, their exit codes added up into the one return value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import type { PluginContext } from '../../src/plugins/plugin';
import { findPlugin } from '../../src/plugins/registry';
import { Logger, MemorySink } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

/**
 * Runs USERDATA through UserDataPlugin; a cmd.exe block exits SCRIPT, a PowerShell one POWERSHELL ('fail': cannot be
 * started).
 */
async function run(userData: string, script: number | 'fail', powershell: number) {
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const files = new FakeFiles();
  const ran: string[] = [];
  files.onRun = (argv) => {
    const cmd = argv[0] === 'cmd.exe';
    ran.push(cmd ? 'script' : 'powershell');
    if (cmd && script === 'fail') throw new Error('cmd.exe: not found');
    return { code: cmd ? (script as number) : powershell };
  };
  const ctx: PluginContext = {
    platform: files,
    windows: new FakeWindows().platform(logger),
    log: logger.for('test'),
    conf: loadCloudbaseConf([{ path: 'c.conf', text: '[DEFAULT]\n' }]),
    instance: {
      instanceId: 'i-1',
      cloudName: 'aws',
      platform: 'ec2',
      subplatform: 'x',
      publicKeys: [],
      metadata: {},
      userData: Buffer.from(userData),
    },
    shared: new Map(),
    randomPassword: (n) => 'Rand0m!'.padEnd(n, 'z'),
    secret: (v) => logger.redactor.add(v),
    env: { SystemRoot: 'C:\\Windows', PROCESSOR_ARCHITECTURE: 'AMD64' },
  };
  const plugin = findPlugin('UserDataPlugin');
  assert.ok(plugin);
  return { result: await plugin.execute(ctx), ran, log: sink.lines.join('') };
}

const BOTH = '<powershell>Write-Output ps</powershell>\n<script>echo cmd</script>\n';

test("<script> runs before <powershell> wherever it is written, and a reboot one block asks for is the user data's", async () => {
  const r = await run(BOTH, 1001, 0);
  assert.deepEqual(r.ran, ['script', 'powershell'], 'both run; the reboot waits for the last block');
  assert.deepEqual(r.result, { status: 'done', reboot: true });
});

test('the exit codes are added up, as cloudbase-init: 1 + 1000 reboots, 1001 + 1002 (2003) asks for nothing, 1000 + 3 runs again and reboots', async () => {
  assert.deepEqual((await run(BOTH, 1, 1000)).result, { status: 'done', reboot: true });
  const none = await run(BOTH, 1001, 1002);
  assert.deepEqual(none.result, { status: 'done', reboot: false });
  assert.match(none.log, /summed return code: 2003/);
  assert.deepEqual((await run(BOTH, 1000, 3)).result, { status: 'next-boot', reboot: true });
});

test('a block that cannot be started is logged and adds 0; the blocks after it still run', async () => {
  const r = await run(BOTH, 'fail', 1002);
  assert.deepEqual(r.ran, ['script', 'powershell']);
  assert.deepEqual(r.result, { status: 'next-boot', reboot: false });
  assert.match(r.log, /could not start cmd\.exe/);
});
