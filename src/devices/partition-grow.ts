// Grows the last partition of an MBR or GPT disk to the end of the disk by rewriting the table itself (what growpart
// does).
import type { Platform } from '../platform/platform';
import { crc32 } from '../util/crc32';

const SECTOR = 512;

/** Byte-level access to a disk (a block device or an image file) inside the target root. */
export interface DiskIo {
  size(): Promise<number>;
  read(offset: number, length: number): Promise<Buffer>;
  write(offset: number, data: Buffer): Promise<void>;
}

/**
 * Disk access through the platform with dd (so it works in a chroot and at boot alike, and every write is a
 * recorded command). Reads and writes are whole sectors.
 */
export function platformDiskIo(platform: Platform, disk: string): DiskIo {
  return {
    async size() {
      const r = await platform.run([
        '/bin/sh',
        '-c',
        'if [ -b "$1" ]; then blockdev --getsize64 "$1"; else stat -c %s "$1"; fi',
        'sh',
        disk,
      ]);
      return Number(r.stdout.trim());
    },
    async read(offset, length) {
      const r = await platform.run([
        '/bin/sh',
        '-c',
        'dd if="$1" bs=512 skip="$2" count="$3" status=none | base64 -w0',
        'sh',
        disk,
        String(offset / SECTOR),
        String(Math.ceil(length / SECTOR)),
      ]);
      return Buffer.from(r.stdout.trim(), 'base64').subarray(0, length);
    },
    async write(offset, data) {
      await platform.run(
        [
          '/bin/sh',
          '-c',
          'base64 -d | dd of="$1" bs=512 seek="$2" conv=notrunc,fsync status=none',
          'sh',
          disk,
          String(offset / SECTOR),
        ],
        { input: data.toString('base64') },
      );
    },
  };
}

export type GrowResult =
  | { status: 'changed'; table: 'gpt' | 'mbr'; oldSectors: number; newSectors: number }
  | { status: 'nochange'; table: 'gpt' | 'mbr'; reason: string }
  | { status: 'unsupported'; reason: string };

/** Growth below this many sectors (1 MiB) is not worth a table rewrite, as growpart judges it. */
const MIN_GROWTH = 2048;

async function growGpt(io: DiskIo, part: number, diskSectors: number): Promise<GrowResult> {
  const hdr = await io.read(SECTOR, SECTOR);
  const headerSize = hdr.readUInt32LE(12);
  const entriesLba = Number(hdr.readBigUInt64LE(72));
  const count = hdr.readUInt32LE(80);
  const entrySize = hdr.readUInt32LE(84);
  if (part < 1 || part > count)
    return { status: 'unsupported', reason: `partition ${part} is outside the GPT's ${count} entries` };
  const entriesBytes = count * entrySize;
  const entrySectors = Math.ceil(entriesBytes / SECTOR);
  const entries = await io.read(entriesLba * SECTOR, entrySectors * SECTOR);
  if (crc32(entries.subarray(0, entriesBytes)) !== hdr.readUInt32LE(88))
    return { status: 'unsupported', reason: 'the GPT partition array checksum does not match' };
  const off = (part - 1) * entrySize;
  const first = Number(entries.readBigUInt64LE(off + 32));
  const last = Number(entries.readBigUInt64LE(off + 40));
  if (entries.subarray(off, off + 16).every((b) => b === 0))
    return { status: 'unsupported', reason: `partition ${part} is not in use` };
  for (let i = 0; i < count; i++) {
    const o = i * entrySize;
    if (i === part - 1 || entries.subarray(o, o + 16).every((b) => b === 0)) continue;
    if (Number(entries.readBigUInt64LE(o + 32)) > last)
      return { status: 'nochange', table: 'gpt', reason: `partition ${i + 1} lies after partition ${part}` };
  }
  const newBackupLba = diskSectors - 1;
  const newBackupEntries = newBackupLba - entrySectors;
  const newLastUsable = newBackupEntries - 1;
  if (newLastUsable - last < MIN_GROWTH)
    return {
      status: 'nochange',
      table: 'gpt',
      reason: `partition ${part} could only be grown by ${Math.max(0, newLastUsable - last)} sectors`,
    };
  entries.writeBigUInt64LE(BigInt(newLastUsable), off + 40);
  const entriesCrc = crc32(entries.subarray(0, entriesBytes));

  const primary = Buffer.from(hdr);
  primary.writeBigUInt64LE(BigInt(newBackupLba), 32);
  primary.writeBigUInt64LE(BigInt(newLastUsable), 48);
  primary.writeUInt32LE(entriesCrc, 88);
  primary.writeUInt32LE(0, 16);
  primary.writeUInt32LE(crc32(primary.subarray(0, headerSize)), 16);

  const backup = Buffer.from(primary);
  backup.writeBigUInt64LE(BigInt(newBackupLba), 24);
  backup.writeBigUInt64LE(1n, 32);
  backup.writeBigUInt64LE(BigInt(newBackupEntries), 72);
  backup.writeUInt32LE(0, 16);
  backup.writeUInt32LE(crc32(backup.subarray(0, headerSize)), 16);

  // Backup structures first, then the primary: an interruption leaves a valid primary describing the old layout.
  await io.write(newBackupEntries * SECTOR, entries);
  await io.write(newBackupLba * SECTOR, backup);
  await io.write(entriesLba * SECTOR, entries);
  await io.write(SECTOR, primary);
  const mbr = await io.read(0, SECTOR);
  if (mbr[450] === 0xee) {
    mbr.writeUInt32LE(Math.min(diskSectors - 1, 0xffffffff), 458);
    await io.write(0, mbr);
  }
  return { status: 'changed', table: 'gpt', oldSectors: last - first + 1, newSectors: newLastUsable - first + 1 };
}

