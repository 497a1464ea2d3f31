// kiln's own account-file writer against shadow-utils itself: the same operations in two copies of the Debian
// rootfs, one through the real tools, one through NativeAccounts, must leave the same files, backups and homes.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ColonFile } from '../../src/platform/linux/accounts/colon-file';
import { freeSubordinateRange, newId } from '../../src/platform/linux/accounts/id-allocation';
import { NativeAccounts } from '../../src/platform/linux/accounts/native-accounts';
import { lockAccounts } from '../../src/platform/linux/accounts/account-locks';
import { lockAccountFiles } from '../../src/platform/linux/accounts/shadow-lock';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { testKoffi } from '../helpers/koffi';
import { Logger } from '../../src/util/log';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { dateChangesOfThisRun } from '../helpers/shadow-days';
import { tempDir } from '../helpers/temp';

test('new ids: above the highest regular id, below the lowest system id, a free preferred id first, gaps last', () => {
  const regular = { min: 1000, max: 60000, preferredMin: 1000 };
  const system = { min: 101, max: 999, preferredMin: 1 };
  assert.equal(newId([0, 100, 65534], regular, false), 1000);
  assert.equal(newId([1000, 1001, 2001], regular, false), 2002);
  assert.equal(newId([1000, 60000], regular, false), 1001, 'the top is taken: the first gap');
  assert.equal(newId([998, 100], system, true), 997);
  assert.equal(newId([101, 500], system, true), 999, 'the bottom is taken: from the top down');
  assert.equal(newId([1000], regular, false, 1000), 1001, 'a taken preferred id is ignored');
  assert.equal(newId([], regular, false, 2500), 2500);
  assert.equal(newId([], system, true, 50), 50, 'system accounts may prefer ids below the range');
  assert.equal(newId([1000, 1001], { min: 1000, max: 1001, preferredMin: 1000 }, false), undefined);
});

test('subordinate ranges: the first hole that fits, in range order', () => {
  assert.equal(freeSubordinateRange([], 100000, 600100000, 65536), 100000);
  assert.equal(
    freeSubordinateRange(
      [
        { start: 165536, count: 65536 },
        { start: 100000, count: 65536 },
      ],
      100000,
      600100000,
      65536,
    ),
    231072,
  );
  assert.equal(
    freeSubordinateRange(
      [
        { start: 100000, count: 10 },
        { start: 300000, count: 10 },
      ],
      100000,
      600100000,
      65536,
    ),
    100010,
  );
  assert.equal(freeSubordinateRange([{ start: 100000, count: 65536 }], 100000, 165535, 65536), undefined);
});

test('a colon file keeps what it does not change, byte for byte', () => {
  const f = new ColonFile('# comment\nroot:x:0:0:root:/root:/bin/bash\n\nbin:x:2:2::/bin:/usr/sbin/nologin\n');
  assert.ok(f.replace(['bin', 'x', '2', '2', 'bin', '/bin', '/bin/false']));
  f.append(['new', 'x', '1000', '1000', '', '/home/new', '/bin/sh']);
  assert.equal(
    f.text(),
    '# comment\nroot:x:0:0:root:/root:/bin/bash\n\nbin:x:2:2:bin:/bin:/bin/false\nnew:x:1000:1000::/home/new:/bin/sh\n',
  );
  assert.equal(new ColonFile('').text(), '');
});

test("the lock waits for a live holder, and takes over a dead holder's lock", async (t) => {
  const root = tempDir(t);
  const file = join(root, 'passwd');
  writeFileSync(file, '');
  const holder = spawn('sleep', ['30']);
  t.after(() => holder.kill());
  writeFileSync(`${file}.lock`, `${holder.pid}\0`);
  let waits = 0;
  await assert.rejects(
    lockAccountFiles([file], async () => void waits++),
    /held by a running process/,
  );
  assert.equal(waits, 14, 'fifteen tries, a pause between each');
  holder.kill();
  await new Promise((r) => holder.once('exit', r));
  const unlock = await lockAccountFiles([file], async () => undefined);
  assert.equal(readFileSync(`${file}.lock`, 'latin1'), `${process.pid}\0`);
  await unlock();
  assert.ok(!existsSync(`${file}.lock`));
});

