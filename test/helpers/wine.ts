// Runs the built Windows binary under wine, stdout and stderr to files (wine + node need that, not pipes).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './repo';

export interface WineResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The wine prefix shared by all tests; wine creates it on first use (the slow part, once). */
export const WINE_PREFIX = process.env.KILN_WINEPREFIX ?? join(REPO, '.cache', 'wine-prefix');

export function runUnderWine(exe: string, args: string[], env: Record<string, string> = {}, timeoutMs = 180_000): WineResult {
  mkdirSync(WINE_PREFIX, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'kiln-wine-'));
  try {
    const out = join(dir, 'out.txt');
    const err = join(dir, 'err.txt');
    const quoted = [exe, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = spawnSync('sh', ['-c', `wine ${quoted} > '${out}' 2> '${err}'`], {
      env: { ...process.env, WINEPREFIX: WINE_PREFIX, WINEDEBUG: '-all', NODE_SKIP_PLATFORM_CHECK: '1', ...env },
      timeout: timeoutMs,
    });
    return { code: r.status ?? -1, stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
