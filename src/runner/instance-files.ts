// Links /var/lib/cloud/instance to instances/<iid> and writes the data/ files that record which instance this is.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import type { CloudPaths } from './cloud-paths';
import { describeSource, sourceClassName, type FoundInStage } from './describe-source';
import { BLOB_FILES, CACHE_FILE, serializeInstance } from './instance-cache';

export const NO_PREVIOUS_INSTANCE_ID = 'NO_PREVIOUS_INSTANCE_ID';

/** The folders cloud-init makes under /var/lib/cloud before anything else. */
export async function initCloudDirs(platform: Platform, paths: CloudPaths): Promise<void> {
  const dirs = [
    'data',
    'handlers',
    'instances',
    'scripts/per-boot',
    'scripts/per-instance',
    'scripts/per-once',
    'scripts/vendor',
    'seed',
    'sem',
  ];
  for (const d of dirs) await platform.mkdir(posix.join(paths.cloudDir, d));
  await platform.mkdir(posix.join(paths.runDir, 'sem'));
}

export async function previousInstanceId(platform: Platform, paths: CloudPaths): Promise<string> {
  const text = await platform.readTextIfExists(posix.join(paths.dataDir, 'instance-id'));
  return text?.trim() || NO_PREVIOUS_INSTANCE_ID;
}

/**
 * cloud-init's "instancify": remember the previous instance id, point `instance` at this one, write the cache
 * and the small files tools read. Returns whether this is the first boot of the instance.
 */
export async function instancify(
  platform: Platform,
  paths: CloudPaths,
  sourceName: string,
  data: InstanceData,
  stage: FoundInStage = 'local',
): Promise<{ isNew: boolean; previous: string }> {
  const iid = data.instanceId;
  const previous = await previousInstanceId(platform, paths);
  const dir = paths.instanceDir(iid);
  for (const d of ['handlers', 'scripts', 'sem']) await platform.mkdir(posix.join(dir, d));
  await platform.symlink(dir, paths.instanceLink);
  // "<class>: <str(datasource)>", as cloud-init's _reflect_cur_instance writes it.
  const description = `${sourceClassName(sourceName, stage)}: ${describeSource(sourceName, data, stage)}`;
  await platform.writeFile(posix.join(dir, 'datasource'), `${description}\n`);
  await platform.writeFile(posix.join(paths.dataDir, 'previous-datasource'), `${description}\n`);
  await platform.writeFile(posix.join(paths.dataDir, 'instance-id'), `${iid}\n`);
  await platform.writeFile(posix.join(paths.dataDir, 'previous-instance-id'), `${previous}\n`);
  await platform.writeFile(posix.join(paths.runDir, '.instance-id'), `${iid}\n`);
  // The raw blobs, root-only as cloud-init keeps them (they often hold passwords); before obj.json, which names
  // them by hash: a crash between the writes leaves a cache that is not trusted, never one that lies.
  await platform.writeFile(posix.join(dir, BLOB_FILES.userData), data.userData ?? new Uint8Array(), { mode: 0o600 });
  await platform.writeFile(posix.join(dir, BLOB_FILES.vendorData), data.vendorData ?? new Uint8Array(), {
    mode: 0o600,
  });
  await platform.writeFile(posix.join(dir, BLOB_FILES.vendorData2), data.vendorData2 ?? new Uint8Array(), {
    mode: 0o600,
  });
  await platform.writeFile(posix.join(dir, CACHE_FILE), serializeInstance(sourceName, data, stage), { mode: 0o600 });
  return { isNew: previous !== iid, previous };
}
