// What `schema --system` checks, as cloud-init 25.1 picks it: the instance's processed user data (its merged
// cloud-config parts, a MIME archive's included), vendor data and vendor_data2, and its network config.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { CloudPaths } from '../runner/cloud-paths';

export interface SystemSchemaPart {
  /** cloud-init's InstanceDataType: user-data, vendor-data, vendor2-data, network-config. */
  type: 'user-data' | 'vendor-data' | 'vendor2-data' | 'network-config';
  schema: 'cloud-config' | 'network-config';
  path: string;
}

/**
 * The processed file (PROCESSED) unless it is empty while the raw one (RAW) is not: then the raw user data was
 * not taken (an unknown header), and the raw one is what there is to report on.
 */
async function processedOrRaw(platform: Platform, dir: string, processed: string, raw: string): Promise<string> {
  const primary = posix.join(dir, processed);
  const size = async (p: string) => (await platform.stat(p, { followLinks: true }))?.size;
  if ((await size(primary)) === 0 && ((await size(posix.join(dir, raw))) ?? 0) > 0) return posix.join(dir, raw);
  return primary;
}

/**
 * The parts of this instance to check: user data always (it may be missing: the caller says so), the others when
 * present.
 */
export async function systemSchemaParts(platform: Platform, paths: CloudPaths): Promise<SystemSchemaPart[]> {
  const dir = paths.instanceLink;
  const parts: SystemSchemaPart[] = [
    {
      type: 'user-data',
      schema: 'cloud-config',
      path: await processedOrRaw(platform, dir, 'cloud-config.txt', 'user-data.txt'),
    },
  ];
  const optional: SystemSchemaPart[] = [
    {
      type: 'vendor-data',
      schema: 'cloud-config',
      path: await processedOrRaw(platform, dir, 'vendor-cloud-config.txt', 'vendor-data.txt'),
    },
    {
      type: 'vendor2-data',
      schema: 'cloud-config',
      path: await processedOrRaw(platform, dir, 'vendor2-cloud-config.txt', 'vendor-data2.txt'),
    },
    { type: 'network-config', schema: 'network-config', path: posix.join(dir, 'network-config.json') },
  ];
  for (const part of optional) if (await platform.exists(part.path)) parts.push(part);
  return parts;
}