test('a lock this process holds is shared, and the file stays until its last holder lets go', async (t) => {
  const root = tempDir(t);
  const file = join(root, 'passwd');
  writeFileSync(file, '');
  const outer = await lockAccountFiles([file], async () => assert.fail('a lock held here is never waited for'));
  const inner = await lockAccountFiles([file], async () => assert.fail('a lock held here is never waited for'));
  await inner();
  await inner();
  assert.equal(readFileSync(`${file}.lock`, 'latin1'), `${process.pid}\0`, 'the outer holder still has it');
  await outer();
  assert.ok(!existsSync(`${file}.lock`));
  // Our pid on a lock nobody here holds is what an earlier process with that pid left: taken over.
  writeFileSync(`${file}.lock`, `${process.pid}\0`);
  const again = await lockAccountFiles([file], async () => assert.fail('a stale lock is not waited for'));
  await again();
  assert.ok(!existsSync(`${file}.lock`));
});

const HASH =
  '$6$rounds=4096$saltsalt$3xwDn5b9lI1Ay1y0S4wRZmtQhM1hB8y1SJhfo7qHuWeOhd/bqjT0Sm6qGJpvlcIVQ5LL8u1Hy1l1y0iBoe5Tq.';
const HASH2 = '$6$othersalt$Wm2w1tqvS9VvYgUu3t8YqJkC0oZJ6gkz4h6nC2r2b9yE6m0hV2sI8qk2e4T1y7p3a0JkF5cXqGg9Lw1Qx8Zr/.';

/** Files, modes and owners of a home directory, for comparison. */
function tree(dir: string): string[] {
  if (!existsSync(dir)) return ['(missing)'];
  const out: string[] = [];
  const walk = (rel: string) => {
    const st = lstatSync(join(dir, rel));
    out.push(
      `${rel} ${(st.mode & 0o7777).toString(8)} ${st.uid}:${st.gid}${st.isFile() ? ` ${readFileSync(join(dir, rel)).length}` : ''}`,
    );
    if (st.isDirectory()) for (const n of readdirSync(join(dir, rel)).sort()) walk(join(rel, n));
  };
  walk('.');
  return out;
}

test('the same accounts through shadow-utils and through kiln leave identical files, backups and homes', {
  timeout: 300_000,
}, async (t) => {
  if (!need(t, isRoot() && hasCommand('debootstrap'), 'needs root and debootstrap (the cached Debian rootfs)')) return;
  const tools = copyRootfs(tempDir(t, 'kiln-accounts-tools-'));
  const native = copyRootfs(tempDir(t, 'kiln-accounts-native-'));
  const run = (argv: string[], input?: string) => {
    const r = spawnSync('chroot', [tools, ...argv], { encoding: 'utf8', ...(input !== undefined ? { input } : {}) });
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
  };
  run(['groupadd', 'admins']);
  run(['groupadd', '--system', 'sysg']);
  run(['useradd', 'alice', '--comment', 'Alice Example', '--groups', 'admins,sysg', '--shell', '/bin/bash', '-m']);
  run(['useradd', 'svc', '--shell', '/usr/sbin/nologin', '--system', '-M']);
  run([
    'useradd',
    'bob',
    '--home',
    '/srv/deep/bob',
    '--uid',
    '2001',
    '--password',
    HASH,
    '--expiredate',
    '2030-01-02',
    '--inactive',
    '5',
    '-m',
  ]);
  run(['passwd', '-l', 'alice']);
  run(['passwd', '-l', 'alice']);
  run(['chpasswd', '-e'], `bob:${HASH2}\n`);
  run(['passwd', '--expire', 'bob']);
  run(['usermod', '-a', '-G', 'admins,sysg', 'bob']);

  const platform = new LinuxPlatform({ root: native, log: new Logger().for('test.ts'), loadKoffi: testKoffi });
  assert.ok(await NativeAccounts.suits(platform));
  const accounts = new NativeAccounts(platform, 'debian');
  // As the runner runs a module: one batch, written once when it ends.
  await platform.batch(async () => {
    assert.ok(await accounts.addGroup('admins', false));
    assert.ok(await accounts.addGroup('sysg', true));
    assert.ok(
      await accounts.addUser({ name: 'alice', gecos: 'Alice Example', groups: ['admins', 'sysg'], shell: '/bin/bash' }),
    );
    assert.ok(await accounts.addUser({ name: 'svc', shell: '/usr/sbin/nologin', system: true }));
    assert.ok(
      await accounts.addUser({
        name: 'bob',
        homedir: '/srv/deep/bob',
        uid: 2001,
        passwdHash: HASH,
        expiredate: '2030-01-02',
        inactive: '5',
      }),
    );
    assert.ok(await accounts.lockPassword('alice'));
    assert.ok(await accounts.lockPassword('alice'));
    assert.ok(await accounts.setHashes([{ user: 'bob', password: HASH2 }]));
    assert.ok(await accounts.expirePassword('bob'));
    assert.ok(await accounts.addToGroups('bob', ['admins', 'sysg']));
    // Held until the batch ends: reads through the platform see the changes, the disk does not yet.
    assert.match(await platform.readText('/etc/passwd'), /^bob:x:2001:/m);
    assert.doesNotMatch(readFileSync(join(native, 'etc/passwd'), 'utf8'), /^bob:/m);
  });

  for (const name of ['passwd', 'shadow', 'group', 'gshadow', 'subuid', 'subgid']) {
    for (const file of [`etc/${name}`, `etc/${name}-`]) {
      const [a, b] = [join(tools, file), join(native, file)];
      const text = (path: string) =>
        name === 'shadow' ? dateChangesOfThisRun(readFileSync(path, 'utf8')) : readFileSync(path, 'utf8');
      assert.equal(text(b), text(a), file);
      const [sa, sb] = [lstatSync(a), lstatSync(b)];
      assert.deepEqual(
        [sb.mode & 0o7777, sb.uid, sb.gid],
        [sa.mode & 0o7777, sa.uid, sa.gid],
        `${file} mode and owner`,
      );
      assert.ok(!existsSync(`${b}.lock`), `${file} is unlocked`);
    }
  }
  for (const home of ['home/alice', 'srv/deep/bob', 'srv/deep', 'home/svc'])
    assert.deepEqual(tree(join(native, home)), tree(join(tools, home)), home);

  assert.equal(await accounts.addUser({ name: 'Bad Name' }), false, 'names kiln does not vouch for go to useradd');
  assert.equal(
    await accounts.addUser({ name: 'carol', groups: ['nosuchgroup'] }),
    false,
    "a missing group is useradd's error to report",
  );
  assert.equal(await accounts.lockPassword('nosuchuser'), false);
  spawnSync('mkdir', ['-p', join(native, 'etc/selinux')]);
  writeFileSync(join(native, 'etc/selinux/config'), 'SELINUX=enforcing\n');
  assert.equal(await NativeAccounts.suits(platform), false, "SELinux labels are the tools' job");
});

