// Joining paths inside a target root without ever escaping it.
import { posix } from 'node:path';

/**
 * The host path for PATH (absolute, inside the target) under ROOT. `..` cannot climb above the root, so a
 * hostile path from user data still lands inside it.
 */
export function pathUnderRoot(root: string, path: string): string {
  const inside = posix.normalize(posix.join('/', path));
  if (root === '/' || root === '') return inside;
  return posix.join(root, inside);
}

const MAX_SYMLINK_HOPS = 40;

/**
 * Resolves PATH inside ROOT the way a chroot would: every symlink met on the way, absolute or relative,
 * is followed relative to ROOT, so an absolute link such as `instance -> /var/lib/cloud/instances/i-1`
 * never points at the host. Components that do not exist yet are kept as they are.
 */
export async function resolveInRoot(
  root: string,
  path: string,
  fs: { lstat(p: string): Promise<{ isSymbolicLink(): boolean }>; readlink(p: string): Promise<string> },
): Promise<string> {
  if (root === '/' || root === '') return posix.normalize(posix.join('/', path));
  const pending = posix.normalize(posix.join('/', path)).split('/').filter(Boolean);
  const done: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift() as string;
    if (part === '.') continue;
    if (part === '..') {
      done.pop();
      continue;
    }
    const host = posix.join(root, ...done, part);
    let isLink = false;
    try {
      isLink = (await fs.lstat(host)).isSymbolicLink();
    } catch {
      isLink = false; // nothing there (yet) to follow: not a link
    }
    if (!isLink) {
      done.push(part);
      continue;
    }
    if (++hops > MAX_SYMLINK_HOPS) throw new Error(`too many levels of symbolic links resolving ${path} under ${root}`);
    const target = await fs.readlink(host);
    const targetParts = target.split('/').filter(Boolean);
    if (target.startsWith('/')) done.length = 0;
    pending.unshift(...targetParts);
  }
  return posix.join(root, ...done);
}
