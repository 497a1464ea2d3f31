// Private copies of a cached rootfs as overlay mounts: the cache is the read-only lower layer and every write lands in
// an upper folder of the test's own, so a copy costs a mount instead of cp -a of ~15 000 files (seconds each, twice
// per parity case). KILN_TEST_ROOTFS_COPY=1 switches back to cp -a; without root or overlayfs the copy is cp -a too.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** Mount point → the folder holding its upper and work layers, for the overlays this process mounted. */
const mounted = new Map<string, string>();

/**
 * Whether overlays are used: not with the off switch, not without root, and not when a test keeps its work folder to
 * look into (a kept copy must be whole).
 */
function overlaysWanted(): boolean {
  return (
    process.env.KILN_TEST_ROOTFS_COPY !== '1' &&
    !process.env.KILN_PARITY_KEEP &&
    process.env.KILN_BOOT_KEEP !== '1' &&
    process.getuid?.() === 0
  );
}

export interface CopyOptions {
  /**
   * A real copy on the file system of its folder: the test hard-links files from outside into it (EXDEV across a
   * mount).
   */
  sameFileSystem?: boolean;
}

/**
 * Makes INTO (created when missing; empty) a private, writable copy of SRC: an overlay when it can, else cp -a.
 * redirect_dir=on lets a folder of the lower layer be renamed, as on a real disk (without it rename(2) says EXDEV).
 */
export function privateCopy(src: string, into: string, { sameFileSystem = false }: CopyOptions = {}): string {
  mkdirSync(into, { recursive: true });
  if (!sameFileSystem && overlaysWanted() && mountOverlay(src, resolve(into))) return into;
  const r = spawnSync('cp', ['-a', '--reflink=auto', `${src}/.`, into]);
  if (r.status !== 0) throw new Error(`copying ${src} failed: ${r.stderr}`);
  return into;
}

function mountOverlay(src: string, into: string): boolean {
  if (readdirSync(into).length > 0) return false;
  const layers = join(dirname(into), `.${basename(into)}.overlay`);
  const upper = join(layers, 'upper');
  const work = join(layers, 'work');
  mkdirSync(upper, { recursive: true });
  mkdirSync(work, { recursive: true });
  // The root of the merged tree takes the upper folder's mode and owner: give it the cached root's.
  const st = statSync(src);
  chmodSync(upper, st.mode & 0o7777);
  chownSync(upper, st.uid, st.gid);
  const r = spawnSync(
    'mount',
    ['-t', 'overlay', 'overlay', '-o', `lowerdir=${src},upperdir=${upper},workdir=${work},redirect_dir=on`, into],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) {
    rmSync(layers, { recursive: true, force: true });
    return false;
  }
  mounted.set(into, layers);
  return true;
}

/** The mount points at or below DIR in this process's namespace, deepest first. */
function mountsBeneath(dir: string): string[] {
  const top = resolve(dir);
  const points = readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4])
    .filter((p): p is string => p !== undefined)
    .map((p) => p.replace(/\\(\d{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => p === top || p.startsWith(`${top}/`));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/**
 * Unmounts every mount at or below DIR (lazily: a process still inside lets go later) and drops the overlays' layers.
 */
export function releaseMounts(dir: string): void {
  for (const point of mountsBeneath(dir)) {
    spawnSync('umount', ['-l', point]);
    const layers = mounted.get(point);
    if (layers !== undefined) {
      rmSync(layers, { recursive: true, force: true });
      mounted.delete(point);
    }
  }
}

/** rm -rf DIR, after releasing what is mounted in it: removing through an overlay would fail on its mount point. */
export function removeTree(dir: string): void {
  if (process.getuid?.() === 0) releaseMounts(dir);
  rmSync(dir, { recursive: true, force: true });
}

// A test that ends without removing its copy (a crash, a kept work folder) must not leave mounts behind.
process.on('exit', () => {
  for (const [point, layers] of mounted) {
    spawnSync('umount', ['-l', point]);
    rmSync(layers, { recursive: true, force: true });
  }
});
