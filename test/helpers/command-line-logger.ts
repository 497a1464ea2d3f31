// A stand-in Windows program that records the raw command line it was given
// (test/fixtures/windows/command-line-logger.c), built with mingw-w64 at test time, for checking what kiln puts on a
// command line under wine.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { REPO } from './repo';
import { hasCommand, need } from './requirements';

const SOURCE = join(REPO, 'test', 'fixtures', 'windows', 'command-line-logger.c');

/**
 * Builds the logger into DIR once and copies it to DIR under each of NAMES ('cscript.exe', 'net.exe' …); each copy
 * appends its command line to DIR/command-lines.txt and exits 0. Undefined (T skipped) without mingw-w64.
 */
export function installCommandLineLoggers(t: TestContext, dir: string, names: string[]): string | undefined {
  if (
    !need(
      t,
      hasCommand('x86_64-w64-mingw32-gcc'),
      'mingw-w64 is not installed (apt-get install gcc-mingw-w64-x86-64-win32)',
    )
  )
    return undefined;
  mkdirSync(dir, { recursive: true });
  const built = join(dir, 'command-line-logger.exe');
  const r = spawnSync('x86_64-w64-mingw32-gcc', ['-municode', '-O2', '-s', '-o', built, SOURCE], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`building the command line logger failed: ${r.stderr}`);
  for (const name of names) copyFileSync(built, join(dir, name));
  return dir;
}

/** The command lines the loggers in DIR recorded, in order; [] when none ran. */
export function loggedCommandLines(dir: string): string[] {
  const file = join(dir, 'command-lines.txt');
  if (!existsSync(file)) return [];
  return readFileSync(file).toString('utf16le').split('\n').filter(Boolean);
}
