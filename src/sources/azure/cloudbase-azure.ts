// Azure on Windows as cloudbase-init's AzureService reads it: the wireserver (2015-04-05) and the provisioning drive's ovf-env.xml and CustomData.bin.
import { MountedVolumeTree } from '../../devices/mounted-volume-tree';
import type { FileTree } from '../../devices/filesystem-finder';
import { HttpClient } from '../../util/http';
import type { Log } from '../../util/log';
import type { CrawlContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { CloudbaseWireserver, findWindowsWireserver, type CloudbaseGoalState } from './cloudbase-wireserver';
import { parseWindowsOvfEnv } from './windows-ovf-env';

/** The file that marks Azure's provisioning drive (cloudbase-init's OVF_ENV_DRIVE_TAG). */
export const OVF_ENV_DRIVE_TAG = 'E6DA6616-8EC4-48E0-BE93-58CE6ACE3CFB.tag';
export const CUSTOM_DATA_FILENAME = 'CustomData.bin';

/** What the cloudbase-init side of the Azure source keeps in the metadata, for the health reports and the plugins. */
export interface CloudbaseAzureMetadata {
  /** The wireserver's base URL the goal state came from. */
  wireserver: string;
  goal_state: CloudbaseGoalState;
  admin_username: string;
  enable_automatic_updates: boolean;
  winrm_listeners: Array<{ protocol: string; certificate_thumbprint?: string }>;
  vm_agent: { provision: boolean; package_name?: string };
  kms_host: string;
  use_avma: boolean;
  /** The drive ovf-env.xml came from ('D:\\'). */
  provisioning_drive: string;
}

/** The wireserver settings a crawl and the later reports share: [azure] wireserver_url, retry_count, retry_count_interval. */
export interface CloudbaseAzureSettings {
  wireserverUrl?: string;
  retries: number;
  retryIntervalMs: number;
}

export function cloudbaseAzureSettings(settings: Record<string, unknown>): CloudbaseAzureSettings {
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  return {
    ...(typeof settings.wireserver_url === 'string' && settings.wireserver_url ? { wireserverUrl: settings.wireserver_url.replace(/\/+$/, '') } : {}),
    retries: num(settings.retries, 5),
    retryIntervalMs: num(settings.retry_interval, 4) * 1000,
  };
}

/** A wireserver client for BASE (reports after the crawl make their own, as the crawl's client is closed by then). */
export function cloudbaseWireserver(client: HttpClient, log: Log, baseUrl: string, s: CloudbaseAzureSettings, signal?: AbortSignal): CloudbaseWireserver {
  return new CloudbaseWireserver({ client, log, baseUrl, retries: s.retries, retryIntervalMs: s.retryIntervalMs, timeoutMs: 60_000, ...(signal ? { signal } : {}) });
}

/** The first drive holding the tag file, in drive order (cloudbase-init walks the logical drives). */
async function provisioningDrive(ctx: CrawlContext): Promise<{ root: string; tree: FileTree }> {
  const roots = ctx.windows ? ctx.windows.volumes().map((v) => v.root) : [];
  for (const root of roots) {
    const tree = new MountedVolumeTree(root);
    if (await tree.exists(OVF_ENV_DRIVE_TAG).catch(() => false)) return { root, tree };
  }
  throw new SourceError('Azure', `no drive holds ${OVF_ENV_DRIVE_TAG} (looked at ${roots.join(' ') || 'no drives'})`);
}

/**
 * cloudbase-init's AzureService.load and getters: the wireserver from DHCP option 245 (or [azure] wireserver_url),
 * its Versions and goal state, then ovf-env.xml from the tagged drive. The instance id is the role instance id;
 * nothing is reported here: the runner posts NotReady/Ready at cloudbase-init's points.
 */
export async function crawlCloudbaseAzure(ctx: CrawlContext): Promise<InstanceData> {
  const s = cloudbaseAzureSettings(ctx.settings);
  const baseUrl = ctx.baseUrl?.replace(/\/+$/, '') ?? s.wireserverUrl ?? (ctx.windows ? `http://${await findWindowsWireserver(ctx.windows, ctx.log, ctx.signal ? { signal: ctx.signal } : {})}` : undefined);
  if (!baseUrl) throw new SourceError('Azure', 'no Windows system to read DHCP option 245 from, and no [azure] wireserver_url');
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  let goal: CloudbaseGoalState;
  try {
    goal = await cloudbaseWireserver(client, ctx.log, baseUrl, s, ctx.signal).goalState();
  } finally {
    await client.close();
  }
  const drive = await provisioningDrive(ctx);
  const raw = await drive.tree.readFile('ovf-env.xml');
  if (!raw) throw new SourceError('Azure', `ovf-env path does not exist: ${drive.root}ovf-env.xml`);
  const env = parseWindowsOvfEnv(raw, `${drive.root}ovf-env.xml`);
  const custom = await drive.tree.readFile(CUSTOM_DATA_FILENAME);
  if (!custom && env.hasCustomData) throw new SourceError('Azure', `ovf-env.xml has CustomData, but ${drive.root}${CUSTOM_DATA_FILENAME} is not present`);
  if (goal.certificatesUrl) {
    ctx.log.warn(`Azure: the goal state names certificates (${goal.certificatesUrl}); kiln does not decrypt them on Windows yet, so ServerCertificatesPlugin gets none`);
  }
  const meta: CloudbaseAzureMetadata = {
    wireserver: baseUrl,
    goal_state: goal,
    admin_username: env.adminUsername,
    enable_automatic_updates: env.enableAutomaticUpdates,
    winrm_listeners: env.winrmListeners.map((l) => ({ protocol: l.protocol, ...(l.certificateThumbprint ? { certificate_thumbprint: l.certificateThumbprint } : {}) })),
    vm_agent: { provision: env.provisionGuestAgent, ...(env.guestAgentPackageName ? { package_name: env.guestAgentPackageName } : {}) },
    kms_host: env.kmsHost,
    use_avma: env.useAvma,
    provisioning_drive: drive.root,
  };
  const data: InstanceData = {
    instanceId: goal.roleInstanceId,
    cloudName: 'azure',
    platform: 'azure',
    subplatform: `config-disk (${drive.root})`,
    localHostname: env.computerName,
    publicKeys: [],
    metadata: { 'instance-id': goal.roleInstanceId, 'local-hostname': env.computerName, ...meta },
  };
  if (env.adminPassword) data.adminPassword = env.adminPassword;
  // cloudbase-init hands CustomData.bin on undecoded.
  if (custom && custom.length) data.userData = custom;
  return data;
}
