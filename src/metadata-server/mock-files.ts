// The served folder as a cloud's mock reads it (sources/mock-service.ts's MockFiles), and the host commands a mock may
// run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, promises as fsp, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { posix } from 'node:path';
import type { MockCommandResult, MockFiles } from '../sources/mock-service';

/** ROOT's files: a regular file's bytes, a folder's entries (by stat, so links are followed), sorted by name. */
export function folderFiles(root: string): MockFiles {
  return {
    async read(path) {
      const full = posix.join(root, path);
      try {
        return (await fsp.stat(full)).isFile() ? await fsp.readFile(full) : undefined;
      } catch {
        // No such file in the mock folder (or not readable): the mock answers as for a missing file.
        return undefined;
      }
    },
    async list(path) {
      const full = posix.join(root, path);
      let names: string[];
      try {
        names = (await fsp.readdir(full)).sort();
      } catch {
        // No such folder in the mock folder: the mock answers as for a missing folder.
        return undefined;
      }
      return Promise.all(
        names.map(async (name) => ({
          name,
          folder: (await fsp.stat(posix.join(full, name)).catch(() => undefined))?.isDirectory() ?? false,
        })),
      );
    },
  };
}

/** ARGV run in a fresh scratch folder holding FILES, removed afterwards. */
export function runInScratch(
  argv: string[],
  opts: { input?: Uint8Array; files?: Record<string, string | Uint8Array> } = {},
): MockCommandResult {
  const work = mkdtempSync(posix.join(tmpdir(), 'kiln-mock-'));
  try {
    for (const [name, content] of Object.entries(opts.files ?? {})) writeFileSync(posix.join(work, name), content);
    const r = spawnSync(argv[0] as string, argv.slice(1), { cwd: work, ...(opts.input ? { input: opts.input } : {}) });
    return {
      status: r.status,
      stdout: r.stdout ?? Buffer.alloc(0),
      stderr: r.stderr?.toString() ?? (r.error ? r.error.message : ''),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
