// Opens what a person names on the command line: an image or device path, optionally one of its partitions.
import { PathBlockReader, type BlockReader } from './block-reader';
import { partitionReader } from './probe';
import { fsPromises } from '../util/on-demand-builtins';

/**
 * SPEC is a path, or 'PATH:N' for partition N of a partitioned image or disk (when no file is literally
 * named so). PARTITION, when given, selects the partition instead.
 */
export async function openImageSpec(spec: string, partition?: number): Promise<BlockReader> {
  let path = spec;
  let part = partition;
  const m = /^(.+):(\d+)$/.exec(spec);
  if (m && part === undefined) {
    const literal = await fsPromises()
      .access(spec)
      .then(
        () => true,
        () => false,
      );
    if (!literal) {
      path = m[1] as string;
      part = Number(m[2]);
    }
  }
  const reader = await PathBlockReader.open(path);
  return part === undefined ? reader : partitionReader(reader, part);
}
