// shadow-utils' lock on an account file: FILE.lock holding the locker's pid, taken by useradd, passwd, chpasswd,
// usermod and vipw alike, so kiln and those tools never write the same file at once. A lock whose process is
// gone, or whose pid now names a process started after the lock was written (a crash, then a reused pid), is
// stale and removed; a live one is waited for, 15 tries a second apart, as the tools do. A lock this process
// already holds is shared, not taken again.
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { posix } from 'node:path';
import { PlatformError } from '../../../util/errors';
import { lockHolderAlive, processExists } from './lock-holder';

const TRIES = 15;
const PAUSE_MS = 1000;

/**
 * The locks this process holds, by lock path, with how many holders within it share each (an account change
 * made outside a batch writes back while its transaction still holds the files). Process-wide, as the lock
 * files themselves are: they name the process, not a caller. The file goes when the last holder lets go.
 */
const heldByThisProcess = new Map<string, number>();

/**
 * Whether LOCK (a host path) is held by a live process other than this one. A lock without a pid in it, or
 * naming a process that is gone or that started after the lock was written, is stale (shadow-utils refuses
 * an empty lock as "without a PID"; only a writer killed between creating and filling it leaves one).
 */
function heldByAnother(lock: string): boolean {
  let text: string;
  try {
    text = readFileSync(lock, 'latin1');
  } catch {
    return false; // removed meanwhile
  }
  const holder = Number.parseInt(text.replace(/\0.*$/s, ''), 10);
  // Our own pid on a lock we do not hold was left by an earlier process that had it: stale like any other.
  return Number.isInteger(holder) && holder > 0 && holder !== process.pid && lockHolderAlive(lock, holder);
}

/**
 * Takes LOCK (a host path) for FILE with our pid; false when another live process holds it. As shadow-utils
 * does, the pid is written to a file of its own first and that file linked to LOCK, so LOCK never exists
 * without its pid, whenever a kill lands. The pid file is named like kiln's staging files, so one a kill
 * left is removed with them. Unlike shadow-utils, kiln does not fdatasync the lock: it only keeps out
 * processes running now, which see it in the page cache, and one that outlived a crash would be stale anyway.
 */
function tryLock(file: string, lock: string): boolean {
  const pidFile = posix.join(posix.dirname(file), `.${posix.basename(file)}.kiln-lock-${process.pid}`);
  writeFileSync(pidFile, `${process.pid}\0`, { mode: 0o600 });
  try {
    for (;;) {
      try {
        linkSync(pidFile, lock);
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      if (heldByAnother(lock)) return false;
      rmSync(lock, { force: true });
    }
  } finally {
    rmSync(pidFile, { force: true });
  }
}

/**
 * Removes the locks of the account files at HOST PATHS that no live process holds (an empty one, or one whose
 * pid is gone or reused), so that shadow-utils' own tools, which take a live pid at its word and refuse an
 * empty lock, are not blocked by what a killed kiln left. Locks this process holds are left alone.
 */
export function clearStaleLocks(hostPaths: string[]): void {
  for (const file of hostPaths) {
    const lock = `${file}.lock`;
    if (heldByThisProcess.has(lock) || !existsSync(lock)) continue;
    if (!heldByAnother(lock)) rmSync(lock, { force: true });
  }
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
    return; // the folder cannot be listed: a best-effort clean-up has nothing to remove
  }
  for (const name of names) {
    if (!name.startsWith(`.${base}.kiln-`) && !name.startsWith(`.${base}-.kiln-`)) continue;
    // Another kiln about to try for the lock has its pid file here for a moment: only a dead one's is left over.
    const locker = /^\.[^/]*\.kiln-lock-(\d+)$/.exec(name);
    if (locker && Number(locker[1]) !== process.pid && processExists(Number(locker[1]))) continue;
    rmSync(posix.join(dir, name), { force: true });
  }
}

/** Locks the account files at HOST PATHS in order; returns the function that unlocks them all. */
export async function lockAccountFiles(
  hostPaths: string[],
  sleep = (ms: number) => new Promise((r) => setTimeout(r, ms)),
): Promise<() => Promise<void>> {
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
        got = tryLock(file, lock);
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
