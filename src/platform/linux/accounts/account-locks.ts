// Both locks shadow-utils takes before it changes account files, in its order: lckpwdf()'s /etc/.pwd.lock for
// the whole database, then FILE.lock for each file; let go in the reverse order.
import { PlatformError } from '../../../util/errors';
import type { AccountHost } from './account-host';
import { lockPasswdDatabase } from './passwd-database-lock';
import { ACCOUNT_FILE_NAMES } from './account-file-names';
import { clearStaleLocks, lockAccountFiles } from './shadow-lock';

/** Locks the account database and the files at ROOT PATHS in HOST's root; returns the function that unlocks them. */
export async function lockAccounts(host: AccountHost, rootPaths: string[]): Promise<() => Promise<void>> {
  const locks = host.recordLocks();
  // NativeAccounts is only used where the locks can be had; reaching this without them is kiln's own mistake.
  if (!locks)
    throw new PlatformError(
      `cannot lock the account files in ${host.root}: libc's fcntl is not available to take /etc/.pwd.lock`,
    );
  // Resolved inside the root: an /etc that links out of a --root sandbox must not lock the host's files.
  const unlockDatabase = await lockPasswdDatabase(await host.resolvedHostPath('/etc/.pwd.lock'), locks);
  let unlockFiles: () => Promise<void>;
  try {
    const files: string[] = [];
    for (const p of rootPaths) files.push(await host.resolvedHostPath(p));
    unlockFiles = await lockAccountFiles(files);
  } catch (err) {
    unlockDatabase();
    throw err;
  }
  return async () => {
    try {
      await unlockFiles();
    } finally {
      unlockDatabase();
    }
  };
}

/**
 * Removes the FILE.lock files of HOST's account files that no live process holds, before one of shadow-utils'
 * tools runs there: the tools take any live pid in a lock at its word (after a crash, pids are reused) and
 * refuse an empty lock, so what a killed kiln left would fail them.
 */
export async function clearStaleAccountLocks(host: Pick<AccountHost, 'resolvedHostPath'>): Promise<void> {
  const files: string[] = [];
  for (const name of ACCOUNT_FILE_NAMES) files.push(await host.resolvedHostPath(`/etc/${name}`));
  clearStaleLocks(files);
}
