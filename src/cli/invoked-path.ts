// The path a program was started by, as Python's sys.argv[0] shows it: a bare name is what PATH resolved it to.
import { findExecutable } from '../platform/linux/posix-spawn';

/**
 * ARGV0 when it names a path (`/usr/bin/cloud-init`, `./cloud-init`); a bare name (`cloud-init`, as a shell runs
 * it) becomes the first executable of that name in PATH's absolute folders, since the kernel starts a script with
 * that path; ARGV0 itself when none is found.
 */
export function invokedPath(argv0: string, path: string | undefined): string {
  if (argv0.includes('/') || argv0.includes('\\')) return argv0;
  const absolute = (path ?? '').split(':').filter((dir) => dir.startsWith('/'));
  return absolute.length === 0 ? argv0 : (findExecutable(argv0, absolute.join(':')) ?? argv0);
}
