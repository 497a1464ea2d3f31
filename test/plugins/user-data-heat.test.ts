// UserDataPlugin's Heat parts (text/x-cfninitdata) as cloudbase-init's heat plugin: every one written under
// heat_config_dir by its file name, cfn-userdata then run by its header and its exit code the part's result.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import type { PluginContext } from '../../src/plugins/plugin';
import { findPlugin } from '../../src/plugins/registry';
import { Logger, MemorySink } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

class RecordingFiles extends FakeFiles {
  readonly dirs: string[] = [];
  override async mkdir(path: string): Promise<void> {
    this.dirs.push(path);
  }
}

function context(conf: string, userData: Buffer) {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const files = new RecordingFiles();
  const ctx: PluginContext = {
    platform: files,
    windows: new FakeWindows().platform(logger),
    log: logger.for('test'),
    conf: loadCloudbaseConf([{ path: 'c.conf', text: `[DEFAULT]\n${conf}` }]),
    instance: {
      instanceId: 'i-1',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'x',
      publicKeys: [],
      metadata: {},
      userData,
    },
    shared: new Map(),
    randomPassword: (n) => 'Rand0m!'.padEnd(n, 'z'),
    secret: (v) => logger.redactor.add(v),
    env: { SystemRoot: 'C:\\Windows', PROCESSOR_ARCHITECTURE: 'AMD64' },
  };
  return { ctx, files, lines: sink.lines };
}

const part = (type: string, name: string | undefined, body: string) => [
  '--XX',
  `Content-Type: ${type}`,
  ...(name ? [`Content-Disposition: attachment; filename="${name}"`] : []),
  '',
  body,
];
const mime = (...parts: string[][]) =>
  Buffer.from(['Content-Type: multipart/mixed; boundary="XX"', '', ...parts.flat(), '--XX--', ''].join('\n'));
const userData = () => {
  const p = findPlugin('UserDataPlugin');
  assert.ok(p);
  return p;
};

test('every Heat part is written under heat_config_dir (default C:\\cfn) by its file name; only cfn-userdata runs, and its exit code is the result', async () => {
  // cfn-userdata last: the plugin's result is the last part's (a Heat file that is only written is done).
  const ud = mime(
    part('text/x-cfninitdata', 'cfn-init-data', '{"AWS::CloudFormation::Init": {}}'),
    part('text/x-cfninitdata', 'cfn-boto-cfg', '[Boto]\n'),
    part('text/x-cfninitdata', 'cfn-userdata', 'rem cmd\r\nexit 1002\r\n'),
  );
  const { ctx, files } = context('', ud);
  files.onRun = () => ({ code: 1002 });
  assert.deepEqual(await userData().execute(ctx), { status: 'next-boot', reboot: false });
  assert.equal(
    Buffer.from(files.files.get('cfn\\cfn-init-data') ?? []).toString(),
    '{"AWS::CloudFormation::Init": {}}',
  );
  assert.equal(Buffer.from(files.files.get('cfn\\cfn-userdata') ?? []).toString(), 'rem cmd\r\nexit 1002\r\n');
  assert.equal(Buffer.from(files.files.get('cfn\\cfn-boto-cfg') ?? []).toString(), '[Boto]\n');
  assert.ok(files.dirs.includes('C:\\cfn'), files.dirs.join(', '));
  assert.equal(files.runs.length, 1, 'only cfn-userdata runs');
  assert.equal(files.runs[0]?.[0], 'cmd.exe');
});

test('heat_config_dir is honoured; cfn-userdata runs by its header (#ps1), and a reboot it asks for ends the walk', async () => {
  const ud = mime(
    part('text/x-cfninitdata', 'cfn-userdata', '#ps1\nexit 1003\n'),
    part('text/x-shellscript', 'after.cmd', 'rem after'),
  );
  const { ctx, files } = context('heat_config_dir=D:\\heat\\conf\\\n', ud);
  files.onRun = () => ({ code: 1003 });
  assert.deepEqual(await userData().execute(ctx), { status: 'next-boot', reboot: true });
  assert.ok(files.files.has('heat\\conf\\cfn-userdata'), [...files.files.keys()].join(', '));
  assert.equal(files.runs.length, 1, 'the part after the reboot is not run');
  assert.match(files.runs[0]?.[0] ?? '', /powershell\.exe$/);
});

test('a cfn-userdata of no format cloudbase-init runs is written and logged, not run; a Heat part without a usable file name is logged and skipped', async () => {
  const ud = mime(
    part('text/x-cfninitdata', 'cfn-userdata', 'just words'),
    part('text/x-cfninitdata', undefined, 'nameless'),
    part('text/x-cfninitdata', '../escape', 'x'),
    part('text/x-shellscript', 'after.cmd', 'rem after'),
  );
  const { ctx, files, lines } = context('', ud);
  files.onRun = () => ({ code: 0 });
  assert.deepEqual(await userData().execute(ctx), { status: 'done', reboot: false });
  assert.ok(files.files.has('cfn\\cfn-userdata'));
  assert.deepEqual(
    [...files.files.keys()].filter((k) => !k.startsWith('windows\\temp\\')),
    ['cfn\\cfn-userdata'],
  );
  assert.equal(files.runs.length, 1, 'only after.cmd runs');
  const log = lines.join('');
  assert.match(log, /Heat cfn-userdata: unsupported user data format; not run/);
  assert.match(log, /a Heat part needs a file name/);
  assert.match(log, /Heat part file name '\.\.\/escape' is not a plain name under heat_config_dir/);
});
