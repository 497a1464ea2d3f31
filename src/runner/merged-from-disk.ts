// The merged cloud-config of an instance as a stage in another process sees it: its cloud-config files read back.
import { posix } from 'node:path';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { Platform } from '../platform/platform';
import type { CloudPaths } from './cloud-paths';
import { mergeCloudConfig, parseCloudConfigFile } from './merge-cloud-config';
import type { FoundSource } from './runner-deps';

/** System config < FOUND's datasource config < the vendor, vendor2 and user cloud-config files of its instance. */
export async function mergedFromDisk(
  platform: Platform,
  paths: CloudPaths,
  systemConfig: ConfigMap,
  found: FoundSource,
): Promise<ConfigMap> {
  const dir = paths.instanceDir(found.data.instanceId);
  const read = async (name: string): Promise<ConfigMap | undefined> => {
    const file = posix.join(dir, name);
    const text = await platform.readTextIfExists(file);
    return text === undefined ? undefined : parseCloudConfigFile(text, file);
  };
  return mergeCloudConfig({
    system: systemConfig,
    datasource: found.data.sourceConfig,
    vendor: await read('vendor-cloud-config.txt'),
    vendor2: await read('vendor2-cloud-config.txt'),
    user: await read('cloud-config.txt'),
  });
}
