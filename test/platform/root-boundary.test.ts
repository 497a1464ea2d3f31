// `--root` is a boundary: links inside a sandbox that point out of it are followed inside the root (as in a
// chroot), and files that would block the boot or share an inode with the outside are refused or replaced.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { NativeAccounts } from '../../src/platform/linux/accounts/native-accounts';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { FileSink, Logger } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { testKoffi } from '../helpers/koffi';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const log = new Logger().for('t');

test("kiln's own log follows a link out of the root inside the root, never to the host file", async (t) => {
  const root = tempDir(t);
  const outside = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/seed/nocloud'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/meta-data'), 'instance-id: iid-boundary\n');
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/user-data'), '#cloud-config\n{}\n');
  mkdirSync(join(root, 'var/log'), { recursive: true });
  const canary = join(outside, 'canary.log');
  writeFileSync(canary, 'canary\n');
  symlinkSync(canary, join(root, 'var/log/cloud-init.log'));
  const out: string[] = [];
  const code = await main({
    argv: ['--root', root, 'init', '--local'],
    argv0: 'kiln',
    env: {},
    io: { out: (s) => void out.push(s), err: (s) => void out.push(s) },
  });
  assert.equal(
    readFileSync(canary, 'utf8'),
    'canary\n',
    `the host file the link names is untouched (exit ${code}: ${out.join('')})`,
  );
  assert.match(
    readFileSync(join(root, canary), 'utf8'),
    /iid-boundary/,
    'the log went to the same path inside the root',
  );
});

test('appending to a FIFO is refused at once instead of blocking the boot', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'));
  assert.equal(spawnSync('mkfifo', [join(root, 'etc/pipe')]).status, 0);
  const platform = new LinuxPlatform({ root, log });
  await assert.rejects(
    platform.writeFile('/etc/pipe', 'x\n', { append: true }),
    /cannot append to \/etc\/pipe: it is a FIFO/,
  );
});

test('reading a FIFO, or under --root a device node, is refused at once instead of blocking', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  assert.equal(spawnSync('mkfifo', [join(root, 'etc/cloud/cloud.cfg.d/99-pipe.cfg')]).status, 0);
  const platform = new LinuxPlatform({ root, log });
  await assert.rejects(
    platform.readText('/etc/cloud/cloud.cfg.d/99-pipe.cfg'),
    /cannot read \/etc\/cloud\/cloud\.cfg\.d\/99-pipe\.cfg: it is a FIFO/,
  );
  await assert.rejects(platform.readFile('/etc/cloud/cloud.cfg.d/99-pipe.cfg'), /it is a FIFO/);
  if (isRoot()) {
    assert.equal(spawnSync('mknod', [join(root, 'etc/null'), 'c', '1', '3']).status, 0);
    await assert.rejects(platform.readText('/etc/null'), /cannot read \/etc\/null: it is a device node/);
  }
});

test("kiln's log in a FIFO's place says so once and takes no lines, without blocking", (t) => {
  const dir = tempDir(t);
  const fifo = join(dir, 'cloud-init.log');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const said: string[] = [];
  const sink = new FileSink('DEBUG', fifo, 0o640, (m) => said.push(m));
  sink.write('one\n');
  sink.write('two\n');
  sink.close();
  assert.equal(said.length, 1);
  assert.match(said[0] as string, /cannot write the log .*cloud-init\.log/);
});

test('under --root, appending to a hard link writes a new file in its place: the other name keeps its content, mode and owner', async (t) => {
  const root = tempDir(t);
  const outside = tempDir(t);
  mkdirSync(join(root, 'etc'));
  const shared = join(outside, 'shared');
  writeFileSync(shared, 'outside\n', { mode: 0o600 });
  linkSync(shared, join(root, 'etc/motd'));
  const platform = new LinuxPlatform({ root, log });
  await platform.writeFile('/etc/motd', 'added\n', { append: true, mode: 0o644 });
  assert.equal(readFileSync(shared, 'utf8'), 'outside\n');
  assert.equal(statSync(shared).mode & 0o7777, 0o600);
  assert.equal(readFileSync(join(root, 'etc/motd'), 'utf8'), 'outside\nadded\n');
  assert.equal(statSync(join(root, 'etc/motd')).mode & 0o7777, 0o644);
  assert.equal(statSync(join(root, 'etc/motd')).nlink, 1);
  assert.ok(!existsSync(join(outside, 'motd')));
});

test('resolvedHostPath follows absolute and relative links inside the root', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'data/home'), { recursive: true });
  symlinkSync('/data/home', join(root, 'home'));
  const platform = new LinuxPlatform({ root, log });
  assert.equal(await platform.resolvedHostPath('/home/alice/.bashrc'), join(root, 'data/home/alice/.bashrc'));
  assert.equal(
    platform.hostPath('/home/alice/.bashrc'),
    join(root, 'home/alice/.bashrc'),
    'hostPath itself does not resolve',
  );
});

test("a new user's home behind a link out of the root, and a hard-linked lastlog, never touch the outside", {
  timeout: 300_000,
}, async (t) => {
  if (!need(t, isRoot() && hasCommand('debootstrap'), 'needs root and debootstrap (the cached Debian rootfs)')) return;
  const root = copyRootfs(tempDir(t, 'kiln-boundary-'), { sameFileSystem: true });
  const outside = tempDir(t);
  // /home links to a host path; the same path exists on the host with a file the skeleton would also copy.
  mkdirSync(join(outside, 'alice'), { recursive: true });
  const canary = join(outside, 'alice/.bashrc');
  writeFileSync(canary, 'host file\n');
  utimesSync(canary, 1_000_000_000, 1_000_000_000);
  rmSync(join(root, 'home'), { recursive: true, force: true });
  symlinkSync(outside, join(root, 'home'));
  // lastlog shares its inode with a host file that already reaches uid 1000's record.
  const hostLastlog = join(outside, 'lastlog');
  writeFileSync(hostLastlog, Buffer.alloc(292 * 1001, 0x55));
  rmSync(join(root, 'var/log/lastlog'), { force: true });
  linkSync(hostLastlog, join(root, 'var/log/lastlog'));
  const platform = new LinuxPlatform({ root, log, loadKoffi: testKoffi });
  assert.ok(await NativeAccounts.suits(platform));
  const accounts = new NativeAccounts(platform, 'debian');
  await assert.rejects(accounts.addUser({ name: 'alice', uid: 1000 }), /\/var\/log\/lastlog in .* is a hard link/);
  assert.equal(statSync(canary).mtimeMs, 1_000_000_000_000, 'the host file keeps its times');
  assert.equal(readFileSync(canary, 'utf8'), 'host file\n');
  assert.ok(
    readFileSync(hostLastlog).every((b) => b === 0x55),
    'the host lastlog is untouched',
  );
  assert.ok(
    existsSync(join(root, outside, 'alice/.bashrc')),
    'the home was made inside the root, where the link leads there',
  );
  assert.match(readFileSync(join(root, 'etc/passwd'), 'utf8'), /^alice:x:1000:/m);
});
