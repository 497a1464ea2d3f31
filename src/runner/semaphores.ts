// Semaphore files that make a module run once per instance or once ever, in cloud-init's places and names.
import { posix } from 'node:path';
import type { Frequency } from '../modules/module';
import type { Platform } from '../platform/platform';
import type { CloudPaths } from './cloud-paths';
import { markerText } from '../util/marker-text';

/** The semaphore file for module NAME at FREQ, or undefined for `always` (no semaphore). */
export function semaphorePath(
  paths: CloudPaths,
  iid: string | undefined,
  name: string,
  freq: Frequency,
): string | undefined {
  const base = `config_${name}`;
  if (freq === 'always') return undefined;
  if (freq === 'once') return posix.join(paths.onceSemDir, `${base}.once`);
  return posix.join(paths.instanceSemDir(iid ?? 'iid-datasource-none'), base);
}

export async function hasRun(platform: Platform, path: string | undefined): Promise<boolean> {
  return path !== undefined && (await platform.exists(path));
}

/** The semaphore file of a module's run (markerText: the pid and the time). */
export async function markRun(platform: Platform, path: string | undefined, now: Date): Promise<void> {
  if (path === undefined) return;
  await platform.writeFile(path, markerText(now));
}

export function isFrequency(value: unknown): value is Frequency {
  return value === 'always' || value === 'once' || value === 'once-per-instance';
}

/** cloud-init also accepts the short spellings `instance`, `per-instance`, `per-once`, `per-always`. */
export function parseFrequency(value: unknown): Frequency | undefined {
  if (isFrequency(value)) return value;
  switch (value) {
    case 'instance':
    case 'per-instance':
    case 'per_instance':
      return 'once-per-instance';
    case 'per-once':
    case 'per_once':
      return 'once';
    case 'per-always':
    case 'per_always':
      return 'always';
    default:
      return undefined;
  }
}
