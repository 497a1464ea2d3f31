// instance-data.json (world-readable, sensitive keys redacted) and instance-data-sensitive.json (0600).
import { arch, release } from 'node:os';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { DistroInfo } from '../modules/module';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import { isSecretKey } from '../util/redact';
import type { CloudPaths } from './cloud-paths';
import { canonicalCloudId } from './cloud-id';
import { sortedJson } from './sorted-json';

/** What non-root readers see in place of a sensitive value, as cloud-init writes it. */
export const REDACT_SENSITIVE_VALUE = 'redacted for non-root user';

/** Top-level (or '/'-separated nested) keys that only root may read. */
export const SENSITIVE_KEYS = ['merged_cfg', 'merged_system_cfg', 'security-credentials', 'userdata', 'user-data', 'user_data', 'vendordata', 'vendor-data', 'ds/vendor_data'];

const MACHINE: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64', arm: 'armv7l', ia32: 'i686', ppc64: 'ppc64le', s390x: 's390x', riscv64: 'riscv64' };

export interface InstanceDataInput {
  instance: InstanceData;
  distro: DistroInfo;
  /** The merged cloud-config in effect (system < datasource < vendor < user). */
  mergedConfig: ConfigMap;
  systemConfig: ConfigMap;
}

function standardized(input: InstanceDataInput): Record<string, unknown> {
  const i = input.instance;
  const machine = MACHINE[arch()] ?? arch();
  return {
    _beta_keys: ['subplatform'],
    availability_zone: i.availabilityZone ?? null,
    cloud_id: canonicalCloudId(i.cloudName, i.region, i.platform),
    cloud_name: i.cloudName,
    distro: input.distro.name,
    distro_release: '',
    distro_version: input.distro.version,
    instance_id: i.instanceId,
    kernel_release: release(),
    local_hostname: i.localHostname ?? null,
    machine,
    platform: i.platform,
    public_ssh_keys: i.publicKeys,
    python_version: `node ${process.versions.node}`,
    region: i.region ?? null,
    subplatform: i.subplatform,
    system_platform: `Linux-${release()}-${machine}`,
    variant: input.distro.name,
  };
}

/** The full document, as instance-data-sensitive.json holds it. */
export function buildInstanceData(input: InstanceDataInput): Record<string, unknown> {
  const v1 = standardized(input);
  const ds: Record<string, unknown> = {
    _doc: 'EXPERIMENTAL: The structure and format of content scoped under the \'ds\' key may change in subsequent releases of cloud-init.',
    meta_data: input.instance.metadata,
    ...(input.instance.extra ?? {}),
  };
  const legacy: Record<string, unknown> = {};
  // cloud-init keeps the old hyphenated spellings at the top level too.
  for (const [k, v] of Object.entries(v1)) if (k.includes('_') && !k.startsWith('_')) legacy[k.replace(/_/g, '-')] = v;
  return {
    ...legacy,
    ...v1,
    base64_encoded_keys: [],
    ds,
    merged_cfg: input.mergedConfig,
    merged_system_cfg: input.systemConfig,
    sensitive_keys: SENSITIVE_KEYS,
    sys_info: { dist: [input.distro.name, input.distro.version, ''], platform: v1.system_platform, variant: input.distro.name },
    v1,
  };
}

/** A copy with every sensitive key (and any key that names a secret) replaced for non-root readers. */
export function redactInstanceData(doc: Record<string, unknown>): Record<string, unknown> {
  const walk = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, path));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}/${k}` : k;
      out[k] = SENSITIVE_KEYS.includes(p) || (path !== '' && isSecretKey(k)) ? REDACT_SENSITIVE_VALUE : walk(v, p);
    }
    return out;
  };
  return walk(doc, '') as Record<string, unknown>;
}

export async function writeInstanceData(platform: Platform, paths: CloudPaths, input: InstanceDataInput): Promise<Record<string, unknown>> {
  const full = buildInstanceData(input);
  await platform.writeFile(paths.instanceDataSensitiveFile, sortedJson(full), { mode: 0o600 });
  await platform.writeFile(paths.instanceDataFile, sortedJson(redactInstanceData(full)), { mode: 0o644 });
  const cloudId = full.cloud_id as string;
  await platform.writeFile(paths.cloudIdFile.replace(/cloud-id$/, `cloud-id-${cloudId}`), `${cloudId}\n`, { mode: 0o644 });
  // cloud-id is a link to cloud-id-<id>, so a change of cloud is visible as a new file.
  for (const name of await platform.listDir(paths.runDir).catch(() => [] as string[])) {
    if (name.startsWith('cloud-id-') && name !== `cloud-id-${cloudId}`) await platform.remove(`${paths.runDir}/${name}`);
  }
  await platform.symlink(`${paths.runDir}/cloud-id-${cloudId}`, paths.cloudIdFile);
  return full;
}
