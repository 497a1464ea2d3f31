// instance-data.json (world-readable, sensitive keys redacted) and instance-data-sensitive.json (0600).
import type { ConfigMap } from '../config/parse-yaml-config';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Platform, Uname } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import { isSecretKey } from '../util/redact';
import type { CloudPaths } from './cloud-paths';
import { withBuiltins } from './builtin-config';
import { canonicalCloudId } from './cloud-id';
import { sortedJson } from './sorted-json';
import { runningGlibcVersion } from '../platform/linux/glibc-version';

/** What non-root readers see in place of a sensitive value, as cloud-init writes it. */
export const REDACT_SENSITIVE_VALUE = 'redacted for non-root user';

/**
 * Keys (anywhere in the document) whose values only root may read, of cloud-init 25.1's sensitive_metadata_keys
 * those that name a key of kiln's document (merged_system_cfg came with 23.1).
 */
export const SENSITIVE_KEYS = ['merged_cfg', 'merged_system_cfg', 'security-credentials'];

export interface InstanceDataInput {
  instance: InstanceData;
  distro: DistroInfo;
  /** The running kernel and machine name (Platform.uname()): v1.kernel_release, machine, sys_info. */
  kernel: Uname;
  /** The merged cloud-config in effect (system < datasource < vendor < user); kept for callers, not written. */
  mergedConfig: ConfigMap;
  /**
   * The system config (/etc/cloud/cloud.cfg and cloud.cfg.d), written as merged_system_cfg (and merged_cfg) as
   * cloud-init 25.1 does.
   */
  systemConfig: ConfigMap;
}

/** The system config over the built-ins, without system_info (cloud-init's "restricted" cfg). */
function restrictedSystemConfig(system: ConfigMap): ConfigMap {
  const { system_info: _systemInfo, ...rest } = withBuiltins(system);
  return rest;
}

/**
 * What Python's platform.platform() says: Linux-<release>-<machine>-with-glibc<version> (the glibc the process runs
 * on).
 */
function systemPlatform(kernel: Uname): string {
  const glibc = runningGlibcVersion();
  return `Linux-${kernel.release}-${kernel.machine}${glibc ? `-with-glibc${glibc}` : ''}`;
}

/**
 * v1.local_hostname as cloud-init's get_hostname() gives it from meta-data's local-hostname: the first label of a
 * dotted name (`web1.example.com` → `web1`), and `ip-10-1-2-3` for an IPv4 address.
 */
export function shortLocalHostname(name: string | undefined): string | undefined {
  if (!name) return name;
  if (/^(\d{1,3}\.){3}\d{1,3}$/.test(name) && name.split('.').every((o) => Number(o) <= 255))
    return `ip-${name.replace(/\./g, '-')}`;
  return name.split('.')[0];
}

/**
 * v1.local_hostname when the source gives none: cloud-init's get_hostname() then falls back to the machine's own
 * name (socket.gethostname(); its first label), 'localhost' when it has none.
 */
function machineShortHostname(kernel: Uname): string {
  return (kernel.nodename || 'localhost').split('.')[0] as string;
}

function standardized(input: InstanceDataInput, platformText: string): Record<string, unknown> {
  const i = input.instance;
  const v1: Record<string, unknown> = {
    _beta_keys: ['subplatform'],
    availability_zone: i.availabilityZone ?? null,
    cloud_id: canonicalCloudId(i.cloudName, i.region, i.platform),
    cloud_name: i.cloudName,
    distro: input.distro.osReleaseId ?? input.distro.name,
    distro_release: input.distro.codename ?? '',
    distro_version: input.distro.version,
    instance_id: i.instanceId,
    kernel_release: input.kernel.release,
    local_hostname: i.localHostname ? shortLocalHostname(i.localHostname) : machineShortHostname(input.kernel),
    machine: input.kernel.machine,
    platform: i.platform,
    public_ssh_keys: i.publicKeys,
    python_version: `node ${process.versions.node}`,
    region: i.region ?? null,
    subplatform: i.subplatform,
    system_platform: platformText,
    variant: input.distro.name,
  };
  // cloud-init 22.4 keeps the old hyphenated spellings of these four in v1.
  for (const k of ['availability_zone', 'cloud_name', 'instance_id', 'local_hostname'])
    v1[k.replace(/_/g, '-')] = v1[k];
  return v1;
}

