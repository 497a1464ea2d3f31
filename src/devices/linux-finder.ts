// Finds labelled filesystems on Linux by reading block devices listed in /sys/class/block; no blkid, no mount.
import type { BlockReader } from './block-reader';
import type { FilesystemFinder, FindRequest, FoundFilesystem } from './filesystem-finder';
import { byLabelOrder, matchOpened, openForMatching } from './find-matching';
import { type LinuxBlockDevice, listLinuxBlockDevices, openLinuxBlockDevice } from './linux-block-devices';
import type { OpenedFilesystem } from './probe';
import type { Log } from '../util/log';
import { describeError } from '../util/errors';

export interface LinuxFinderOptions {
  root: string;
  log?: Log;
  /**
   * Read each device's filesystem once for this finder's life (default): ds-identify asks for the labels of
   * several sources at the same moment (NoCloud, ConfigDrive, OpenNebula, RbxCloud, OVF), and one read of each
   * device answers them all. False (KILN_DEVICE_PROBE_CACHE=0) reads the devices again for every request.
   */
  probeOnce?: boolean;
}

export class LinuxFilesystemFinder implements FilesystemFinder {
  /** Each device's filesystem as first read, by device path and size (a device replaced by another is read again). */
  private readonly opened = new Map<string, Promise<OpenedFilesystem | undefined | 'unreadable'>>();

  constructor(private readonly opts: LinuxFinderOptions) {}

  async find(req: FindRequest): Promise<FoundFilesystem[]> {
    const found: FoundFilesystem[] = [];
    for (const dev of await listLinuxBlockDevices(this.opts.root)) {
      if (req.deviceName && !req.deviceName.test(dev.name)) continue;
      const fs = await this.filesystemOn(dev);
      if (fs === 'unreadable') continue;
      const match = await matchOpened(dev.devPath, fs, req, this.opts.log);
      if (match) found.push(match);
    }
    return byLabelOrder(found, req);
  }

  /** The filesystem on DEV (undefined when none kiln reads), read once unless probeOnce is off. */
  private filesystemOn(dev: LinuxBlockDevice): Promise<OpenedFilesystem | undefined | 'unreadable'> {
    if (this.opts.probeOnce === false) return this.readDevice(dev);
    const key = `${dev.devPath} ${dev.size}`;
    let reading = this.opened.get(key);
    if (!reading) {
      reading = this.readDevice(dev);
      this.opened.set(key, reading);
    }
    return reading;
  }

  private async readDevice(dev: LinuxBlockDevice): Promise<OpenedFilesystem | undefined | 'unreadable'> {
    let reader: BlockReader;
    try {
      reader = await openLinuxBlockDevice(this.opts.root, dev);
    } catch (err) {
      this.opts.log?.debug(`cannot read ${dev.devPath}: ${describeError(err)}`);
      return 'unreadable';
    }
    return openForMatching(reader, this.opts.log);
  }
}
