// `probe` with no argument on Windows: drive letters (as Windows sees them) and raw physical disks (as we read them).
import type { BuildFacts } from '../build-info';
import { loadKoffi } from '../platform/windows/koffi-loader';
import { bindKernel32Disk, DriveType } from '../platform/windows/win32/kernel32';
import { probe, type ProbeResult } from './probe';
import { listWindowsDrives, openPhysicalDrives } from './windows-finder';

const DRIVE_TYPE_NAMES: Record<number, string> = {
  [DriveType.Removable]: 'removable',
  [DriveType.Fixed]: 'fixed',
  [DriveType.Remote]: 'remote',
  [DriveType.CdRom]: 'cdrom',
  [DriveType.RamDisk]: 'ramdisk',
};

export async function probeWindowsMachine(facts: BuildFacts, env: NodeJS.ProcessEnv): Promise<ProbeResult[]> {
  const k32 = bindKernel32Disk(loadKoffi(facts, env));
  const out: ProbeResult[] = [];
  for (const d of listWindowsDrives(k32)) {
    const fs = d.fsName?.toLowerCase();
    out.push({
      device: d.root,
      size: 0,
      ...(fs
        ? { fsType: fs === 'cdfs' || fs === 'udf' ? 'iso9660' : fs === 'fat' || fs === 'fat32' ? 'vfat' : undefined }
        : {}),
      version: `${DRIVE_TYPE_NAMES[d.type] ?? 'unknown'}${d.fsName ? ` ${d.fsName}` : ''}`,
      ...(d.label !== undefined ? { label: d.label } : {}),
      ...(d.serial !== undefined
        ? {
            uuid: d.serial
              .toString(16)
              .toUpperCase()
              .padStart(8, '0')
              .replace(/^(.{4})/, '$1-'),
          }
        : {}),
    });
  }
  for (const disk of openPhysicalDrives(k32)) out.push(await probe(disk));
  return out;
}
