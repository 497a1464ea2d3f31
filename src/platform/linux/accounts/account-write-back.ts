// The account files' changes of one module, written once: each change kiln makes as useradd, usermod or passwd
// would (an AccountTransaction) lands here; outside a batch it is written at once, inside one (the runner makes
// each module a batch) when the batch ends, every changed file once, as the last of those tools would have
// left it: FILE- holds the content before FILE's last change, with the times FILE had then, and FILE the final
// content, all synced together before the first replaces its file.
//
// A module that adds four users used to write and sync the files eleven times (~8 ms each on a small VM);
// now once. While changes are held the platform answers reads of these files from here, and anything else that
// could see them (a command, a write or removal of one of them) has them written first.
import { statSync, utimesSync } from 'node:fs';
import { describeError, PlatformError } from '../../../util/errors';
import type { AccountFileWrite, AccountHost } from './account-host';
import { lockAccounts } from './account-locks';
import { ACCOUNT_FILE_NAMES } from './account-file-names';

/** The files shadow-utils writes, as root paths, in the order it locks and writes them. */
const ACCOUNT_FILES: readonly string[] = ACCOUNT_FILE_NAMES.map((name) => `/etc/${name}`);

/** What one file's changes since the last flush come to. */
interface HeldFile {
  /** The content on disk when the first change was held (checked again before writing). */
  onDisk: string;
  /** The content before the last change: FILE-. */
  before: string;
  /** The content after the last change: FILE. */
  after: string;
  /** The times FILE- gets: FILE's on disk before the first change, the time of the previous change after that. */
  backupTimes: { atime: Date; mtime: Date };
  /** When the last change was held (the mtime FILE would have had after it). */
  changedAt: Date;
}

export class AccountWriteBack {
  private readonly held = new Map<string, HeldFile>();
  private flushing = false;
  /** How many batches are open (nested batches end with the outermost). */
  private batches = 0;

  constructor(private readonly platform: AccountHost) {}

  /** The held content of PATH (a root path), undefined when nothing is held for it. */
  textOf(path: string): string | undefined {
    return this.held.get(path)?.after;
  }

  /** Whether PATH is an account file or its backup (FILE-), which a write or removal must not overtake. */
  static concerns(path: string): boolean {
    const file = path.endsWith('-') ? path.slice(0, -1) : path;
    return ACCOUNT_FILES.includes(file);
  }

  /** Flushes first when PATH is about to be written or removed by something else (not by the flush itself). */
  async flushBefore(path: string): Promise<void> {
    if (this.held.size > 0 && !this.flushing && AccountWriteBack.concerns(path)) await this.flush();
  }

  /**
   * Runs WORK with the account changes it makes held, and writes them when it ends, whether it succeeded or not
   * (changes made before a failure are kept, as the tools would have kept them).
   */
  async batch<T>(work: () => Promise<T>): Promise<T> {
    this.batches++;
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (--this.batches === 0) {
        try {
          await this.flush();
        } catch (flushErr) {
          throw new PlatformError(`${describeError(err)}; and then: ${describeError(flushErr)}`, { cause: err });
        }
      }
      throw err;
    }
    if (--this.batches === 0) await this.flush();
    return result;
  }

  /**
   * Takes a change of PATH from BEFORE to AFTER (BEFORE being what the change read, from disk or from here): held in a
   * batch, else written now.
   */
  async change(path: string, before: string, after: string, now: Date): Promise<void> {
    await this.hold(path, before, after, now);
    if (this.batches === 0) await this.flush();
  }

  private async hold(path: string, before: string, after: string, now: Date): Promise<void> {
    const earlier = this.held.get(path);
    if (earlier) {
      this.held.set(path, {
        onDisk: earlier.onDisk,
        before,
        after,
        backupTimes: { atime: earlier.changedAt, mtime: earlier.changedAt },
        changedAt: now,
      });
      return;
    }
    const st = statSync(await this.platform.resolvedHostPath(path));
    this.held.set(path, {
      onDisk: before,
      before,
      after,
      backupTimes: { atime: st.atime, mtime: st.mtime },
      changedAt: now,
    });
  }

  /**
   * Writes what is held under the database's and the files' locks: for each file its backup and its new content, with
   * the file's own mode and owner, durably. A file that another process changed since its first change was held is not
   * overwritten: that is an error naming it, and nothing is written.
   */
  async flush(): Promise<void> {
    if (this.held.size === 0 || this.flushing) return;
    this.flushing = true;
    const paths = ACCOUNT_FILES.filter((p) => this.held.has(p));
    const unlock = await lockAccounts(this.platform, paths);
    try {
      const writes: AccountFileWrite[] = [];
      for (const path of paths) {
        const file = this.held.get(path) as HeldFile;
        const host = await this.platform.resolvedHostPath(path);
        const st = statSync(host);
        const current = await this.platform.readDiskText(path);
        if (current !== file.onDisk)
          throw new PlatformError(
            `${path} was changed by another process while kiln was updating it; kiln's changes to it were not written`,
          );
        const opts = { mode: st.mode & 0o7777, owner: `${st.uid}:${st.gid}`, durable: true };
        writes.push({ path: `${path}-`, data: file.before, opts }, { path, data: file.after, opts });
      }
      await this.platform.writeFiles(writes);
      for (const path of paths) {
        const { atime, mtime } = (this.held.get(path) as HeldFile).backupTimes;
        utimesSync(await this.platform.resolvedHostPath(`${path}-`), atime, mtime);
      }
    } finally {
      this.held.clear();
      this.flushing = false;
      await unlock();
    }
  }
}
