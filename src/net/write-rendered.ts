// Writes rendered network files under a plain host directory (net-convert's -d), outside any platform root.
import { dirname } from 'node:path';
import { pathUnderRoot } from '../util/paths';
import type { RenderedFile } from './renderer';
import { fsPromises } from '../util/on-demand-builtins';

export async function writeRenderedFiles(directory: string, files: RenderedFile[]): Promise<string[]> {
  const written: string[] = [];
  for (const f of files) {
    const host = pathUnderRoot(directory, f.path);
    await fsPromises().mkdir(dirname(host), { recursive: true });
    await fsPromises().writeFile(host, f.content, { mode: f.mode ?? 0o644 });
    written.push(host);
  }
  return written;
}
