// Finds labelled filesystems on Linux by reading block devices listed in /sys/class/block; no blkid, no mount.
import type { BlockReader } from './block-reader';
import type { FilesystemFinder, FindRequest, FoundFilesystem } from './filesystem-finder';
import { byLabelOrder, matchFilesystem } from './find-matching';
import { listLinuxBlockDevices, openLinuxBlockDevice } from './linux-block-devices';
import type { Log } from '../util/log';
import { describeError } from '../util/errors';

export class LinuxFilesystemFinder implements FilesystemFinder {
  constructor(private readonly opts: { root: string; log?: Log }) {}

  async find(req: FindRequest): Promise<FoundFilesystem[]> {
    const found: FoundFilesystem[] = [];
    for (const dev of await listLinuxBlockDevices(this.opts.root)) {
      if (req.deviceName && !req.deviceName.test(dev.name)) continue;
      let reader: BlockReader;
      try {
        reader = await openLinuxBlockDevice(this.opts.root, dev);
      } catch (err) {
        this.opts.log?.debug(`cannot read ${dev.devPath}: ${describeError(err)}`);
        continue;
      }
      const match = await matchFilesystem(reader, req, this.opts.log);
      if (match) found.push(match);
    }
    return byLabelOrder(found, req);
  }
}
