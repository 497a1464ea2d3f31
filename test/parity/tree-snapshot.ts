// Reads a root file tree into comparable entries (type, mode, owner, content hash, small text) for parity checks.
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { dateChangesOfThisRun } from '../helpers/shadow-days';

export interface TreeEntry {
  type: 'file' | 'dir' | 'symlink' | 'other';
  mode: number;
  uid: number;
  gid: number;
  size: number;
  /** sha256 of a file's bytes. */
  sha256?: string;
  /** A file's content when it is UTF-8 text of at most 256 KiB (for normalising and showing differences). */
  text?: string;
  /** A symlink's target. */
  target?: string;
}

/** Path inside the root ('/etc/hostname') → entry. */
export type Tree = Map<string, TreeEntry>;

/**
 * Folders never walked: kernel file systems, the OS's own programs and package state, logs, and /tmp and
 * /var/tmp (other tests leave temporary folders in the shared cached rootfs; no seed writes there).
 */
export const NOT_WALKED = [
  '/proc',
  '/sys',
  '/dev',
  '/usr',
  '/boot',
  '/tmp',
  '/var/tmp',
  '/var/lib/dpkg',
  '/var/lib/apt',
  '/var/log',
  '/var/lib/systemd/deb-systemd-helper-enabled',
];

/**
 * Folders of which only the named children are walked. Of the caches, only debconf's database: the
 * selections grub_dpkg and apt_configure's debconf_selections set live there, and must match cloud-init's.
 */
export const ONLY_WALKED: Record<string, string[]> = { '/var/cache': ['debconf'] };

const MAX_TEXT = 256 * 1024;

/** Files whose recorded text and hash leave out what the clock decides (dateChangesOfThisRun). */
const CLOCK_DATED = /\/etc\/shadow-?$/;

/**
 * One file system entry as the snapshot records it (the path must exist; lstat, so a symlink is not followed;
 * CLOCK_DATED files normalised).
 */
export function readEntry(host: string): TreeEntry {
  const st = lstatSync(host);
  const base = { mode: st.mode & 0o7777, uid: st.uid, gid: st.gid, size: st.size };
  if (st.isSymbolicLink()) return { type: 'symlink', ...base, target: readlinkSync(host) };
  if (st.isDirectory()) return { type: 'dir', ...base, size: 0 };
  if (!st.isFile()) return { type: 'other', ...base };
  const read = readFileSync(host);
  const bytes = CLOCK_DATED.test(host) ? Buffer.from(dateChangesOfThisRun(read.toString('utf8'))) : read;
  const entry: TreeEntry = { type: 'file', ...base, sha256: createHash('sha256').update(bytes).digest('hex') };
  if (bytes.length <= MAX_TEXT) {
    const text = bytes.toString('utf8');
    if (!text.includes('\uFFFD') && !text.includes('\0')) entry.text = text;
  }
  return entry;
}

export function snapshotTree(
  root: string,
  skip: string[] = NOT_WALKED,
  only: Record<string, string[]> = ONLY_WALKED,
): Tree {
  const tree: Tree = new Map();
  const walk = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(join(root, rel));
    } catch {
      return;
    }
    const kept = only[rel];
    for (const name of names.sort()) {
      const path = rel === '/' ? `/${name}` : `${rel}/${name}`;
      if (skip.includes(path) || (kept && !kept.includes(name))) continue;
      const entry = readEntry(join(root, path));
      tree.set(path, entry);
      if (entry.type === 'dir') walk(path);
    }
  };
  walk('/');
  return tree;
}
