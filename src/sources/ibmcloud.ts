// IBMCloud (SoftLayer): on Xen, the OS-code config drive (label config-2 with IBM's UUID 9796-932E) or the template
// METADATA disk, read with kiln's own filesystem readers; nothing while IBM's provisioning boot runs (cloud-init's
// DataSourceIBMCloud).
import type { FoundFilesystem } from '../devices/filesystem-finder';
import type { Platform } from '../platform/platform';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { convertVendorData } from './openstack-tree';
import { pythonB64decode } from './opennebula/python-b64decode';
import { normalizePublicKeys } from './public-keys';
import { parseJson, parseJsonObject } from './json-document';
import { SourceError } from './source-error';
import { describeError } from '../util/errors';

/** The UUID of IBM's config-2 filesystem: only that one is IBMCloud's, any other config-2 is OpenStack's. */
export const IBM_CONFIG_UUID = '9796-932E';
const PROVISIONING_CONFIG = '/root/provisioningConfiguration.cfg';
const INSTALL_LOG = '/root/swinstall.log';
const BOOT_REFERENCE = '/proc/1/environ';

/** cloud-init's Platforms names, which also make the subplatform. */
export type IbmPlatform =
  | 'Template/Live/Metadata'
  | 'Template/Provisioning/Metadata'
  | 'Template/Provisioning/No-Metadata'
  | 'OS-Code/Live';

export interface IbmFinding {
  platform: IbmPlatform;
  /** The device (or folder) holding the metadata; undefined for a provisioning boot without one. */
  fs?: FoundFilesystem;
}

async function mtimeMs(platform: Platform, path: string): Promise<number | undefined> {
  return (await platform.stat(path).catch(() => undefined))?.mtimeMs;
}

/**
 * cloud-init's _is_ibm_provisioning: provisioningConfiguration.cfg is there and, when swinstall.log is too,
 * that log was written in this boot (newer than PID 1's environ; without that reference, not provisioning).
 */
export async function isIbmProvisioning(ctx: DetectContext): Promise<boolean> {
  if (!(await ctx.platform.exists(PROVISIONING_CONFIG))) return false;
  if (!(await ctx.platform.exists(INSTALL_LOG))) return true;
  const log = await mtimeMs(ctx.platform, INSTALL_LOG);
  const boot = await mtimeMs(ctx.platform, BOOT_REFERENCE);
  if (log === undefined || boot === undefined) return false;
  return log > boot;
}

/** cloud-init's _is_xen: /proc/xen exists (IBM Cloud's classic hypervisor). */
async function onXen(ctx: DetectContext): Promise<boolean> {
  return ctx.platform.exists('/proc/xen');
}

/**
 * cloud-init's get_ibm_platform: on Xen, the first (by device name) filesystem labelled METADATA and the first
 * labelled CONFIG-2 whose UUID is IBM's (labels compared upper-cased); config-2 means OS-code provisioning, METADATA
 * a template (live, or still provisioning). Undefined: not IBM Cloud.
 */
export async function ibmPlatform(ctx: DetectContext): Promise<IbmFinding | undefined> {
  if (!(await onXen(ctx))) return undefined;
  const found = await ctx.finder.find({ labels: ['METADATA', 'metadata', 'CONFIG-2', 'config-2'] });
  const byLabel = new Map<string, FoundFilesystem>();
  for (const fs of [...found].sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0))) {
    const label = fs.label.toUpperCase();
    if (label !== 'METADATA' && label !== 'CONFIG-2') continue;
    if (byLabel.has(label)) {
      ctx.log.warn(
        `IBMCloud: Duplicate fslabel '${label}'. existing=${byLabel.get(label)?.device} current=${fs.device}`,
      );
      continue;
    }
    if (label === 'CONFIG-2' && (fs.uuid ?? '').toUpperCase() !== IBM_CONFIG_UUID) {
      ctx.log.debug(
        `IBMCloud: Skipping ${fs.device} with LABEL=${label} due to uuid != ${IBM_CONFIG_UUID}: ${fs.uuid ?? 'none'}`,
      );
      continue;
    }
    byLabel.set(label, fs);
  }
  const cfg2 = byLabel.get('CONFIG-2');
  if (cfg2) return { platform: 'OS-Code/Live', fs: cfg2 };
  const metadata = byLabel.get('METADATA');
  const provisioning = await isIbmProvisioning(ctx);
  if (metadata)
    return { platform: provisioning ? 'Template/Provisioning/Metadata' : 'Template/Live/Metadata', fs: metadata };
  if (provisioning) return { platform: 'Template/Provisioning/No-Metadata' };
  return undefined;
}

/**
 * The device ConfigDrive must leave alone: IBM's config-2 when IBMCloud is among the sources to try (cloud-init's
 * ConfigDrive drops it from its candidates then, and ds-identify does not count it for ConfigDrive).
 */
export async function ibmConfigDriveDevice(ctx: DetectContext): Promise<string | undefined> {
  const list = ctx.config.datasource_list;
  const enabled =
    !Array.isArray(list) || list.some((n) => typeof n === 'string' && n.trim().toLowerCase() === 'ibmcloud');
  if (!enabled) return undefined;
  const found = await ibmPlatform(ctx);
  return found?.platform === 'OS-Code/Live' ? found.fs?.device : undefined;
}

