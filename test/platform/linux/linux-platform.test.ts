import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DryRunPlatform, describeEffect } from '../../../src/platform/dry-run-platform';
import type { Effect } from '../../../src/platform/platform';
import { LinuxPlatform } from '../../../src/platform/linux/linux-platform';
import { resolveOwner } from '../../../src/platform/linux/passwd-lookup';
import { Logger } from '../../../src/util/log';
import { tempDir } from '../../helpers/temp';

function platformAt(root: string): LinuxPlatform {
  return new LinuxPlatform({ root, log: new Logger().for('test.ts') });
}

test('writeFile is atomic, sets the mode, and leaves no temp file behind', async (t) => {
  const root = tempDir(t);
  const p = platformAt(root);
  await p.writeFile('/etc/kiln/a.conf', 'one\n', { mode: 0o600 });
  assert.equal(readFileSync(join(root, 'etc/kiln/a.conf'), 'utf8'), 'one\n');
  assert.equal(statSync(join(root, 'etc/kiln/a.conf')).mode & 0o777, 0o600);
  await p.writeFile('/etc/kiln/a.conf', 'two\n', { append: true });
  assert.equal(readFileSync(join(root, 'etc/kiln/a.conf'), 'utf8'), 'one\ntwo\n');
  assert.equal(statSync(join(root, 'etc/kiln/a.conf')).mode & 0o777, 0o600, 'an existing file keeps its mode');
  assert.deepEqual(readdirSync(join(root, 'etc/kiln')), ['a.conf']);
});

test('an append writes at the end of the same file (no copy renamed over it) and makes a missing file with the mode given', async (t) => {
  const root = tempDir(t);
  const p = platformAt(root);
  await p.writeFile('/var/log/out.log', 'first\n', { append: true, mode: 0o640 });
  const file = join(root, 'var/log/out.log');
  assert.equal(statSync(file).mode & 0o777, 0o640);
  const inode = statSync(file).ino;
  await p.writeFile('/var/log/out.log', 'second\n', { append: true, mode: 0o640 });
  assert.equal(readFileSync(file, 'utf8'), 'first\nsecond\n');
  assert.equal(statSync(file).ino, inode, 'the file was appended to, not replaced');
  await p.writeFile('/var/log/out.log', 'third\n', { append: true, mode: 0o600 });
  assert.equal(statSync(file).mode & 0o777, 0o600, 'a mode given is applied to an existing file');
  symlinkSync('/var/log/out.log', join(root, 'var/log/link.log'));
  await p.writeFile('/var/log/link.log', 'fourth\n', { append: true });
  assert.equal(readFileSync(file, 'utf8'), 'first\nsecond\nthird\nfourth\n', 'a link inside the root is followed');
  await assert.rejects(
    p.writeFiles([{ path: '/var/log/out.log', data: 'x', opts: { append: true } }]),
    /append with writeFile/,
  );
  mkdirSync(join(root, 'var/log/dir.log'));
  await assert.rejects(p.writeFile('/var/log/dir.log', 'x', { append: true }), /cannot append to \/var\/log\/dir\.log/);
});

test('writeFiles: every file goes in (durable ones synced first) in order; a failure while staging changes none', async (t) => {
  const root = tempDir(t);
  const p = platformAt(root);
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc/passwd'), 'old\n');
  await p.writeFiles([
    { path: '/etc/passwd-', data: 'old\n', opts: { mode: 0o600, durable: true } },
    { path: '/etc/passwd', data: 'new\n', opts: { durable: true } },
    { path: '/etc/motd', data: 'hello\n' },
  ]);
  assert.equal(readFileSync(join(root, 'etc/passwd-'), 'utf8'), 'old\n');
  assert.equal(statSync(join(root, 'etc/passwd-')).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(root, 'etc/passwd'), 'utf8'), 'new\n');
  assert.equal(readFileSync(join(root, 'etc/motd'), 'utf8'), 'hello\n');
  // A file where a folder must be: staging the second write fails, and the first file is left as it was.
  writeFileSync(join(root, 'blocker'), '');
  await assert.rejects(
    p.writeFiles([
      { path: '/etc/passwd', data: 'newer\n', opts: { durable: true } },
      { path: '/blocker/file', data: 'x' },
    ]),
    /cannot write \/blocker\/file/,
  );
  assert.equal(readFileSync(join(root, 'etc/passwd'), 'utf8'), 'new\n');
  assert.deepEqual(readdirSync(join(root, 'etc')).sort(), ['motd', 'passwd', 'passwd-']);
});

