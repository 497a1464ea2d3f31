// A FilesystemFinder for tests whose "drives" are folders (until the device readers are used on real images).
import type { FilesystemFinder, FindRequest, FoundFilesystem } from '../../src/devices/filesystem-finder';
import type { Platform } from '../../src/platform/platform';
import { FolderTree } from '../../src/sources/folder-tree';

export interface FakeDrive {
  device: string;
  label: string;
  fsType: 'iso9660' | 'vfat' | 'udf';
  /** Host folder holding the drive's files. */
  dir: string;
  /** The filesystem UUID blkid would report (IBMCloud's config-2 is told apart by it). */
  uuid?: string;
}

/** Labels compare case-insensitively as blkid/cloud-init do for cidata and config-2. */
export class FakeFinder implements FilesystemFinder {
  readonly requests: FindRequest[] = [];
  constructor(
    private readonly hostPlatform: Platform,
    private readonly drives: FakeDrive[] = [],
  ) {}

  async find(req: FindRequest): Promise<FoundFilesystem[]> {
    this.requests.push(req);
    const labels = req.labels.map((l) => l.toLowerCase());
    const out: FoundFilesystem[] = [];
    for (const d of this.drives) {
      if (!req.anyLabel && !labels.includes(d.label.toLowerCase())) continue;
      if (req.deviceName && !req.deviceName.test(d.device.replace(/^\/dev\//, ''))) continue;
      if (req.fsTypes && !req.fsTypes.includes(d.fsType)) continue;
      const tree = new FolderTree(this.hostPlatform, d.dir);
      if (req.mustContain && !(await Promise.all(req.mustContain.map((f) => tree.exists(f)))).some(Boolean)) continue;
      out.push({ device: d.device, fsType: d.fsType, label: d.label, ...(d.uuid ? { uuid: d.uuid } : {}), tree });
    }
    return out;
  }
}
