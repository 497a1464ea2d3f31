// A read-only FileTree over any of our filesystem readers: path walking, name resolution, symlinks.
import type { FileTree, TreeEntry } from './filesystem-finder';
import { FilesystemError } from './filesystem-error';
import { resolveName, type NamedEntry } from './name-resolution';

/** One entry as a filesystem reader sees it. */
export interface FsNode extends NamedEntry {
  type: 'file' | 'directory' | 'symlink';
  size: number;
  /** Symlink target (Rock Ridge SL). */
  target?: string;
}

/** What a filesystem reader provides; the tree does the rest. */
export interface FsBackend<N extends FsNode> {
  readonly device: string;
  root(): Promise<N>;
  readDir(dir: N): Promise<N[]>;
  readData(file: N): Promise<Uint8Array>;
}

const MAX_DEPTH = 64;
const MAX_SYMLINK_HOPS = 16;

/** Splits a '/'- or '\\'-separated path into components; '.' and empty parts dropped, '..' resolved. */
export function splitPath(path: string): string[] {
  const out: string[] = [];
  for (const part of path.split(/[\\/]+/)) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return out;
}

export class ImageFileTree<N extends FsNode> implements FileTree {
  constructor(private readonly fs: FsBackend<N>) {}

  /** The node at PATH (symlinks followed when FOLLOW), or undefined. */
  async lookup(path: string, follow = true): Promise<N | undefined> {
    let parts = splitPath(path);
    let hops = 0;
    restart: for (;;) {
      if (parts.length > MAX_DEPTH)
        throw new FilesystemError(this.fs.device, `path '${path}' is deeper than ${MAX_DEPTH} levels`);
      let node = await this.fs.root();
      for (let i = 0; i < parts.length; i++) {
        if (node.type !== 'directory') return undefined;
        const child = resolveName(await this.fs.readDir(node), parts[i] as string);
        if (!child) return undefined;
        const last = i === parts.length - 1;
        if (child.type === 'symlink' && (follow || !last)) {
          if (++hops > MAX_SYMLINK_HOPS)
            throw new FilesystemError(this.fs.device, `too many symbolic links resolving '${path}'`);
          const target = child.target ?? '';
          const base = target.startsWith('/') ? [] : parts.slice(0, i);
          parts = splitPath([...base, target, ...parts.slice(i + 1)].join('/'));
          continue restart;
        }
        node = child;
      }
      return node;
    }
  }

  async readFile(path: string): Promise<Uint8Array | undefined> {
    const node = await this.lookup(path);
    if (node?.type !== 'file') return undefined;
    return this.fs.readData(node);
  }

  async list(path: string): Promise<TreeEntry[] | undefined> {
    const node = await this.lookup(path);
    if (node?.type !== 'directory') return undefined;
    return (await this.fs.readDir(node)).map((n) => ({ name: n.name, type: n.type, size: n.size }));
  }

  async exists(path: string): Promise<boolean> {
    return (await this.lookup(path)) !== undefined;
  }
}
