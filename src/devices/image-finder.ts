// A finder over image files (and their partitions): `kiln probe IMAGE`, tests, and seeds given as files.
import { PathBlockReader, SliceBlockReader, type BlockReader } from './block-reader';
import type { FilesystemFinder, FindRequest, FoundFilesystem } from './filesystem-finder';
import { byLabelOrder, matchFilesystem } from './find-matching';
import { readPartitionTable } from './partition-table';
import type { Log } from '../util/log';
import { describeError } from '../util/errors';

/** The filesystem readers worth trying for an image: the whole image, then each partition when it has a table. */
export async function imageCandidates(reader: BlockReader): Promise<BlockReader[]> {
  const out: BlockReader[] = [reader];
  try {
    const table = await readPartitionTable(reader);
    for (const p of table?.partitions ?? [])
      out.push(new SliceBlockReader(`${reader.name}:${p.number}`, reader, p.offset, p.size));
  } catch {
    // A corrupt table leaves the whole image as the only candidate.
  }
  return out;
}

export class ImageFilesFinder implements FilesystemFinder {
  constructor(
    private readonly paths: string[],
    private readonly log?: Log,
  ) {}

  async find(req: FindRequest): Promise<FoundFilesystem[]> {
    const found: FoundFilesystem[] = [];
    for (const path of this.paths) {
      let reader: BlockReader;
      try {
        reader = await PathBlockReader.open(path);
      } catch (err) {
        this.log?.warn(describeError(err));
        continue;
      }
      for (const candidate of await imageCandidates(reader)) {
        const match = await matchFilesystem(candidate, req, this.log);
        if (match) found.push(match);
      }
    }
    return byLabelOrder(found, req);
  }
}
