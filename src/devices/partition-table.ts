// MBR (with extended/logical partitions) and GPT partition tables, numbered as Linux numbers them.
import type { BlockReader } from './block-reader';
import { FilesystemError } from './filesystem-error';
import { u32le, u64le } from './little-endian';

export interface Partition {
  /** 1-4 primary, 5+ logical (MBR); 1..N in table order (GPT). */
  number: number;
  /** Byte offset and length on the disk. */
  offset: number;
  size: number;
  /** MBR type byte as '0x0c', or the GPT type GUID. */
  type: string;
  /** GPT partition name. */
  name?: string;
  /** GPT unique partition GUID. */
  uuid?: string;
}

export interface PartitionTable {
  kind: 'dos' | 'gpt';
  partitions: Partition[];
}

const MAX_LOGICAL = 256;
const MAX_GPT_ENTRIES = 1024;
const EXTENDED_TYPES = new Set([0x05, 0x0f, 0x85]);

function guid(b: Uint8Array): string {
  const h = Buffer.from(b).toString('hex');
  const rev = (s: string) => s.match(/../g)?.reverse().join('') ?? '';
  return `${rev(h.slice(0, 8))}-${rev(h.slice(8, 12))}-${rev(h.slice(12, 16))}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

interface MbrEntry {
  type: number;
  start: number;
  sectors: number;
}

function mbrEntries(sector: Uint8Array): MbrEntry[] {
  const out: MbrEntry[] = [];
  for (let i = 0; i < 4; i++) {
    const o = 446 + i * 16;
    out.push({ type: sector[o + 4] ?? 0, start: u32le(sector, o + 8), sectors: u32le(sector, o + 12) });
  }
  return out;
}

/**
 * Reads the partition table of a whole disk; undefined when there is none (no 0x55AA signature, or a
 * signature with no valid entries). Entries reaching past the disk are an error naming the entry.
 */
export async function readPartitionTable(disk: BlockReader, sectorSize = 512): Promise<PartitionTable | undefined> {
  if (disk.size < 512) return undefined;
  const mbr = await disk.read(0, 512);
  if (mbr[510] !== 0x55 || mbr[511] !== 0xaa) return undefined;
  const entries = mbrEntries(mbr);
  // Like blkid: a boot flag other than 0x00/0x80 means this 0x55AA sector is not a partition table.
  for (let i = 0; i < 4; i++) {
    const flag = mbr[446 + i * 16] ?? 0;
    if (flag !== 0 && flag !== 0x80) return undefined;
  }
  if (entries.some((e) => e.type === 0xee)) {
    const gpt = await readGpt(disk, 512);
    if (gpt) return gpt;
    if (disk.size >= 8192) {
      const gpt4k = await readGpt(disk, 4096);
      if (gpt4k) return gpt4k;
    }
    throw new FilesystemError(disk.name, 'protective MBR (type 0xee) but no valid GPT header at LBA 1');
  }
  const partitions: Partition[] = [];
  const diskSectors = Math.floor(disk.size / sectorSize);
  for (let i = 0; i < 4; i++) {
    const e = entries[i] as MbrEntry;
    if (e.type === 0 || e.sectors === 0) continue;
    if (e.start + e.sectors > diskSectors) {
      throw new FilesystemError(
        disk.name,
        `MBR partition ${i + 1} (sectors ${e.start}+${e.sectors}) reaches past the end of the disk (${diskSectors} sectors)`,
      );
    }
    if (EXTENDED_TYPES.has(e.type)) {
      partitions.push({
        number: i + 1,
        offset: e.start * sectorSize,
        size: Math.min(e.sectors, 2) * sectorSize,
        type: hexType(e.type),
      });
      partitions.push(...(await readLogical(disk, e.start, e.sectors, sectorSize)));
    } else {
      partitions.push({
        number: i + 1,
        offset: e.start * sectorSize,
        size: e.sectors * sectorSize,
        type: hexType(e.type),
      });
    }
  }
  if (partitions.length === 0) return undefined;
  return { kind: 'dos', partitions: partitions.sort((a, b) => a.number - b.number) };
}

function hexType(t: number): string {
  return `0x${t.toString(16).padStart(2, '0')}`;
}

/** Walks the EBR chain of an extended partition (each EBR: one logical partition and a link to the next). */
async function readLogical(
  disk: BlockReader,
  extStart: number,
  extSectors: number,
  sectorSize: number,
): Promise<Partition[]> {
  const out: Partition[] = [];
  const seen = new Set<number>();
  let ebr = extStart;
  let number = 5;
  while (ebr !== 0) {
    if (seen.has(ebr)) throw new FilesystemError(disk.name, `extended partition chain loops back to sector ${ebr}`);
    if (seen.size >= MAX_LOGICAL) throw new FilesystemError(disk.name, `more than ${MAX_LOGICAL} logical partitions`);
    seen.add(ebr);
    if ((ebr + 1) * sectorSize > disk.size)
      throw new FilesystemError(disk.name, `extended boot record at sector ${ebr} lies past the end of the disk`);
    const s = await disk.read(ebr * sectorSize, 512);
    if (s[510] !== 0x55 || s[511] !== 0xaa)
      throw new FilesystemError(disk.name, `extended boot record at sector ${ebr} has no 0x55AA signature`);
    const [logical, link] = mbrEntries(s) as [MbrEntry, MbrEntry];
    if (logical.type !== 0 && logical.sectors !== 0) {
      const start = ebr + logical.start;
      if (start + logical.sectors > extStart + extSectors) {
        throw new FilesystemError(
          disk.name,
          `logical partition ${number} (sectors ${start}+${logical.sectors}) reaches past its extended partition`,
        );
      }
      out.push({
        number: number++,
        offset: start * sectorSize,
        size: logical.sectors * sectorSize,
        type: hexType(logical.type),
      });
    }
    ebr = link.type !== 0 && link.start !== 0 ? extStart + link.start : 0;
    if (ebr !== 0 && ebr >= extStart + extSectors)
      throw new FilesystemError(
        disk.name,
        `extended boot record link to sector ${ebr} is outside the extended partition`,
      );
  }
  return out;
}

async function readGpt(disk: BlockReader, sectorSize: number): Promise<PartitionTable | undefined> {
  if (disk.size < sectorSize * 2) return undefined;
  const h = await disk.read(sectorSize, 92);
  if (Buffer.from(h.subarray(0, 8)).toString('latin1') !== 'EFI PART') return undefined;
  const entriesLba = u64le(h, 72);
  const count = u32le(h, 80);
  const entrySize = u32le(h, 84);
  if (count > MAX_GPT_ENTRIES)
    throw new FilesystemError(disk.name, `GPT header claims ${count} partition entries (limit ${MAX_GPT_ENTRIES})`);
  if (entrySize < 128 || entrySize > 4096 || entrySize % 8 !== 0)
    throw new FilesystemError(disk.name, `GPT partition entry size ${entrySize} is not valid`);
  const tableBytes = count * entrySize;
  if (entriesLba * sectorSize + tableBytes > disk.size)
    throw new FilesystemError(disk.name, `GPT partition entries at LBA ${entriesLba} lie past the end of the disk`);
  const table = await disk.read(entriesLba * sectorSize, tableBytes);
  const partitions: Partition[] = [];
  const diskSectors = Math.floor(disk.size / sectorSize);
  for (let i = 0; i < count; i++) {
    const e = table.subarray(i * entrySize, (i + 1) * entrySize);
    if (e.subarray(0, 16).every((b) => b === 0)) continue;
    const first = u64le(e, 32);
    const last = u64le(e, 40);
    if (last < first || last >= diskSectors) {
      throw new FilesystemError(
        disk.name,
        `GPT partition ${i + 1} (LBA ${first}..${last}) is empty or reaches past the end of the disk (${diskSectors} sectors)`,
      );
    }
    let name = Buffer.from(e.subarray(56, 128)).toString('utf16le');
    const nul = name.indexOf('\0');
    if (nul >= 0) name = name.slice(0, nul);
    partitions.push({
      number: i + 1,
      offset: first * sectorSize,
      size: (last - first + 1) * sectorSize,
      type: guid(e.subarray(0, 16)),
      uuid: guid(e.subarray(16, 32)),
      ...(name ? { name } : {}),
    });
  }
  return { kind: 'gpt', partitions };
}
