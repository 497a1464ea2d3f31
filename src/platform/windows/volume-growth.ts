// How far a volume's partition can grow: the free space between its end and the next partition or the disk's usable
// end.
import type { DiskLayout, PartitionEntry, VolumeExtent } from './win32/kernel32';

/** Free space smaller than this is left alone (partitions are MiB aligned; VDS ignores such slivers too). */
export const MIN_GROWTH = 1024 * 1024;
const ALIGN = 1024 * 1024;

export type GrowthPlan =
  | { grow: true; partition: PartitionEntry; bytes: number; newLength: number }
  | { grow: false; reason: string };

/** The plan for the volume whose only extent is EXTENT on a disk laid out as LAYOUT. */
export function planVolumeGrowth(extents: VolumeExtent[], layout: DiskLayout): GrowthPlan {
  const extent = extents[0];
  if (extents.length !== 1 || !extent)
    return { grow: false, reason: `it spans ${extents.length} disk extents (a dynamic volume)` };
  const partition = layout.partitions.find((p) => p.start === extent.start && p.number > 0);
  if (!partition)
    return { grow: false, reason: `no partition of disk ${extent.diskNumber} starts at byte ${extent.start}` };
  const end = partition.start + partition.length;
  // A partition holding ours (an MBR extended partition) bounds it: a logical partition grows only inside it.
  const containerEnd = layout.partitions
    .filter((p) => p !== partition && p.start < partition.start && p.start + p.length >= end)
    .reduce((min, p) => Math.min(min, p.start + p.length), layout.usableEnd);
  const next = layout.partitions
    .filter((p) => p !== partition && p.start >= end)
    .reduce((min, p) => Math.min(min, p.start), containerEnd);
  const limit = Math.min(next, containerEnd);
  const newEnd = Math.floor(limit / ALIGN) * ALIGN > end ? Math.floor(limit / ALIGN) * ALIGN : limit;
  const bytes = newEnd - end;
  if (bytes < MIN_GROWTH) return { grow: false, reason: 'no free space follows its partition' };
  return { grow: true, partition, bytes, newLength: partition.length + bytes };
}
