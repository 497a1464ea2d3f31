// One change to the account files, committed as shadow-utils' commonio commits it: under the files' locks,
// each changed file's previous content is kept as FILE- (same mode, owner and times), then the new content
// replaces FILE atomically with FILE's own mode and owner.
import { statSync, utimesSync } from 'node:fs';
import type { FileWrite, LinuxPlatform } from '../linux-platform';
import { ColonFile } from './colon-file';
import { lockAccountFiles } from './shadow-lock';

export type AccountFileName = 'passwd' | 'shadow' | 'group' | 'gshadow' | 'subuid' | 'subgid';

/** The order shadow-utils locks and writes them in. */
const ORDER: AccountFileName[] = ['passwd', 'shadow', 'group', 'gshadow', 'subuid', 'subgid'];

interface Loaded {
  before: string;
  file: ColonFile;
  changed: boolean;
}

export class AccountTransaction {
  private constructor(
    private readonly platform: LinuxPlatform,
    private readonly files: Map<AccountFileName, Loaded>,
    private readonly unlock: () => Promise<void>,
  ) {}

  /** Locks and reads NAMES (those that exist; a missing shadow or gshadow is simply not there). */
  static async open(platform: LinuxPlatform, names: AccountFileName[]): Promise<AccountTransaction> {
    const present: AccountFileName[] = [];
    for (const name of ORDER) if (names.includes(name) && (await platform.exists(`/etc/${name}`))) present.push(name);
    const unlock = await lockAccountFiles(present.map((n) => platform.hostPath(`/etc/${n}`)));
    const files = new Map<AccountFileName, Loaded>();
    try {
      for (const name of present) {
        const before = await platform.readText(`/etc/${name}`);
        files.set(name, { before, file: new ColonFile(before), changed: false });
      }
    } catch (err) {
      await unlock();
      throw err;
    }
    return new AccountTransaction(platform, files, unlock);
  }

  has(name: AccountFileName): boolean {
    return this.files.has(name);
  }

  /** NAME's content, marked as changed: shadow-utils rewrites (and backs up) every file it updates an entry in. */
  change(name: AccountFileName): ColonFile {
    const loaded = this.files.get(name);
    if (!loaded) throw new Error(`/etc/${name} is not part of this change`);
    loaded.changed = true;
    return loaded.file;
  }

  read(name: AccountFileName): ColonFile | undefined {
    return this.files.get(name)?.file;
  }

  /**
   * Writes the changed files with their backups, then unlocks. All new contents are synced together before
   * the first rename (one journal commit rather than one per file), then each backup and file goes into
   * place in shadow-utils' order.
   */
  async commit(): Promise<void> {
    try {
      const writes: FileWrite[] = [];
      const backups: Array<{ path: string; atime: Date; mtime: Date }> = [];
      for (const name of ORDER) {
        const loaded = this.files.get(name);
        if (!loaded?.changed) continue;
        const path = `/etc/${name}`;
        const st = statSync(this.platform.hostPath(path));
        const opts = { mode: st.mode & 0o7777, owner: `${st.uid}:${st.gid}`, durable: true };
        writes.push({ path: `${path}-`, data: loaded.before, opts }, { path, data: loaded.file.text(), opts });
        backups.push({ path: `${path}-`, atime: st.atime, mtime: st.mtime });
      }
      await this.platform.writeFiles(writes);
      for (const b of backups) utimesSync(this.platform.hostPath(b.path), b.atime, b.mtime);
    } finally {
      await this.unlock();
    }
  }

  /** Unlocks without writing. */
  async abandon(): Promise<void> {
    await this.unlock();
  }
}
