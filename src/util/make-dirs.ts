// `mkdir -p` with the true reason when it fails: Node's recursive mkdirSync reports ENOENT where a folder on
// the way cannot be made (a read-only file system gives EROFS to mkdir(2)), which would tell a user the wrong
// thing. On that ENOENT the first missing folder is made on its own, so its real error is the one thrown.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Makes DIR and its missing parents (MODE for each new one, as mkdirSync does). */
export function makeDirs(dir: string, mode?: number): void {
  try {
    mkdirSync(dir, { recursive: true, ...(mode !== undefined ? { mode } : {}) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    let missing = dir;
    while (dirname(missing) !== missing && statSync(dirname(missing), { throwIfNoEntry: false }) === undefined)
      missing = dirname(missing);
    mkdirSync(missing, mode); // throws the real reason (EROFS, EACCES, ENOTDIR …)
    throw err;
  }
}
