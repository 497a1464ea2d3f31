// Says what a device or image holds: filesystem type, label, UUID, size; for a whole disk, each partition.
import { SliceBlockReader, type BlockReader } from './block-reader';
import { openFat, looksLikeFat, type FatVolume } from './fat';
import type { FileTree } from './filesystem-finder';
import { FilesystemError } from './filesystem-error';
import { looksLikeIso9660, openIso9660, type Iso9660Volume } from './iso9660';
import { readPartitionTable } from './partition-table';
import { looksLikeUdf, openUdf, type UdfVolume } from './udf';
import { describeError } from '../util/errors';

export type OpenedFilesystem = Iso9660Volume | FatVolume | UdfVolume;

export interface ProbeResult {
  device: string;
  size: number;
  fsType?: 'iso9660' | 'vfat' | 'udf';
  /** 'FAT12', 'FAT16', 'FAT32' for vfat; the UDF revision for udf. */
  version?: string;
  label?: string;
  uuid?: string;
  partitionTable?: 'dos' | 'gpt';
  partitions?: PartitionProbe[];
  /** Why the device could not be read, when it could not. */
  error?: string;
}

export interface PartitionProbe extends ProbeResult {
  number: number;
  offset: number;
  type: string;
  name?: string;
  partUuid?: string;
}

/**
 * The filesystem on READER (ISO9660 first, then UDF, then FAT), or undefined when it holds none. A hybrid
 * ISO9660/UDF image (genisoimage -udf) is read through its ISO9660 side, as kiln always read it; both views hold the
 * same files.
 */
export async function openFilesystem(reader: BlockReader): Promise<OpenedFilesystem | undefined> {
  if (await looksLikeIso9660(reader)) return openIso9660(reader);
  if (await looksLikeUdf(reader)) return openUdf(reader);
  if (await looksLikeFat(reader)) return openFat(reader);
  return undefined;
}

/** Like openFilesystem, but an error naming the device when there is no filesystem we read. */
export async function openTree(reader: BlockReader): Promise<{ fs: OpenedFilesystem; tree: FileTree }> {
  const fs = await openFilesystem(reader);
  if (!fs)
    throw new FilesystemError(
      reader.name,
      'holds no ISO9660, UDF or FAT filesystem (a partitioned disk? give a partition, e.g. IMAGE:1)',
    );
  return { fs, tree: fs.tree };
}

function describe(fs: OpenedFilesystem): Pick<ProbeResult, 'fsType' | 'version' | 'label' | 'uuid'> {
  return {
    fsType: fs.fsType,
    ...(fs.fsType === 'vfat'
      ? { version: fs.fatType }
      : fs.fsType === 'udf'
        ? fs.revision
          ? { version: fs.revision }
          : {}
        : { version: fs.names }),
    label: fs.label,
    ...(fs.uuid ? { uuid: fs.uuid } : {}),
  };
}

/** Probes READER: its filesystem, or when it has none, its partition table and each partition's filesystem. */
export async function probe(reader: BlockReader, opts: { partitions?: boolean } = {}): Promise<ProbeResult> {
  const result: ProbeResult = { device: reader.name, size: reader.size };
  try {
    const fs = await openFilesystem(reader);
    if (fs) return { ...result, ...describe(fs) };
    if (opts.partitions === false) return result;
    const table = await readPartitionTable(reader);
    if (!table) return result;
    result.partitionTable = table.kind;
    result.partitions = [];
    for (const p of table.partitions) {
      const part: PartitionProbe = {
        device: `${reader.name}:${p.number}`,
        number: p.number,
        offset: p.offset,
        size: p.size,
        type: p.type,
        ...(p.name ? { name: p.name } : {}),
        ...(p.uuid ? { partUuid: p.uuid } : {}),
      };
      try {
        const fs2 = await openFilesystem(new SliceBlockReader(part.device, reader, p.offset, p.size));
        if (fs2) Object.assign(part, describe(fs2));
      } catch (err) {
        part.error = describeError(err);
      }
      result.partitions.push(part);
    }
  } catch (err) {
    result.error = describeError(err);
  }
  return result;
}

/** The reader for partition NUMBER of DISK. */
export async function partitionReader(disk: BlockReader, number: number): Promise<BlockReader> {
  const table = await readPartitionTable(disk);
  const p = table?.partitions.find((x) => x.number === number);
  if (!p)
    throw new FilesystemError(
      disk.name,
      `has no partition ${number}${table ? ` (partitions: ${table.partitions.map((x) => x.number).join(', ')})` : ' (no partition table)'}`,
    );
  return new SliceBlockReader(`${disk.name}:${number}`, disk, p.offset, p.size);
}
