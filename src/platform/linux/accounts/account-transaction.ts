// One change to the account files, as shadow-utils' commonio makes it: under the database's and the files' locks, read,
// changed in memory, and handed to the platform's write-back (account-write-back.ts), which keeps each changed file's
// previous content as FILE- (same mode, owner and times) and replaces FILE atomically with FILE's own mode and owner,
// once for all the changes of a module.
import { ACCOUNT_FILE_NAMES, type AccountFileName } from './account-file-names';
import type { AccountHost } from './account-host';
import { lockAccounts } from './account-locks';
import { ColonFile } from './colon-file';

interface Loaded {
  before: string;
  file: ColonFile;
  changed: boolean;
}

export class AccountTransaction {
  private constructor(
    private readonly platform: AccountHost,
    private readonly files: Map<AccountFileName, Loaded>,
    private readonly unlock: () => Promise<void>,
  ) {}

  /** Locks and reads NAMES (those that exist; a missing shadow or gshadow is simply not there). */
  static async open(platform: AccountHost, names: AccountFileName[]): Promise<AccountTransaction> {
    const present: AccountFileName[] = [];
    for (const name of ACCOUNT_FILE_NAMES)
      if (names.includes(name) && (await platform.exists(`/etc/${name}`))) present.push(name);
    const unlock = await lockAccounts(
      platform,
      present.map((n) => `/etc/${n}`),
    );
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
   * Hands the changed files to the platform's write-back (written now, or in a batch once it ends or before
   * anything else could read them), then unlocks: FILE- and FILE end as this change would have left them.
   */
  async commit(): Promise<void> {
    try {
      const now = new Date();
      for (const name of ACCOUNT_FILE_NAMES) {
        const loaded = this.files.get(name);
        if (loaded?.changed)
          await this.platform.accountWrites.change(`/etc/${name}`, loaded.before, loaded.file.text(), now);
      }
    } finally {
      await this.unlock();
    }
  }

  /** Unlocks without writing. */
  async abandon(): Promise<void> {
    await this.unlock();
  }
}