/** A python3 in ROOT that takes glibc's own lckpwdf() there, says so, and holds it until its stdin closes. */
const LCKPWDF_HOLDER =
  'import ctypes, sys\nlibc = ctypes.CDLL("libc.so.6")\nassert libc.lckpwdf() == 0\nprint("held", flush=True)\nsys.stdin.read()\nlibc.ulckpwdf()\n';
/** Exit 0 when /etc/.pwd.lock in the root can be write-locked (fcntl) now, 1 when another process holds it. */
const PWD_LOCK_FREE =
  'import fcntl, os, sys\nfd = os.open("/etc/.pwd.lock", os.O_WRONLY | os.O_CREAT, 0o600)\ntry:\n    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept OSError:\n    sys.exit(1)\n';

test("kiln takes glibc's account database lock in the root: it waits for a lckpwdf() holder there, and holds the lock against the tools", {
  timeout: 120_000,
}, async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('debootstrap'),
      'needs root and debootstrap (the cached Debian rootfs, whose python3 calls lckpwdf)',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-pwdlock-'));
  const platform = new LinuxPlatform({ root, log: new Logger().for('test.ts'), loadKoffi: testKoffi });
  if (!need(t, platform.recordLocks() !== undefined, 'KILN_KOFFI_ADDON is not set (test/run.mjs sets it)')) return;
  const accounts = new NativeAccounts(platform, 'debian');

  const holder = spawn('chroot', [root, 'python3', '-c', LCKPWDF_HOLDER], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => holder.kill());
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`lckpwdf() in the root failed (exit ${code})`)));
  });
  let added = false;
  const adding = accounts.addGroup('waiter', false).then((ok) => {
    added = ok;
  });
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(added, false, 'kiln waits while lckpwdf() is held in the root');
  assert.doesNotMatch(readFileSync(join(root, 'etc/group'), 'utf8'), /^waiter:/m);
  holder.stdin.end();
  await adding;
  assert.equal(added, true);
  assert.match(readFileSync(join(root, 'etc/group'), 'utf8'), /^waiter:x:\d+:$/m);
  assert.equal(lstatSync(join(root, 'etc/.pwd.lock')).mode & 0o777, 0o600);

  // While kiln changes the files, the root's tools (python's fcntl standing in for their lckpwdf) find the lock taken.
  const lockFree = () => spawnSync('chroot', [root, 'python3', '-c', PWD_LOCK_FREE]).status === 0;
  const unlock = await lockAccounts(platform, ['/etc/group']);
  assert.equal(lockFree(), false, 'held by kiln');
  await unlock();
  assert.equal(lockFree(), true, 'let go');
});
