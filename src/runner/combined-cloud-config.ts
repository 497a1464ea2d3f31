// combined-cloud-config.json: the config cloud-init acts on, written once user and vendor data are consumed; 25.1
// also records its system_info and feature flags in instance-data-sensitive.json at that point.
import { allFeatures } from '../config/feature-flags';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import { withBuiltins } from './builtin-config';
import type { CloudPaths } from './cloud-paths';
import { sortedJson } from './sorted-json';
import { describeError } from '../util/errors';

const DOC =
  'Aggregated cloud-config created by merging merged_system_cfg (/etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d), metadata, vendordata and userdata. The combined_cloud_config represents the aggregated desired configuration acted upon by cloud-init.';

/** MERGED (system < datasource < vendor < user) over the built-ins, with 25.1's _doc, system_info and features. */
export function combinedCloudConfig(merged: ConfigMap): ConfigMap {
  const full = withBuiltins(merged);
  return { ...full, _doc: DOC, system_info: full.system_info ?? {}, features: allFeatures() };
}

/** Writes combined-cloud-config.json (0600), as 25.1's Init._consume_userdata does; returns what it wrote. */
export async function writeCombinedCloudConfig(
  platform: Platform,
  paths: CloudPaths,
  merged: ConfigMap,
): Promise<ConfigMap> {
  const combined = combinedCloudConfig(merged);
  await platform.writeFile(paths.combinedCloudConfigFile, sortedJson(combined), { mode: 0o600 });
  return combined;
}

/**
 * Adds COMBINED's system_info and features to instance-data-sensitive.json, as 25.1 does right after writing the
 * combined config; a sensitive file that is missing or not JSON is left alone with a warning.
 */
export async function addSystemInfoToInstanceData(
  platform: Platform,
  paths: CloudPaths,
  combined: ConfigMap,
  log: Log,
): Promise<void> {
  const text = await platform.readTextIfExists(paths.instanceDataSensitiveFile);
  if (text === undefined) {
    log.warn(`Skipping write of system_info/features to ${paths.instanceDataSensitiveFile}. Unable to read file.`);
    return;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    log.warn(
      `Skipping write of system_info/features to ${paths.instanceDataSensitiveFile}. Invalid JSON found: ${describeError(err)}`,
    );
    return;
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    log.warn(
      `Skipping write of system_info/features to ${paths.instanceDataSensitiveFile}. Invalid JSON found: not an object`,
    );
    return;
  }
  const updated = {
    ...(doc as Record<string, unknown>),
    system_info: combined.system_info,
    features: combined.features,
  };
  await platform.writeFile(paths.instanceDataSensitiveFile, sortedJson(updated), { mode: 0o600 });
}
