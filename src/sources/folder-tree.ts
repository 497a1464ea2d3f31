// A FileTree over a plain folder inside the target root, read through the Platform (seed dirs, fake drives in tests).
import { posix } from 'node:path';
import type { FileTree, TreeEntry } from '../devices/filesystem-finder';
import type { Platform } from '../platform/platform';

export class FolderTree implements FileTree {
  /** BASE is a folder inside the platform's root, e.g. '/var/lib/cloud/seed/nocloud'. */
  constructor(
    private readonly platform: Platform,
    readonly base: string,
  ) {}

  private inside(path: string): string {
    // normalize against '/' first so '..' in PATH cannot leave BASE
    return posix.join(this.base, posix.normalize(posix.join('/', path)));
  }

  async readFile(path: string): Promise<Uint8Array | undefined> {
    const full = this.inside(path);
    try {
      return await this.platform.readFile(full);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
      throw err;
    }
  }

  async list(path: string): Promise<TreeEntry[] | undefined> {
    const full = this.inside(path);
    let names: string[];
    try {
      names = await this.platform.listDir(full);
    } catch {
      return undefined; // a folder that cannot be listed is absent to the tree's readers
    }
    const entries: TreeEntry[] = [];
    for (const name of names) {
      const child = posix.join(full, name);
      // Platform has no stat: a readable listing means a folder; anything else is taken as a file.
      let type: TreeEntry['type'] = 'file';
      let size = 0;
      try {
        await this.platform.listDir(child);
        type = 'directory';
      } catch {
        // not listable: a file (see above)
        try {
          size = (await this.platform.readFile(child)).length;
        } catch {
          size = 0; // unreadable too: listed with size 0, reading it later reports why
        }
      }
      entries.push({ name, type, size });
    }
    return entries;
  }

  exists(path: string): Promise<boolean> {
    return this.platform.exists(this.inside(path));
  }
}
