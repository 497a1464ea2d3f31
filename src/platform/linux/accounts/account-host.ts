// What kiln's account writer needs of the Linux platform it works in (LinuxPlatform gives it), so that the
// account code depends on this shape and not on the platform that holds an account write-back of its own.
import type { FileOpts, Platform } from '../../platform';
import type { RecordLocks } from '../record-locks';

/** One file of a writeFiles change (LinuxPlatform's FileWrite). */
export interface AccountFileWrite {
  path: string;
  data: string | Uint8Array;
  opts?: FileOpts;
}

export interface AccountHost
  extends Pick<
    Platform,
    'root' | 'exists' | 'readText' | 'readTextIfExists' | 'readFile' | 'writeFile' | 'mkdir' | 'listDir' | 'symlink'
  > {
  /** PATH (in the target root) as a path on this machine. */
  hostPath(path: string): string;
  /**
   * PATH's host path with its links followed inside the root (LinuxPlatform.resolvedHostPath): for files opened by
   * hand.
   */
  resolvedHostPath(path: string): Promise<string>;
  /** PATH's content on disk, whatever the account write-back holds for it. */
  readDiskText(path: string): Promise<string>;
  /** Writes several files as one change (every content complete before the first replaces its file). */
  writeFiles(writes: AccountFileWrite[]): Promise<void>;
  /** Where an account change lands: held within a batch, else written at once (AccountWriteBack.change). */
  readonly accountWrites: { change(path: string, before: string, after: string, now: Date): Promise<void> };
  /**
   * fcntl record locks through libc, for /etc/.pwd.lock; undefined when libc cannot be reached (no koffi), and
   * then kiln leaves the account files to the distro's tools, which take that lock themselves.
   */
  recordLocks(): RecordLocks | undefined;
}
