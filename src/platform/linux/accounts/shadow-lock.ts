// shadow-utils' lock on an account file: FILE.lock holding the locker's pid, taken by useradd, passwd, chpasswd,
// usermod and vipw alike, so kiln and those tools never write the same file at once. A lock whose process is
// gone, or whose pid now names a process started after the lock was written (a crash, then a reused pid), is
// stale and removed; a live one is waited for, 15 tries a second apart, as the tools do. A lock this process
// already holds is shared, not taken again.
import { closeSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { posix } from 'node:path';
import { PlatformError } from '../../../util/errors';
import { lockHolderAlive } from './lock-holder';

const TRIES = 15;
const PAUSE_MS = 1000;

/**
 * The locks this process holds, by lock path, with how many holders within it share each (an account change
 * made outside a batch writes back while its transaction still holds the files). Process-wide, as the lock
 * files themselves are: they name the process, not a caller. The file goes when the last holder lets go.
 */
const heldByThisProcess = new Map<string, number>();

/**
 * Creates LOCK (a host path) exclusively with our pid; false when another live process holds it. Unlike
 * shadow-utils, kiln does not fdatasync the lock: it only keeps out processes running now, which see it in
 * the page cache, and one that outlived a crash would be stale anyway.
 */
function tryLock(lock: string): boolean {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    try {
      writeSync(fd, `${process.pid}\0`);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  let text = '';
  try {
    text = readFileSync(lock, 'latin1');
  } catch {
    /* removed meanwhile: try again below */
  }
  const holder = Number.parseInt(text.replace(/\0.*$/s, ''), 10);
  // Our own pid on a lock we do not hold was left by an earlier process that had it: stale like any other.
  if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && lockHolderAlive(lock, holder)) return false;
  rmSync(lock, { force: true });
  return tryLock(lock);
}

/**
 * Removes the staging files a killed kiln left beside FILE and its backup FILE- (`.passwd.kiln-…`,
 * `.passwd-.kiln-…`). Only called when this process has just taken FILE's lock afresh: no writer of FILE is at
 * work, in this process or another, so any such file is a leftover.
 */
function removeLeftStaging(file: string): void {
  const dir = posix.dirname(file);
  const base = posix.basename(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(`.${base}.kiln-`) || name.startsWith(`.${base}-.kiln-`)) rmSync(posix.join(dir, name), { force: true });
  }
}

/** Locks the account files at HOST PATHS in order; returns the function that unlocks them all. */
export async function lockAccountFiles(hostPaths: string[], sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): Promise<() => Promise<void>> {
  const held: string[] = [];
  const release = async () => {
    for (const lock of held.reverse()) {
      const holders = (heldByThisProcess.get(lock) ?? 1) - 1;
      if (holders > 0) {
        heldByThisProcess.set(lock, holders);
        continue;
      }
      heldByThisProcess.delete(lock);
      rmSync(lock, { force: true });
    }
    held.length = 0;
  };
  try {
    for (const file of hostPaths) {
      const lock = `${file}.lock`;
      const holders = heldByThisProcess.get(lock);
      if (holders !== undefined) {
        heldByThisProcess.set(lock, holders + 1);
        held.push(lock);
        continue;
      }
      let got = false;
      for (let i = 0; i < TRIES && !got; i++) {
        if (i > 0) await sleep(PAUSE_MS);
        got = tryLock(lock);
      }
      if (!got) throw new PlatformError(`cannot lock ${file}: ${lock} is held by a running process; try again later`);
      heldByThisProcess.set(lock, 1);
      removeLeftStaging(file);
      held.push(lock);
    }
  } catch (err) {
    await release();
    throw err;
  }
  return release;
}
