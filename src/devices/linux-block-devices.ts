// Lists Linux block devices from /sys/class/block (under a root, so tests use a fake tree) and opens them.
import { basename, dirname, join } from 'node:path';
import { PathBlockReader, SliceBlockReader, type BlockReader } from './block-reader';
import { fsPromises } from '../util/on-demand-builtins';

export interface LinuxBlockDevice {
  /** Kernel name: 'sr0', 'vdb', 'vdb1', 'nvme0n1p2'. */
  name: string;
  /** '/dev/NAME' as seen inside the root. */
  devPath: string;
  /** Bytes, from sysfs 'size' (512-byte sectors). */
  size: number;
  /** For a partition: the whole disk's name and the first sector. */
  partitionOf?: { disk: string; start: number };
  removable: boolean;
}

async function readNumber(path: string): Promise<number | undefined> {
  try {
    const n = Number.parseInt((await fsPromises().readFile(path, 'utf8')).trim(), 10);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined; // a missing or unreadable sysfs attribute is a number not known
  }
}

/** The whole disk of a partition: sysfs nests partitions in their disk's folder; names are the fallback. */
async function parentDisk(sysEntry: string, name: string): Promise<string> {
  try {
    const real = await fsPromises().realpath(sysEntry);
    const parent = basename(dirname(real));
    if (parent !== 'block' && parent !== name) return parent;
  } catch {
    // fall through to the name rule
  }
  return name.replace(/p?\d+$/, '');
}

/**
 * Every block device under ROOT/sys/class/block with a non-zero size, sorted by name (sr0 before vda, vda before vda1).
 */
export async function listLinuxBlockDevices(root: string): Promise<LinuxBlockDevice[]> {
  const classDir = join(root, 'sys/class/block');
  let names: string[];
  try {
    names = await fsPromises().readdir(classDir);
  } catch {
    return []; // no sys/class/block under the root (a chroot, a test tree): no block devices
  }
  const out: LinuxBlockDevice[] = [];
  for (const name of names.sort()) {
    if (/^(ram|zram)\d+$/.test(name)) continue;
    const entry = join(classDir, name);
    const sectors = await readNumber(join(entry, 'size'));
    if (!sectors) continue;
    const dev: LinuxBlockDevice = {
      name,
      devPath: `/dev/${name}`,
      size: sectors * 512,
      removable: (await readNumber(join(entry, 'removable'))) === 1,
    };
    if ((await readNumber(join(entry, 'partition'))) !== undefined) {
      dev.partitionOf = { disk: await parentDisk(entry, name), start: (await readNumber(join(entry, 'start'))) ?? 0 };
    }
    out.push(dev);
  }
  return out;
}

async function exists(path: string): Promise<boolean> {
  try {
    await fsPromises().stat(path);
    return true;
  } catch {
    return false; // whatever stat's code, the path cannot be used: not there
  }
}

/**
 * A reader for DEV: its /dev node under ROOT, or for a partition without a node (a test tree, a
 * container without /dev entries), the slice of its whole disk.
 */
export async function openLinuxBlockDevice(root: string, dev: LinuxBlockDevice): Promise<BlockReader> {
  const node = join(root, dev.devPath);
  if (dev.partitionOf && !(await exists(node))) {
    const diskNode = join(root, 'dev', dev.partitionOf.disk);
    const disk = await PathBlockReader.open(diskNode, { name: `/dev/${dev.partitionOf.disk}` });
    return new SliceBlockReader(
      dev.devPath,
      disk,
      dev.partitionOf.start * 512,
      Math.min(dev.size, disk.size - dev.partitionOf.start * 512),
    );
  }
  return PathBlockReader.open(node, { sizeHint: dev.size, name: dev.devPath });
}
