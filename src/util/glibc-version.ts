// The version of the glibc this process runs on, as Python's platform.libc_ver() reports it, found without
// process.report (whose full report costs 5-15 ms): the libc.so.6 mapped into the process says it itself.
import { readFileSync } from 'node:fs';

let cached: string | null | undefined;

/** The version in a glibc image's banner ("... release version 2.36."), undefined when there is none. */
export function glibcVersionInImage(image: Buffer): string | undefined {
  const at = image.indexOf('release version ');
  if (at < 0) return undefined;
  return /^release version (\d+\.\d+)/.exec(image.subarray(at, at + 40).toString('latin1'))?.[1];
}

/** The running glibc's version ('2.36'), undefined on other C libraries (musl) or when it cannot be read. */
export function runningGlibcVersion(): string | undefined {
  if (cached !== undefined) return cached ?? undefined;
  cached = null;
  try {
    const maps = readFileSync('/proc/self/maps', 'utf8');
    const path = /\s(\/\S*\/libc(?:\.so\.6|-\d+\.\d+\.so))$/m.exec(maps)?.[1];
    if (path) cached = glibcVersionInImage(readFileSync(path)) ?? null;
  } catch {
    cached = null;
  }
  return cached ?? undefined;
}