/** Paths ('a/b/c') of every sensitive key present in DOC, as cloud-init lists them in sensitive_keys. */
function sensitivePaths(
  value: unknown,
  path: string,
  out: string[],
  keys: readonly string[] = SENSITIVE_KEYS,
): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return out;
  for (const [k, v] of Object.entries(value)) {
    const p = path ? `${path}/${k}` : k;
    if (keys.includes(k)) out.push(p);
    else sensitivePaths(v, p, out, keys);
  }
  return out;
}

/** The full document, as instance-data-sensitive.json holds it when the source is found (cloud-init 25.1's layout). */
export function buildInstanceData(input: InstanceDataInput): Record<string, unknown> {
  const platformText = systemPlatform(input.kernel);
  const v1 = standardized(input, platformText);
  const experimental =
    "EXPERIMENTAL: The structure and format of content scoped under the 'ds' key may change in subsequent releases of cloud-init.";
  const crawled = input.instance.crawledMetadata;
  const system = restrictedSystemConfig(input.systemConfig);
  const ds: Record<string, unknown> = crawled
    ? { ...crawled, _doc: experimental }
    : { _doc: experimental, meta_data: input.instance.metadata, ...(input.instance.extra ?? {}) };
  const full: Record<string, unknown> = {
    base64_encoded_keys: input.instance.base64EncodedKeys ?? [],
    ds,
    // 25.1 keeps the old name beside the new one, each with its own _doc.
    merged_cfg: { ...system, _doc: 'DEPRECATED: Use merged_system_cfg. Will be dropped from 24.1' },
    merged_system_cfg: {
      ...system,
      _doc: 'Merged cloud-init system config from /etc/cloud/cloud.cfg and /etc/cloud/cloud.cfg.d/',
    },
    sys_info: {
      dist: [input.distro.osReleaseId ?? input.distro.name, input.distro.version, input.distro.codename ?? ''],
      platform: platformText,
      python: `node ${process.versions.node}`,
      release: input.kernel.release,
      system: 'Linux',
      uname: ['Linux', input.kernel.nodename, input.kernel.release, input.kernel.version, input.kernel.machine, ''],
      variant: input.distro.name,
    },
    v1,
  };
  full.sensitive_keys = sensitivePaths(full, '', [], [...SENSITIVE_KEYS, ...(input.instance.sensitiveKeys ?? [])]);
  return full;
}

/**
 * A copy with every sensitive key (those in its sensitive_keys, and any key that names a secret) replaced for non-root
 * readers.
 */
export function redactInstanceData(doc: Record<string, unknown>): Record<string, unknown> {
  const listed = new Set(
    Array.isArray(doc.sensitive_keys)
      ? (doc.sensitive_keys as unknown[]).filter((p): p is string => typeof p === 'string')
      : [],
  );
  const walk = (value: unknown, path: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, path));
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const p = path ? `${path}/${k}` : k;
      out[k] =
        SENSITIVE_KEYS.includes(k) || listed.has(p) || (path !== '' && isSecretKey(k))
          ? REDACT_SENSITIVE_VALUE
          : walk(v, p);
    }
    return out;
  };
  return walk(doc, '') as Record<string, unknown>;
}

export async function writeInstanceData(
  platform: Platform,
  paths: CloudPaths,
  input: Omit<InstanceDataInput, 'kernel'>,
): Promise<Record<string, unknown>> {
  const full = buildInstanceData({ ...input, kernel: platform.uname() });
  await platform.writeFile(paths.instanceDataSensitiveFile, sortedJson(full), { mode: 0o600 });
  await platform.writeFile(paths.instanceDataFile, sortedJson(redactInstanceData(full)), { mode: 0o644 });
  const cloudId = (full.v1 as Record<string, unknown>).cloud_id as string;
  await platform.writeFile(paths.cloudIdFile.replace(/cloud-id$/, `cloud-id-${cloudId}`), `${cloudId}\n`, {
    mode: 0o644,
  });
  // cloud-id is a link to cloud-id-<id>, so a change of cloud is visible as a new file.
  for (const name of await platform.listDir(paths.runDir).catch(() => [] as string[])) {
    if (name.startsWith('cloud-id-') && name !== `cloud-id-${cloudId}`)
      await platform.remove(`${paths.runDir}/${name}`);
  }
  await platform.symlink(`${paths.runDir}/cloud-id-${cloudId}`, paths.cloudIdFile);
  return full;
}
