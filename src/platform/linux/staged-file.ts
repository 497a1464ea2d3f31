// Atomic file replacement in two steps, so that several files can be made ready (and synced together) before
// any of them replaces its target: stage writes the new content to a temporary file beside the target, commit
// renames it into place.
//
// The small steps are synchronous system calls: each promise-based call is a thread-pool round trip, which
// on a loaded two-core VM cost ~1.5 ms per file against ~0.2 ms this way, and kiln runs one module at a time.
// Only the fsyncs go to the thread pool, all at once, so that the disk's journal commits them together.
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fchownSync, fsync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { posix } from 'node:path';
import { makeDirs } from '../../util/make-dirs';

export interface StagedFile {
  /** The host path the content is meant for. */
  readonly target: string;
  readonly temp: string;
  fd: number | undefined;
}

/** Writes all of BYTES at FD's current offset (write(2) may write less than it is given). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** Writes CONTENT to a new temporary file in TARGET's folder (made when missing), with MODE and, when given, IDS. */
export function stageFile(
  target: string,
  content: Uint8Array,
  mode: number,
  ids?: { uid: number; gid: number },
): StagedFile {
  const dir = posix.dirname(target);
  makeDirs(dir);
  const temp = posix.join(dir, `.${posix.basename(target)}.kiln-${randomBytes(6).toString('hex')}`);
  const fd = openSync(temp, 'wx', 0o600);
  const staged: StagedFile = { target, temp, fd };
  try {
    writeAll(fd, content);
    if (ids) fchownSync(fd, ids.uid, ids.gid);
    fchmodSync(fd, mode);
  } catch (err) {
    discardStaged(staged);
    throw err;
  }
  return staged;
}

/** fsyncs every staged file's content at once (the journal then commits them in one go rather than one each). */
export async function syncStaged(files: StagedFile[]): Promise<void> {
  await Promise.all(
    files.map(
      (f) =>
        new Promise<void>((resolve, reject) => {
          if (f.fd === undefined) return resolve();
          fsync(f.fd, (err) => (err ? reject(err) : resolve()));
        }),
    ),
  );
}

/** Puts the staged content in place of its target (one rename: readers see the old file or the new, never a part). */
export function commitStaged(file: StagedFile): void {
  closeFd(file);
  renameSync(file.temp, file.target);
}

/** Drops a staged file that will not be committed. */
export function discardStaged(file: StagedFile): void {
  closeFd(file);
  rmSync(file.temp, { force: true });
}

function closeFd(file: StagedFile): void {
  if (file.fd === undefined) return;
  const fd = file.fd;
  file.fd = undefined;
  closeSync(fd);
}
