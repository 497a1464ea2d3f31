// Which block device and filesystem back a mount point, and which disk and partition number a block device is (from
// /proc and /sys).
import { posix } from 'node:path';
import type { Platform } from '../platform';

export interface MountEntry {
  mountpoint: string;
  fstype: string;
  source: string;
  /** 'major:minor' of the backing device. */
  devno: string;
  /** The per-mount options (mountinfo's sixth field: 'rw,relatime' …). */
  options: string;
}

/** Parses /proc/self/mountinfo; the last entry for a mount point wins (it is the one on top). */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-');
    if (dash < 6) continue;
    out.push({
      devno: f[2] as string,
      mountpoint: decodeOctalEscapes(f[4] as string),
      fstype: f[dash + 1] as string,
      source: f[dash + 2] as string,
      options: f[5] as string,
    });
  }
  return out;
}

function decodeOctalEscapes(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

export async function mountFor(platform: Platform, mountpoint: string): Promise<MountEntry | undefined> {
  const text = await platform.readTextIfExists('/proc/self/mountinfo');
  if (!text) return undefined;
  const all = parseMountinfo(text).filter((m) => m.mountpoint === mountpoint);
  return all[all.length - 1];
}

export interface BlockInfo {
  /** /dev/<name> of the device itself. */
  device: string;
  /** /dev/<disk> when the device is a partition. */
  disk?: string;
  partition?: number;
}

/** Resolves a device by major:minor (or a /dev path) through /sys to its disk and partition number. */
export async function blockInfo(
  platform: Platform,
  ref: { devno?: string; path?: string },
): Promise<BlockInfo | undefined> {
  let sysPath: string | undefined;
  if (ref.devno) sysPath = `/sys/dev/block/${ref.devno}`;
  else if (ref.path) {
    const real = (await platform.run(['readlink', '-f', ref.path], { allowFailure: true })).stdout.trim() || ref.path;
    sysPath = `/sys/class/block/${posix.basename(real)}`;
  }
  if (!sysPath || !(await platform.exists(sysPath))) return undefined;
  const real = (await platform.run(['readlink', '-f', sysPath], { allowFailure: true })).stdout.trim();
  if (!real) return undefined;
  const name = posix.basename(real);
  const partText = await platform.readTextIfExists(posix.join(real, 'partition'));
  if (partText === undefined) return { device: `/dev/${name}` };
  return {
    device: `/dev/${name}`,
    disk: `/dev/${posix.basename(posix.dirname(real))}`,
    partition: Number(partText.trim()),
  };
}
