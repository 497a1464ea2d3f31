// Finds config drives on Windows as cloudbase-init does: types (vfat, iso) × locations (cdrom, hdd, partition).
import { DriveType, type Kernel32Disk } from '../platform/windows/win32/kernel32';
import type { Log } from '../util/log';
import type { BlockReader } from './block-reader';
import type { FilesystemFinder, FindRequest, FoundFilesystem } from './filesystem-finder';
import { matchFilesystem } from './find-matching';
import { imageCandidates } from './image-finder';
import { MountedVolumeTree } from './mounted-volume-tree';
import { WindowsDeviceReader } from './windows-device-reader';

export type ConfigDriveType = 'vfat' | 'iso';
export type ConfigDriveLocation = 'cdrom' | 'hdd' | 'partition';

export interface WindowsFinderOptions {
  disk: Kernel32Disk;
  log?: Log;
  /** cloudbase-init's config_drive_types, default ['vfat', 'iso']. */
  types?: ConfigDriveType[];
  /** cloudbase-init's config_drive_locations, default ['cdrom', 'hdd', 'partition']. */
  locations?: ConfigDriveLocation[];
  /** How many \\.\PhysicalDriveN to try after the first that does not open (default 16 in all). */
  maxPhysicalDrives?: number;
}

export interface WindowsDrive {
  root: string;
  type: number;
  label?: string;
  fsName?: string;
  serial?: number;
}

/** Drive letters with their type and, when a medium is present, label and filesystem. */
export function listWindowsDrives(k32: Kernel32Disk): WindowsDrive[] {
  return k32.logicalDrives().map((root) => {
    const info = k32.volumeInformation(root);
    return {
      root,
      type: k32.driveType(root),
      ...(info ? { label: info.label, fsName: info.fsName, serial: info.serial } : {}),
    };
  });
}

/** The \\.\PhysicalDriveN that open, in order. */
export function openPhysicalDrives(k32: Kernel32Disk, max = 16, log?: Log): WindowsDeviceReader[] {
  const out: WindowsDeviceReader[] = [];
  for (let n = 0; n < max; n++) {
    const r = WindowsDeviceReader.open(k32, `\\\\.\\PhysicalDrive${n}`);
    if (typeof r === 'string') {
      log?.debug(`\\\\.\\PhysicalDrive${n}: ${r}`);
      continue;
    }
    out.push(r);
  }
  return out;
}

export class WindowsFilesystemFinder implements FilesystemFinder {
  constructor(private readonly opts: WindowsFinderOptions) {}

  async find(req: FindRequest): Promise<FoundFilesystem[]> {
    const k32 = this.opts.disk;
    const types = this.opts.types ?? ['vfat', 'iso'];
    const locations = this.opts.locations ?? ['cdrom', 'hdd', 'partition'];
    const found: FoundFilesystem[] = [];
    let disks: WindowsDeviceReader[] | undefined;
    const physical = () => (disks ??= openPhysicalDrives(k32, this.opts.maxPhysicalDrives, this.opts.log));
    for (const type of types) {
      const fsType = type === 'iso' ? 'iso9660' : 'vfat';
      if (req.fsTypes && !req.fsTypes.includes(fsType)) continue;
      const typed: FindRequest = { ...req, fsTypes: [fsType] };
      for (const location of locations) {
        if (location === 'cdrom') {
          if (type !== 'iso') continue;
          for (const drive of listWindowsDrives(k32)) {
            if (
              drive.type !== DriveType.CdRom ||
              drive.label === undefined ||
              (!req.anyLabel && !req.labels.includes(drive.label))
            )
              continue;
            const hit = await this.fromCdrom(drive, typed);
            if (hit) found.push(hit);
          }
        } else {
          for (const disk of physical()) {
            const candidates: BlockReader[] = location === 'hdd' ? [disk] : (await imageCandidates(disk)).slice(1);
            for (const c of candidates) {
              const hit = await matchFilesystem(c, typed, this.opts.log);
              if (hit) found.push(hit);
            }
          }
        }
      }
    }
    return found;
  }

  /** A CD-ROM drive labelled as asked: read raw (\\.\D:) with our ISO reader, or through the mounted volume. */
  private async fromCdrom(drive: WindowsDrive, req: FindRequest): Promise<FoundFilesystem | undefined> {
    const letter = drive.root.slice(0, 2);
    const raw = WindowsDeviceReader.open(this.opts.disk, `\\\\.\\${letter}`);
    if (typeof raw !== 'string') {
      const hit = await matchFilesystem(raw, req, this.opts.log);
      if (hit) return { ...hit, device: drive.root };
    }
    const tree = new MountedVolumeTree(drive.root);
    const must = req.mustContain ?? [];
    if (must.length > 0) {
      let ok = false;
      for (const p of must) if (await tree.exists(p)) ok = true;
      if (!ok) return undefined;
    }
    return {
      device: drive.root,
      fsType: 'iso9660',
      label: drive.label ?? '',
      ...(drive.serial !== undefined
        ? {
            uuid: drive.serial
              .toString(16)
              .toUpperCase()
              .padStart(8, '0')
              .replace(/^(.{4})/, '$1-'),
          }
        : {}),
      tree,
    };
  }
}
