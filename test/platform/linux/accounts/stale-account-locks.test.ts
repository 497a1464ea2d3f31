// Account-file locks left by a killed boot never block the next one: a pid in a lock that now names a process
// started after the lock was written, or a lock from an earlier boot, is stale; staging files a killed writer
// left are removed once the lock is taken afresh. A live holder is still waited for. Before shadow-utils' own
// tools run, locks nobody holds are cleared, since the tools refuse an empty lock and trust any live pid.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { lockHolderAlive, type ProcReader } from '../../../../src/platform/linux/accounts/lock-holder';
import { clearStaleLocks, lockAccountFiles } from '../../../../src/platform/linux/accounts/shadow-lock';
import { tempDir } from '../../../helpers/temp';

function bootTimeSeconds(): number {
  const m = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'));
  assert.ok(m, '/proc/stat has btime');
  return Number(m[1]);
}

async function liveSleeper(t: TestContext): Promise<number> {
  const child = spawn('sleep', ['30']);
  t.after(() => child.kill());
  await new Promise((r) => child.once('spawn', r));
  assert.ok(child.pid);
  return child.pid;
}

test('a live pid that started after its lock was written is a reused pid: the lock is taken over at once', async (t) => {
  const root = tempDir(t);
  const file = join(root, 'passwd');
  writeFileSync(file, '');
  const pid = await liveSleeper(t);
  writeFileSync(`${file}.lock`, `${pid}\0`);
  const minuteAgo = Date.now() / 1000 - 60;
  utimesSync(`${file}.lock`, minuteAgo, minuteAgo);
  const unlock = await lockAccountFiles([file], async () => assert.fail('a stale lock is not waited for'));
  assert.equal(readFileSync(`${file}.lock`, 'latin1'), `${process.pid}\0`);
  await unlock();
});

test('a lock written before this boot is stale even when its pid is alive now', async (t) => {
  const root = tempDir(t);
  const file = join(root, 'shadow');
  writeFileSync(file, '');
  writeFileSync(`${file}.lock`, `${process.ppid}\0`);
  const beforeBoot = bootTimeSeconds() - 3600;
  utimesSync(`${file}.lock`, beforeBoot, beforeBoot);
  const unlock = await lockAccountFiles([file], async () =>
    assert.fail('a lock from an earlier boot is not waited for'),
  );
  await unlock();
});

test('a holder that started before it wrote the lock is waited for', async (t) => {
  const root = tempDir(t);
  const file = join(root, 'group');
  writeFileSync(file, '');
  const pid = await liveSleeper(t);
  writeFileSync(`${file}.lock`, `${pid}\0`);
  assert.equal(lockHolderAlive(`${file}.lock`, pid), true);
  let waits = 0;
  await assert.rejects(
    lockAccountFiles([file], async () => void waits++),
    /held by a running process/,
  );
  assert.equal(waits, 14);
});

test('where /proc cannot tell, a live pid is taken at its word; a missing pid never holds a lock', (t) => {
  const root = tempDir(t);
  const lock = join(root, 'passwd.lock');
  writeFileSync(lock, '4242\0');
  const blind: ProcReader = { read: () => undefined, exists: () => true };
  assert.equal(lockHolderAlive(lock, 4242, blind), true);
  const gone: ProcReader = { read: () => undefined, exists: () => false };
  assert.equal(lockHolderAlive(lock, 4242, gone), false);
  // A command name with spaces and parentheses does not shift the fields.
  const nowSec = Math.floor(Date.now() / 1000);
  const procWithStart = (startSecondsAfterBoot: number): ProcReader => ({
    exists: () => true,
    read: (p) =>
      p === '/proc/stat'
        ? `cpu 1 2 3\nbtime ${nowSec - 1000}\n`
        : `4242 (a) b (c)) S ${'0 '.repeat(18)}${startSecondsAfterBoot * 100} 0 0\n`,
  });
  assert.equal(lockHolderAlive(lock, 4242, procWithStart(500)), true, 'started 500 s before the lock was written');
  assert.equal(lockHolderAlive(lock, 4242, procWithStart(1600)), false, 'started after the lock was written');
});

test('staging files a killed writer left beside an account file go when its lock is taken afresh', async (t) => {
  const root = tempDir(t);
  const file = join(root, 'passwd');
  writeFileSync(file, 'root:x:0:0::/root:/bin/sh\n');
  writeFileSync(join(root, '.passwd.kiln-0123456789ab'), 'half');
  writeFileSync(join(root, '.passwd-.kiln-ba9876543210'), 'half');
  writeFileSync(join(root, '.group.kiln-0123456789ab'), 'not passwd: kept');
  const unlock = await lockAccountFiles([file], async () => undefined);
  await unlock();
  assert.deepEqual(readdirSync(root).sort(), ['.group.kiln-0123456789ab', 'passwd']);
  assert.ok(!existsSync(`${file}.lock`));
});

test('a lock is linked into place with its pid already in it, and its pid file does not stay', async (t) => {
  const root = tempDir(t);
  const file = join(root, 'gshadow');
  writeFileSync(file, '');
  writeFileSync(`${file}.lock`, ''); // what a writer killed between create and write left (shadow-utils: "without a PID")
  const unlock = await lockAccountFiles([file], async () => assert.fail('an empty lock is not waited for'));
  assert.equal(readFileSync(`${file}.lock`, 'latin1'), `${process.pid}\0`);
  assert.deepEqual(readdirSync(root).sort(), ['gshadow', 'gshadow.lock']);
  await unlock();
  assert.deepEqual(readdirSync(root), ['gshadow']);
});

test("before the tools run, locks nobody holds are cleared; a live holder's and our own are kept", async (t) => {
  const root = tempDir(t);
  const names = ['passwd', 'shadow', 'group', 'gshadow', 'subuid'];
  for (const n of names) writeFileSync(join(root, n), '');
  const live = await liveSleeper(t);
  writeFileSync(join(root, 'passwd.lock'), ''); // empty
  writeFileSync(join(root, 'shadow.lock'), '2147483646\0'); // no such process
  writeFileSync(join(root, 'group.lock'), `${live}\0`); // written by a live process after it started
  writeFileSync(join(root, 'gshadow.lock'), `${live}\0`);
  const minuteAgo = Date.now() / 1000 - 60;
  utimesSync(join(root, 'gshadow.lock'), minuteAgo, minuteAgo); // ... by a process that started later: a reused pid
  const unlock = await lockAccountFiles([join(root, 'subuid')], async () => undefined);
  clearStaleLocks(names.map((n) => join(root, n)));
  assert.deepEqual(
    readdirSync(root)
      .filter((n) => n.endsWith('.lock'))
      .sort(),
    ['group.lock', 'subuid.lock'],
  );
  await unlock();
});