test('writes through an absolute symlink stay inside the root', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/instances/i-9'), { recursive: true });
  symlinkSync('/var/lib/cloud/instances/i-9', join(root, 'var/lib/cloud/instance'));
  await platformAt(root).writeFile('/var/lib/cloud/instance/boot-finished', 'x');
  assert.equal(readFileSync(join(root, 'var/lib/cloud/instances/i-9/boot-finished'), 'utf8'), 'x');
});

test('owners are looked up in the target root', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0::/root:/bin/sh\nalice:x:1234:1235::/home/alice:/bin/sh\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nalice:x:1235:\nstaff:x:50:\n');
  assert.deepEqual(resolveOwner('alice', readFileSync(join(root, 'etc/passwd'), 'utf8'), ''), { uid: 1234, gid: 1235 });
  assert.deepEqual(
    resolveOwner(
      'alice:staff',
      readFileSync(join(root, 'etc/passwd'), 'utf8'),
      readFileSync(join(root, 'etc/group'), 'utf8'),
    ),
    { uid: 1234, gid: 50 },
  );
  const p = platformAt(root);
  await assert.rejects(p.writeFile('/x', 'y', { owner: 'mallory' }), /mallory/);
  if (process.getuid?.() === 0) {
    await p.writeFile('/home/alice/f', 'y', { owner: 'alice:staff' });
    const st = statSync(join(root, 'home/alice/f'));
    assert.equal(st.uid, 1234);
    assert.equal(st.gid, 50);
  }
});

test('dry runs record effects, change nothing, and read back what they planned', async (t) => {
  const root = tempDir(t);
  const dry = new DryRunPlatform(platformAt(root));
  await dry.writeFile('/etc/hostname', 'web1\n', { mode: 0o644 });
  await dry.run(['hostname', 'web1']);
  assert.equal(await dry.readText('/etc/hostname'), 'web1\n');
  assert.deepEqual(readdirSync(root), []);
  assert.deepEqual(
    dry.effects.map((e) => e.kind),
    ['write-file', 'run'],
  );
});

test("a dry run's hostname is an effect it prints, never a call to the platform it wraps (even when the root is /)", async () => {
  // The wrapped platform's root is '/', where setHostname would rename the machine: it must not be reached.
  const host = new LinuxPlatform({ root: '/', log: new Logger().for('test.ts') });
  host.setHostname = async () => assert.fail('the dry run called the real setHostname');
  const dry = new DryRunPlatform(host);
  assert.equal(await dry.setHostname('kiln-dry'), true);
  assert.deepEqual(dry.effects, [{ kind: 'set-hostname', hostname: 'kiln-dry' }]);
  assert.equal(describeEffect(dry.effects[0] as Effect), 'would set hostname kiln-dry');
});

test('setHostname under a root that is not / changes nothing and starts nothing: an image has no running hostname', async (t) => {
  const root = tempDir(t);
  const p = platformAt(root);
  p.run = async () => assert.fail('no command is started');
  assert.equal(await p.setHostname('kiln-image'), true);
  assert.deepEqual(readdirSync(root), []);
});

test('commands in a non-/ root run in a chroot inside new namespaces', (t) => {
  const p = platformAt(tempDir(t));
  const argv = p.commandLine(['hostname', 'x']);
  assert.equal(argv[0], 'unshare');
  assert.ok(argv.includes('--uts'));
  assert.deepEqual(argv.slice(-4), ['chroot', p.root, 'hostname', 'x']);
  assert.deepEqual(platformAt('/').commandLine(['true']), ['true']);
});
