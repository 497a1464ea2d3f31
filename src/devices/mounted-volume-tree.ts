// A FileTree over a volume Windows has already mounted (a CD-ROM drive letter), for when raw reads fail.
import { join } from 'node:path';
import type { FileTree, TreeEntry } from './filesystem-finder';
import { splitPath } from './image-file-tree';
import { fsPromises } from '../util/on-demand-builtins';

/** ROOT is 'D:\\'; paths inside are '/'-separated. Windows already resolves names without regard to case. */
export class MountedVolumeTree implements FileTree {
  constructor(private readonly root: string) {}

  private host(path: string): string {
    return join(this.root, ...splitPath(path));
  }

  async readFile(path: string): Promise<Uint8Array | undefined> {
    try {
      return await fsPromises().readFile(this.host(path));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  async list(path: string): Promise<TreeEntry[] | undefined> {
    try {
      const entries = await fsPromises().readdir(this.host(path), { withFileTypes: true });
      const out: TreeEntry[] = [];
      for (const e of entries) {
        const type = e.isDirectory() ? 'directory' : e.isSymbolicLink() ? 'symlink' : 'file';
        const size = type === 'file' ? (await fsPromises().stat(join(this.host(path), e.name))).size : 0;
        out.push({ name: e.name, type, size });
      }
      return out;
    } catch {
      return undefined; // a folder that cannot be listed is absent to the tree's readers
    }
  }

  async exists(path: string): Promise<boolean> {
    try {
      await fsPromises().stat(this.host(path));
      return true;
    } catch {
      return false; // whatever stat's code, the path cannot be used: not there
    }
  }
}