/** Python's str() of a JSON scalar (None, True, False as Python spells them). */
function pythonScalarStr(v: unknown): string {
  if (v === null) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return String(v);
}

function fail(reason: string, cause?: unknown): SourceError {
  return new SourceError('IBMCloud', reason, cause === undefined ? undefined : { cause });
}

/** A config-disk file that cannot be used: refused under cloud-init's heading for a failed read. */
function refuseFile(reason: string, cause?: unknown): SourceError {
  return fail(`Failed reading IBM config disk: ${reason}`, cause);
}

/**
 * cloud-init's metadata_from_dir: openstack/latest/ only (no dated versions), meta_data.json required; the
 * metadata is just random_seed, public-keys, local-hostname and instance-id, renamed from OpenStack's keys.
 */
async function readIbmTree(
  fs: FoundFilesystem,
): Promise<{ metadata: Record<string, unknown>; userData?: Uint8Array; vendor?: unknown; network?: unknown }> {
  const read = (name: string) => fs.tree.readFile(`openstack/latest/${name}`);
  const mdBytes = await read('meta_data.json');
  if (!mdBytes) throw fail(`Failed reading IBM config disk (${fs.device}): missing required file 'meta_data.json'`);
  const md = parseJsonObject(refuseFile, { text: mdBytes, where: `${fs.device}: openstack/latest/meta_data.json` });
  const metadata: Record<string, unknown> = {};
  if ('random_seed' in md) {
    const seed = md.random_seed;
    // cloud-init's base64.b64decode, not validating: stray characters (a line break) are skipped, bad padding fails.
    const bytes =
      typeof seed === 'string' ? pythonB64decode(seed) : 'argument should be a bytes-like object or ASCII string';
    if (typeof bytes === 'string') throw fail(`${fs.device}: Badly formatted metadata random_seed entry: ${bytes}`);
    // cloud-init holds the bytes, which instance-data.json writes as base64 and lists in base64_encoded_keys.
    metadata.random_seed = Buffer.from(bytes).toString('base64');
  }
  for (const [from, to] of [
    ['public_keys', 'public-keys'],
    ['hostname', 'local-hostname'],
    ['uuid', 'instance-id'],
  ] as const) {
    if (from in md) metadata[to] = md[from];
  }
  const out: { metadata: Record<string, unknown>; userData?: Uint8Array; vendor?: unknown; network?: unknown } = {
    metadata,
  };
  const ud = await read('user_data');
  if (ud) out.userData = ud;
  const vd = await read('vendor_data.json');
  if (vd) out.vendor = parseJson(refuseFile, { text: vd, where: `${fs.device}: openstack/latest/vendor_data.json` });
  const nd = await read('network_data.json');
  if (nd) out.network = parseJson(refuseFile, { text: nd, where: `${fs.device}: openstack/latest/network_data.json` });
  return out;
}

export const ibmCloudSource: Datasource = {
  name: 'IBMCloud',
  kind: 'local',
  describe: (data, cls) => `${cls} [${data.subplatform.replace(/ \((.*)\)$/, ' $1')}]`,
  // ds-identify's dscheck_IBMCloud: never during provisioning; otherwise a METADATA disk or IBM's config-2 on Xen.
  async detect(ctx: DetectContext) {
    if (await isIbmProvisioning(ctx)) return false;
    const found = await ibmPlatform(ctx);
    return found !== undefined;
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const found = await ibmPlatform(ctx);
    if (!found)
      throw fail('This is not an IBMCloud platform (no Xen, or no METADATA disk or config-2 with UUID 9796-932E)');
    if (found.platform.startsWith('Template/Provisioning/'))
      throw fail(`Cloud-init is disabled during provisioning: ${found.platform}.`);
    const fs = found.fs as FoundFilesystem;
    const tree = await readIbmTree(fs);
    const md = tree.metadata;
    const id = md['instance-id'];
    const data: InstanceData = {
      // cloud-init's base get_instance_id: its magic value when the metadata has no instance-id, else str() of it.
      instanceId: id === undefined ? 'iid-datasource' : pythonScalarStr(id),
      cloudName: 'ibmcloud',
      platform: 'ibmcloud',
      subplatform: `${found.platform} (${fs.device})`,
      publicKeys: normalizePublicKeys(md['public-keys']),
      metadata: md,
      // cloud-init writes network_data.json under ds as read (null without one), as OpenStack's.
      extra: { network_json: tree.network ?? null },
    };
    if ('random_seed' in md) data.base64EncodedKeys = ['ds/meta_data/random_seed'];
    const host = md['local-hostname'];
    if (typeof host === 'string' && host) data.localHostname = host;
    if (tree.userData) data.userData = tree.userData;
    if (tree.vendor !== undefined) {
      try {
        const vendor = convertVendorData('IBMCloud', 'openstack/latest/vendor_data.json', tree.vendor);
        if (vendor) data.vendorData = vendor;
      } catch (err) {
        ctx.log.warn(`IBMCloud: Invalid content in vendor-data: ${describeError(err)}`);
      }
    }
    // Templates were configured by the provisioning boot: their network config is 'disabled', as cloud-init's.
    if (found.platform !== 'OS-Code/Live')
      data.networkConfig = { format: 'v1', config: { config: 'disabled', version: 1 } };
    else if (tree.network !== undefined && tree.network !== null)
      data.networkConfig = { format: 'openstack', config: tree.network };
    return data;
  },
};
