// The account database lock (lckpwdf's /etc/.pwd.lock): kiln waits for another process's fcntl lock, fails
// clearly when it is not let go, holds the lock itself against others, and shares it within the process.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { lockPasswdDatabase } from '../../../../src/platform/linux/accounts/passwd-database-lock';
import { bindRecordLocks } from '../../../../src/platform/linux/record-locks';
import { testKoffi } from '../../../helpers/koffi';
import { tempDir } from '../../../helpers/temp';

const koffi = testKoffi();
const skip = koffi ? false : 'KILN_KOFFI_ADDON is not set (test/run.mjs sets it)';

/**
 * Another process's whole-file fcntl write lock on FILE, taken with libc's fcntl directly (exit 3 when the
 * lock is held by someone else); it holds it until its stdin closes.
 */
const HOLDER = `
const m = { exports: {} };
process.dlopen(m, process.env.KILN_KOFFI_ADDON);
const fcntl = m.exports.load('libc.so.6').func('int fcntl(int fd, int cmd, ...)');
const fs = require('fs');
const fd = fs.openSync(process.argv[1], fs.constants.O_WRONLY | fs.constants.O_CREAT, 0o600);
const flock = Buffer.alloc(32);
flock.writeInt16LE(1, 0); // F_WRLCK, SEEK_SET, whole file
if (fcntl(fd, 6, 'void *', flock) !== 0) process.exit(3); // F_SETLK
process.stdout.write('locked\\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
`;

async function holdLock(t: TestContext, file: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', HOLDER, file], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill());
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  return child;
}

/** Whether another process can take the lock on FILE now (and lets it go at once). */
function othersCanLock(file: string): boolean {
  const r = spawnSync(process.execPath, ['-e', HOLDER, file], { input: '', encoding: 'utf8' });
  return r.status === 0;
}

test('kiln waits while another process holds the lock, and takes it when that one lets go', { skip }, async (t) => {
  const locks = bindRecordLocks(koffi as NonNullable<typeof koffi>);
  const file = join(tempDir(t), '.pwd.lock');
  const holder = await holdLock(t, file);
  let done = false;
  const started = Date.now();
  const taking = lockPasswdDatabase(file, locks, { waitMs: 10_000 }).then((release) => {
    done = true;
    return release;
  });
  await new Promise((r) => setTimeout(r, 400));
  assert.equal(done, false, 'still waiting while the other process holds it');
  holder.stdin?.end();
  const release = await taking;
  assert.ok(Date.now() - started >= 400);
  assert.equal(othersCanLock(file), false, 'kiln now holds it against others');
  release();
  assert.equal(othersCanLock(file), true, 'and lets it go');
});

test('a lock that is not let go in time is a clear error naming its holder', { skip }, async (t) => {
  const locks = bindRecordLocks(koffi as NonNullable<typeof koffi>);
  const file = join(tempDir(t), '.pwd.lock');
  const holder = await holdLock(t, file);
  await assert.rejects(lockPasswdDatabase(file, locks, { waitMs: 300 }), (err: Error) => {
    assert.match(
      err.message,
      new RegExp(`${file.replace(/[.]/g, '\\.')} is locked by process ${holder.pid} .*not let go within 0\\.3 s`),
    );
    assert.equal(err.name, 'PlatformError');
    return true;
  });
});

test('the lock file is created 0600, and a lock held here is shared until its last holder lets go', {
  skip,
}, async (t) => {
  const locks = bindRecordLocks(koffi as NonNullable<typeof koffi>);
  const dir = tempDir(t);
  const file = join(dir, '.pwd.lock');
  const outer = await lockPasswdDatabase(file, locks, { waitMs: 0 });
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const inner = await lockPasswdDatabase(file, locks, {
    waitMs: 0,
    sleep: async () => assert.fail('a lock held here is never waited for'),
  });
  inner();
  assert.equal(
    othersCanLock(file),
    false,
    'the outer holder still has it: closing the inner descriptor would have dropped it',
  );
  outer();
  assert.equal(othersCanLock(file), true);
  // An existing lock file keeps its content and mode (lckpwdf opens it without truncating).
  writeFileSync(file, 'x', { mode: 0o644 });
  const again = await lockPasswdDatabase(file, locks, { waitMs: 0 });
  again();
  assert.equal(statSync(file).size, 1);
});
