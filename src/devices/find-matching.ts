// The matching rule every finder shares: a filesystem of an allowed type, an exact label, the expected files.
import type { BlockReader } from './block-reader';
import type { FindRequest, FoundFilesystem } from './filesystem-finder';
import { openFilesystem, type OpenedFilesystem } from './probe';
import type { Log } from '../util/log';
import { describeError } from '../util/errors';

/**
 * The filesystem on READER when it answers REQ, else undefined. Labels are compared exactly, each given
 * spelling on its own, as cloud-init's `blkid -t LABEL=…` lookups do (it asks for 'cidata' and 'CIDATA').
 * A device that cannot be read is logged and skipped: one bad disk must not hide the config drive.
 */
export async function matchFilesystem(reader: BlockReader, req: FindRequest, log?: Log): Promise<FoundFilesystem | undefined> {
  let fs: OpenedFilesystem | undefined;
  try {
    fs = await openFilesystem(reader);
  } catch (err) {
    log?.debug(`skipping ${reader.name}: ${describeError(err)}`);
    return undefined;
  }
  if (!fs) return undefined;
  if (req.fsTypes && !req.fsTypes.includes(fs.fsType)) return undefined;
  if (!req.anyLabel && !req.labels.includes(fs.label)) return undefined;
  if (req.mustContain && req.mustContain.length > 0) {
    let found = false;
    for (const path of req.mustContain) {
      try {
        if (await fs.tree.exists(path)) {
          found = true;
          break;
        }
      } catch (err) {
        log?.warn(`${reader.name}: labelled '${fs.label}' but unreadable: ${describeError(err)}`);
        return undefined;
      }
    }
    if (!found) {
      log?.debug(`${reader.name}: labelled '${fs.label}' but holds none of ${req.mustContain.join(', ')}`);
      return undefined;
    }
  }
  return { device: reader.name, fsType: fs.fsType, label: fs.label, ...(fs.uuid ? { uuid: fs.uuid } : {}), tree: fs.tree };
}

/** Sorts found filesystems by the order of their label in REQ.labels, keeping device order otherwise. */
export function byLabelOrder(found: FoundFilesystem[], req: FindRequest): FoundFilesystem[] {
  return found
    .map((f, i) => ({ f, i, l: req.labels.includes(f.label) ? req.labels.indexOf(f.label) : req.labels.length }))
    .sort((a, b) => a.l - b.l || a.i - b.i)
    .map((x) => x.f);
}
