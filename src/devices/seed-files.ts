// The input of the image writers: files by '/'-separated path, turned into a checked folder tree.
import { KilnError } from '../util/errors';

export interface SeedFile {
  /** '/'-separated, relative: 'openstack/latest/meta_data.json'. */
  path: string;
  data: Uint8Array;
}

export interface SeedDir {
  name: string;
  dirs: SeedDir[];
  files: Array<{ name: string; data: Uint8Array }>;
}

/** Bad input to make-seed: a name a filesystem cannot hold, a file where a folder must be. */
export class SeedError extends KilnError {
  override readonly name = 'SeedError';
}

export function buildSeedTree(files: SeedFile[]): SeedDir {
  const root: SeedDir = { name: '', dirs: [], files: [] };
  for (const f of files) {
    const parts = f.path.split('/').filter((p) => p !== '' && p !== '.');
    if (parts.length === 0 || parts.includes('..'))
      throw new SeedError(`seed path '${f.path}' is not a relative file path`);
    let dir = root;
    for (const part of parts.slice(0, -1)) {
      if (dir.files.some((x) => x.name === part))
        throw new SeedError(`seed path '${f.path}': '${part}' is a file, not a folder`);
      let next = dir.dirs.find((d) => d.name === part);
      if (!next) {
        next = { name: part, dirs: [], files: [] };
        dir.dirs.push(next);
      }
      dir = next;
    }
    const name = parts[parts.length - 1] as string;
    if (dir.dirs.some((d) => d.name === name) || dir.files.some((x) => x.name === name))
      throw new SeedError(`seed path '${f.path}' is given twice`);
    dir.files.push({ name, data: f.data });
  }
  return root;
}
