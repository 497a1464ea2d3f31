// Finds labelled filesystems on Linux by reading block devices listed in /sys/class/block; no blkid, no mount. Where
// udev's probe at boot already says what a device holds, a device that cannot answer is not opened.
import type { BlockReader } from './block-reader';
import type { FilesystemFinder, FilesystemType, FindRequest, FoundFilesystem } from './filesystem-finder';
import { byLabelOrder, matchOpened, openForMatching } from './find-matching';
import { type LinuxBlockDevice, listLinuxBlockDevices, openLinuxBlockDevice } from './linux-block-devices';
import type { OpenedFilesystem } from './probe';
import { type UdevFilesystemFacts, udevFilesystemFacts } from './udev-filesystem-facts';
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
  /**
   * Skip a device whose udev database entry says it holds no filesystem the request can match (default): udev's
   * blkid probe at boot recorded its type and label, as cloud-init's blkid lookups see them. A device udev has no
   * word on is read as before. False (KILN_DEVICE_UDEV=0) reads every device.
   */
  udevFacts?: boolean;
}

/** The filesystem types kiln's readers understand (filesystem-finder.ts). */
const READABLE_TYPES: readonly string[] = ['iso9660', 'vfat', 'udf'] satisfies FilesystemType[];

/** Whether a device of which udev says FACTS may answer REQ (false: udev's probe rules it out). */
function udevAllows(facts: UdevFilesystemFacts, req: FindRequest): boolean {
  if (!READABLE_TYPES.includes(facts.fsType)) return false;
  if (req.fsTypes && !req.fsTypes.includes(facts.fsType as FilesystemType)) return false;
  return req.anyLabel === true || req.labels.includes(facts.label);
}

export class LinuxFilesystemFinder implements FilesystemFinder {
  /** Each device's filesystem as first read, by device path and size (a device replaced by another is read again). */
  private readonly opened = new Map<string, Promise<OpenedFilesystem | undefined | 'unreadable'>>();
  /** udev's facts by device name, read once for this finder's life. */
  private readonly udev = new Map<string, Promise<UdevFilesystemFacts | undefined>>();

  constructor(private readonly opts: LinuxFinderOptions) {}

  async find(req: FindRequest): Promise<FoundFilesystem[]> {
    const found: FoundFilesystem[] = [];
    for (const dev of await listLinuxBlockDevices(this.opts.root)) {
      if (req.deviceName && !req.deviceName.test(dev.name)) continue;
      const facts = await this.udevFactsOf(dev);
      if (facts && !udevAllows(facts, req)) continue;
      const fs = await this.filesystemOn(dev);
      if (fs === 'unreadable') continue;
      const match = await matchOpened(dev.devPath, fs, req, this.opts.log);
      if (match) found.push(match);
    }
    return byLabelOrder(found, req);
  }

  /** What udev's probe found on DEV, undefined when udevFacts is off or udev has no word on it. */
  private udevFactsOf(dev: LinuxBlockDevice): Promise<UdevFilesystemFacts | undefined> {
    if (this.opts.udevFacts === false) return Promise.resolve(undefined);
    let facts = this.udev.get(dev.name);
    if (!facts) {
      facts = udevFilesystemFacts(this.opts.root, dev.name).then((found) => {
        const said = found ? `${found.fsType || 'no filesystem'}${found.label ? ` '${found.label}'` : ''}` : 'nothing';
        this.opts.log?.debug(`${dev.devPath}: udev's probe says ${said}`);
        return found;
      });
      this.udev.set(dev.name, facts);
    }
    return facts;
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
    const started = performance.now();
    let reader: BlockReader;
    try {
      reader = await openLinuxBlockDevice(this.opts.root, dev);
    } catch (err) {
      this.opts.log?.debug(`cannot read ${dev.devPath}: ${describeError(err)}`);
      return 'unreadable';
    }
    const fs = await openForMatching(reader, this.opts.log);
    const what = fs ? `${fs.fsType} '${fs.label}'` : 'no filesystem kiln reads';
    this.opts.log?.debug(`${dev.devPath}: read ${what} in ${Math.round(performance.now() - started)} ms`);
    return fs;
  }
}
