// What udev's own probe at boot found on a Linux block device: its blkid builtin records each device's filesystem
// type and label in /run/udev/data/b<major>:<minor>, the answers cloud-init's blkid lookups get. Reading them is a few
// small files; opening a device to read its superblocks is a syscall round trip per read, and under emulation a
// CD-ROM's open checks the medium (seconds in init-local under TCG).
import { join } from 'node:path';
import { fsPromises } from '../util/on-demand-builtins';

/** udev's verdict on a device its probe looked at: the filesystem, or none ('' type) where it found none. */
export interface UdevFilesystemFacts {
  /** blkid's TYPE ('iso9660', 'vfat', 'ext4' …); '' where the probe found a partition table and no filesystem. */
  fsType: string;
  /** blkid's LABEL, decoded from ID_FS_LABEL_ENC; '' when there is none. */
  label: string;
}

/** The text of PATH, or undefined where it cannot be read (not there: udev has no word on the device). */
async function readIfThere(path: string): Promise<string | undefined> {
  try {
    return await fsPromises().readFile(path, 'utf8');
  } catch {
    return undefined; // no sysfs `dev` attribute or no udev entry: nothing known, the device is read as before
  }
}

/** udev's \xNN escapes (blkid_encode_string: unsafe characters and bytes not valid UTF-8) undone, as UTF-8. */
function decodeUdevString(encoded: string): string {
  const parts = encoded
    .split(/(\\x[0-9a-fA-F]{2})/)
    .map((part) =>
      /^\\x[0-9a-fA-F]{2}$/.test(part) ? Buffer.from([Number.parseInt(part.slice(2), 16)]) : Buffer.from(part, 'utf8'),
    );
  return Buffer.concat(parts).toString('utf8');
}

/**
 * udev's facts for the block device NAME under ROOT, or undefined when it has none to give: no udev database entry,
 * or one its blkid probe left no mark on (no filesystem type and no partition table: a device it did not probe, such
 * as a CD-ROM drive without a medium). Undefined means "read the device itself".
 */
export async function udevFilesystemFacts(root: string, name: string): Promise<UdevFilesystemFacts | undefined> {
  const majorMinor = (await readIfThere(join(root, 'sys/class/block', name, 'dev')))?.trim();
  if (!majorMinor || !/^\d+:\d+$/.test(majorMinor)) return undefined;
  const entry = await readIfThere(join(root, 'run/udev/data', `b${majorMinor}`));
  if (entry === undefined) return undefined;
  const properties = new Map<string, string>();
  for (const line of entry.split('\n')) {
    const property = /^E:([^=]+)=(.*)$/.exec(line);
    if (property) properties.set(property[1] as string, property[2] as string);
  }
  const fsType = properties.get('ID_FS_TYPE') ?? '';
  if (fsType === '' && !properties.has('ID_PART_TABLE_TYPE')) return undefined;
  const encoded = properties.get('ID_FS_LABEL_ENC');
  return { fsType, label: encoded !== undefined ? decodeUdevString(encoded) : (properties.get('ID_FS_LABEL') ?? '') };
}