async function growMbr(io: DiskIo, mbr: Buffer, part: number, diskSectors: number): Promise<GrowResult> {
  if (part < 1 || part > 4) return { status: 'unsupported', reason: `partition ${part} is a logical partition` };
  const at = (i: number) => 446 + 16 * i;
  const o = at(part - 1);
  const type = mbr[o + 4] as number;
  if (type === 0) return { status: 'unsupported', reason: `partition ${part} is not in use` };
  if ([0x05, 0x0f, 0x85].includes(type))
    return { status: 'unsupported', reason: `partition ${part} is an extended partition` };
  const start = mbr.readUInt32LE(o + 8);
  const size = mbr.readUInt32LE(o + 12);
  for (let i = 0; i < 4; i++) {
    if (i === part - 1 || mbr[at(i) + 4] === 0) continue;
    if (mbr.readUInt32LE(at(i) + 8) > start)
      return { status: 'nochange', table: 'mbr', reason: `partition ${i + 1} lies after partition ${part}` };
  }
  const newSize = Math.min(diskSectors, 0xffffffff) - start;
  if (newSize - size < MIN_GROWTH)
    return {
      status: 'nochange',
      table: 'mbr',
      reason: `partition ${part} could only be grown by ${Math.max(0, newSize - size)} sectors`,
    };
  mbr.writeUInt32LE(newSize, o + 12);
  // The CHS end of a partition past cylinder 1023 is the conventional "maximum" triple.
  mbr[o + 5] = 0xfe;
  mbr[o + 6] = 0xff;
  mbr[o + 7] = 0xff;
  await io.write(0, mbr);
  return { status: 'changed', table: 'mbr', oldSectors: size, newSectors: newSize };
}

/** Grows partition PART of the disk behind IO to the disk's end when it is the last one. */
export async function growPartition(io: DiskIo, part: number): Promise<GrowResult> {
  const diskSectors = Math.floor((await io.size()) / SECTOR);
  if (diskSectors < 34) return { status: 'unsupported', reason: 'the disk is too small to hold a partition table' };
  const mbr = await io.read(0, SECTOR);
  if (mbr[510] !== 0x55 || mbr[511] !== 0xaa)
    return {
      status: 'unsupported',
      reason: 'no MBR or GPT partition table (4096-byte sectors and other tables are left to growpart)',
    };
  const gptSig = (await io.read(SECTOR, 8)).toString('latin1');
  if (gptSig === 'EFI PART') return growGpt(io, part, diskSectors);
  if (mbr[450] === 0xee) return { status: 'unsupported', reason: 'a protective MBR without a GPT header at sector 1' };
  return growMbr(io, mbr, part, diskSectors);
}
