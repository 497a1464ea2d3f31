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
export async function matchFilesystem(
  reader: BlockReader,
  req: FindRequest,
  log?: Log,
): Promise<FoundFilesystem | undefined> {
  return matchOpened(reader.name, await openForMatching(reader, log), req, log);
}

/** The filesystem on READER, or undefined when there is none kiln reads or it cannot be read (logged). */
export async function openForMatching(reader: BlockReader, log?: Log): Promise<OpenedFilesystem | undefined> {
  try {
    return await openFilesystem(reader);
  } catch (err) {
    log?.debug(`skipping ${reader.name}: ${describeError(err)}`);
    return undefined;
  }
}

/**
 * FS (opened from DEVICE) when it answers REQ, else undefined: matchFilesystem's rule on a filesystem already opened.
 */
export async function matchOpened(
  device: string,
  fs: OpenedFilesystem | undefined,
  req: FindRequest,
  log?: Log,
): Promise<FoundFilesystem | undefined> {
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
        log?.warn(`${device}: labelled '${fs.label}' but unreadable: ${describeError(err)}`);
        return undefined;
      }
    }
    if (!found) {
      log?.debug(`${device}: labelled '${fs.label}' but holds none of ${req.mustContain.join(', ')}`);
      return undefined;
    }
  }
  return { device, fsType: fs.fsType, label: fs.label, ...(fs.uuid ? { uuid: fs.uuid } : {}), tree: fs.tree };
}

/** Sorts found filesystems by the order of their label in REQ.labels, keeping device order otherwise. */
export function byLabelOrder(found: FoundFilesystem[], req: FindRequest): FoundFilesystem[] {
  return found
    .map((f, i) => ({ f, i, l: req.labels.includes(f.label) ? req.labels.indexOf(f.label) : req.labels.length }))
    .sort((a, b) => a.l - b.l || a.i - b.i)
    .map((x) => x.f);
}
