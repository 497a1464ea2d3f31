// The lock of the whole account database that glibc's lckpwdf() takes and shadow-utils' tools take before their
// per-file locks: a write lock (fcntl, whole file) on /etc/.pwd.lock, created 0600, waited for up to 15 seconds.
// kiln takes it as they do, in the target root, so that a useradd, passwd or vipw running at the same time (in
// the image or on the running system) and kiln never change the account files together.
import { closeSync, constants, openSync } from 'node:fs';
import { describeError, PlatformError } from '../../../util/errors';
import type { RecordLocks } from '../record-locks';

/** lckpwdf's TIMEOUT. */
const WAIT_MS = 15_000;
const POLL_MS = 100;

/**
 * The lock files this process holds, with how many holders within it share each. An fcntl lock belongs to the
 * process and goes with the first close of any descriptor of the file, so the descriptor is opened once and
 * closed when the last holder lets go (an account change's commit takes the lock again while it is held).
 */
const heldByThisProcess = new Map<string, { fds: number[]; holders: number }>();

export interface PasswdLockWait {
  sleep?: (ms: number) => Promise<void>;
  waitMs?: number;
}

/** Takes the write lock on LOCK PATH (a host path: the root's /etc/.pwd.lock); returns the function that lets it go. */
export async function lockPasswdDatabase(
  lockPath: string,
  locks: RecordLocks,
  wait: PasswdLockWait = {},
): Promise<() => void> {
  const release = () => {
    const held = heldByThisProcess.get(lockPath);
    if (!held) return;
    if (--held.holders > 0) return;
    heldByThisProcess.delete(lockPath);
    for (const fd of held.fds) closeSync(fd);
  };
  const held = heldByThisProcess.get(lockPath);
  if (held) {
    held.holders++;
    return release;
  }
  let fd: number;
  try {
    // Node opens every descriptor close-on-exec, as lckpwdf does (O_CLOEXEC): a command kiln starts does not inherit
    // the lock.
    fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT, 0o600);
  } catch (err) {
    throw new PlatformError(`cannot lock the account files: cannot open ${lockPath}: ${describeError(err)}`, {
      cause: err,
    });
  }
  const sleep = wait.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const deadline = Date.now() + (wait.waitMs ?? WAIT_MS);
  try {
    while (!locks.tryWriteLock(fd)) {
      if (Date.now() >= deadline) {
        const pid = locks.holder(fd);
        throw new PlatformError(
          `cannot lock the account files: ${lockPath} is locked${pid ? ` by process ${pid}` : ''} (a useradd, passwd, vipw or other account tool at work) and was not let go within ${(wait.waitMs ?? WAIT_MS) / 1000} s; try again when it has finished`,
        );
      }
      await sleep(POLL_MS);
      const meanwhile = heldByThisProcess.get(lockPath);
      if (meanwhile) {
        // Another caller here took it while this one slept: shared. Closing this descriptor now would drop the
        // process's lock, so it stays open until the last holder lets go.
        meanwhile.holders++;
        meanwhile.fds.push(fd);
        return release;
      }
    }
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  heldByThisProcess.set(lockPath, { fds: [fd], holders: 1 });
  return release;
}
