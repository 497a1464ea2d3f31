// cloud-init's consume_data: user data, vendor data and vendor_data2 processed, what each contributes written to the
// instance folder, and the cloud-config they merge into with the system and datasource config.
import { posix } from 'node:path';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Platform } from '../platform/platform';
import { emptyProcessedPart, formatProcessedMessage, type ProcessedPart } from '../userdata/processed-message';
import { describeError } from '../util/errors';
import type { Log } from '../util/log';
import type { CloudPaths } from './cloud-paths';
import { writeCombinedCloudConfig } from './combined-cloud-config';
import { buildInstanceData } from './instance-data';
import { formatCloudConfigFile, mergeCloudConfig, vendorDataEnabled } from './merge-cloud-config';
import type { FoundSource, RunnerDeps } from './runner-deps';
import { markRun } from './semaphores';

type BlobKind = 'user' | 'vendor' | 'vendor2';

export interface ConsumeDataInput {
  platform: Platform;
  /** main.py's log: a blob's warnings (recoverable errors of the stage), its failure, vendor data left unused. */
  log: Log;
  /** user_data.py's log, handed to the processing. */
  userDataLog: Log;
  paths: CloudPaths;
  /** The system config. */
  config: ConfigMap;
  found: FoundSource;
  distro: DistroInfo;
  deps: Pick<RunnerDeps, 'processUserData'>;
  now: () => Date;
  /** The stage's errors: a blob that fails to process is one. */
  errors: string[];
}

export interface ConsumedData {
  /** system < datasource < vendor data < user data. */
  merged: ConfigMap;
  /** combined-cloud-config.json as written (its system_info and features go into the sensitive instance data). */
  combined: ConfigMap;
}

const BLOB_NAME: Record<BlobKind, string> = { user: 'user data', vendor: 'vendor data', vendor2: 'vendor_data2' };

export async function consumeData(input: ConsumeDataInput): Promise<ConsumedData> {
  const { platform: p, log, paths, config, found } = input;
  const dir = paths.instanceDir(found.data.instanceId);
  const instanceData = buildInstanceData({
    kernel: p.uname(),
    instance: found.data,
    distro: input.distro,
    mergedConfig: config,
    systemConfig: config,
  });
  const processed: Partial<Record<BlobKind, ProcessedPart[]>> = {};
  const cloudConfigParts: Partial<Record<BlobKind, string[]>> = {};
  const processBlob = async (kind: BlobKind, raw: Uint8Array | undefined, onlyProcess = false) => {
    if (!raw || raw.length === 0) return undefined;
    try {
      const out = await input.deps.processUserData({
        kind,
        onlyProcess,
        raw,
        instance: found.data,
        platform: p,
        log: input.userDataLog,
        paths,
        instanceDir: dir,
        config,
        instanceData,
      });
      for (const w of out.warnings ?? []) log.warn(w);
      if (out.processed) processed[kind] = out.processed;
      if (out.cloudConfigParts) cloudConfigParts[kind] = out.cloudConfigParts;
      return out.cloudConfig;
    } catch (err) {
      const why = `processing ${BLOB_NAME[kind]} failed: ${describeError(err)}`;
      log.error(why);
      input.errors.push(why);
      return undefined;
    }
  };
  const user = await processBlob('user', found.data.userData);
  const vendorOn = vendorDataEnabled(config, user);
  let vendor: ConfigMap | undefined;
  let vendor2: ConfigMap | undefined;
  if (vendorOn) {
    vendor = await processBlob('vendor', found.data.vendorData);
    vendor2 = await processBlob('vendor2', found.data.vendorData2);
  } else {
    // cloud-init still processes and stores vendor data it will not use (vendor-data.txt.i).
    await processBlob('vendor', found.data.vendorData, true);
    await processBlob('vendor2', found.data.vendorData2, true);
    if (found.data.vendorData?.length) log.info('vendor data is disabled by vendor_data: {enabled: false}; not used');
  }
  // cloud-init stores every blob processed (even empty, even vendor data it will not use) as <name>.txt.i.
  const blobs = [
    ['user', 'user-data', found.data.userData],
    ['vendor', 'vendor-data', found.data.vendorData],
    ['vendor2', 'vendor-data2', found.data.vendorData2],
  ] as const;
  for (const [kind, name, raw] of blobs) {
    const parts = raw && raw.length > 0 ? processed[kind] : undefined;
    const text = formatProcessedMessage(parts ?? [emptyProcessedPart()]);
    await p.writeFile(posix.join(dir, `${name}.txt.i`), text, { mode: 0o600 });
  }
  // cloud-config.txt always; the vendor ones only for vendor data that is given and enabled (as cloud-init).
  const userText = formatCloudConfigFile(user, cloudConfigParts.user ?? []);
  await p.writeFile(posix.join(dir, 'cloud-config.txt'), userText, { mode: 0o600 });
  const vendorFiles = [
    ['vendor-cloud-config.txt', 'vendor', vendor, found.data.vendorData],
    ['vendor2-cloud-config.txt', 'vendor2', vendor2, found.data.vendorData2],
  ] as const;
  for (const [name, kind, cfg, raw] of vendorFiles) {
    const file = posix.join(dir, name);
    if (vendorOn && raw && raw.length > 0) {
      await p.writeFile(file, formatCloudConfigFile(cfg, cloudConfigParts[kind] ?? []), { mode: 0o600 });
    } else {
      await p.remove(file);
    }
  }
  // cloud-init takes the consume_data semaphore when it first consumes an instance's data.
  await markRun(p, posix.join(paths.instanceSemDir(found.data.instanceId), 'consume_data'), input.now());
  const merged = mergeCloudConfig({ system: config, datasource: found.data.sourceConfig, vendor, vendor2, user });
  return { merged, combined: await writeCombinedCloudConfig(p, paths, merged) };
}
