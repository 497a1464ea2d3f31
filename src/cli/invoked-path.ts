// The path a program was started by, as Python's sys.argv[0] shows it: a bare name is what PATH resolved it to.
import { accessSync, constants } from 'node:fs';
import { posix } from 'node:path';

/**
 * ARGV0 when it names a path (`/usr/bin/cloud-init`, `./cloud-init`); a bare name (`cloud-init`, as a shell runs
 * it) becomes the first executable of that name in PATH, since the kernel starts a script with that path; ARGV0
 * itself when none is found.
 */
export function invokedPath(argv0: string, path: string | undefined, isExecutable: (p: string) => boolean = executable): string {
  if (argv0.includes('/') || argv0.includes('\\')) return argv0;
  for (const dir of (path ?? '').split(':')) {
    if (!dir.startsWith('/')) continue;
    const candidate = posix.join(dir, argv0);
    if (isExecutable(candidate)) return candidate;
  }
  return argv0;
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
