// The FilesystemFinder for where kiln runs: /sys/class/block under the root on Linux, drives on Windows.
import type { BuildFacts } from '../build-info';
import { loadKoffi } from '../platform/windows/koffi-loader';
import { bindKernel32Disk } from '../platform/windows/win32/kernel32';
import type { Log } from '../util/log';
import type { FilesystemFinder } from './filesystem-finder';
import { ImageFilesFinder } from './image-finder';
import { LinuxFilesystemFinder } from './linux-finder';
import { WindowsFilesystemFinder, type ConfigDriveLocation, type ConfigDriveType } from './windows-finder';

export interface FinderChoice {
  /** From Platform.os: the only thing that says which OS this is. */
  os: 'linux' | 'windows';
  /** Linux: the root whose /sys/class/block and /dev are read ('/' at boot). */
  root: string;
  facts: BuildFacts;
  env: NodeJS.ProcessEnv;
  log?: Log;
  /** Image files to search instead of the machine's devices. */
  images?: string[];
  /** Windows: cloudbase-init's config_drive_types and config_drive_locations. */
  types?: ConfigDriveType[];
  locations?: ConfigDriveLocation[];
}

export function createFilesystemFinder(choice: FinderChoice): FilesystemFinder {
  if (choice.images && choice.images.length > 0) return new ImageFilesFinder(choice.images, choice.log);
  if (choice.os === 'windows') {
    return new WindowsFilesystemFinder({
      disk: bindKernel32Disk(loadKoffi(choice.facts, choice.env)),
      ...(choice.log ? { log: choice.log } : {}),
      ...(choice.types ? { types: choice.types } : {}),
      ...(choice.locations ? { locations: choice.locations } : {}),
    });
  }
  return createLinuxFinder(choice.root, choice.env, choice.log);
}

/**
 * The Linux finder over ROOT's /sys/class/block and /dev, with ENV's off switches for its fast paths
 * (KILN_DEVICE_PROBE_CACHE=0: read the devices for every request; KILN_DEVICE_UDEV=0: open every device).
 */
export function createLinuxFinder(root: string, env: NodeJS.ProcessEnv, log?: Log): LinuxFilesystemFinder {
  return new LinuxFilesystemFinder({
    root,
    probeOnce: env.KILN_DEVICE_PROBE_CACHE !== '0',
    udevFacts: env.KILN_DEVICE_UDEV !== '0',
    ...(log ? { log } : {}),
  });
}
