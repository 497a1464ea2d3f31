// Azure on Windows as cloudbase-init's AzureService reads it: the wireserver (2015-04-05) and the provisioning drive's
// ovf-env.xml and CustomData.bin.
import { MountedVolumeTree } from '../../devices/mounted-volume-tree';
import type { FileTree } from '../../devices/filesystem-finder';
import type { WindowsSystem } from '../../platform/windows/windows-system';
import { HttpClient } from '../../util/http';
import type { Log } from '../../util/log';
import { childrenNamed, parseXml, type XmlElement } from '../../util/xml-reader';
import type { CrawlContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { CloudbaseWireserver, findWindowsWireserver, type CloudbaseGoalState } from './cloudbase-wireserver';
import { parseWindowsOvfEnv } from './windows-ovf-env';
import { describeError } from '../../util/errors';

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

/**
 * The wireserver settings a crawl and the later reports share: [azure] wireserver_url, retry_count,
 * retry_count_interval.
 */
export interface CloudbaseAzureSettings {
  wireserverUrl?: string;
  retries: number;
  retryIntervalMs: number;
}

export function cloudbaseAzureSettings(settings: Record<string, unknown>): CloudbaseAzureSettings {
  const num = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  return {
    ...(typeof settings.wireserver_url === 'string' && settings.wireserver_url
      ? { wireserverUrl: settings.wireserver_url.replace(/\/+$/, '') }
      : {}),
    retries: num(settings.retries, 5),
    retryIntervalMs: num(settings.retry_interval, 4) * 1000,
  };
}

/** A wireserver client for BASE (reports after the crawl make their own, as the crawl's client is closed by then). */
export function cloudbaseWireserver(
  client: HttpClient,
  log: Log,
  baseUrl: string,
  s: CloudbaseAzureSettings,
  signal?: AbortSignal,
): CloudbaseWireserver {
  return new CloudbaseWireserver({
    client,
    log,
    baseUrl,
    retries: s.retries,
    retryIntervalMs: s.retryIntervalMs,
    timeoutMs: 60_000,
    ...(signal ? { signal } : {}),
  });
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
  const baseUrl =
    ctx.baseUrl?.replace(/\/+$/, '') ??
    s.wireserverUrl ??
    (ctx.windows
      ? `http://${await findWindowsWireserver(ctx.windows, ctx.log, ctx.signal ? { signal: ctx.signal } : {})}`
      : undefined);
  if (!baseUrl)
    throw new SourceError('Azure', 'no Windows system to read DHCP option 245 from, and no [azure] wireserver_url');
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  try {
    const wire = cloudbaseWireserver(client, ctx.log, baseUrl, s, ctx.signal);
    const goal = await wire.goalState();
    // The goal state's certificates are fetched when ServerCertificatesPlugin asks (the metadata service's
    // serverCertificates), as cloudbase-init does.
    return await fromDrive(ctx, baseUrl, goal);
  } finally {
    await client.close();
  }
}

const TRANSPORT_SUBJECT = 'CN=Cloudbase-Init AzureService Transport';

function firstNamed(el: XmlElement, name: string): XmlElement | undefined {
  if (el.local === name) return el;
  for (const c of el.children) {
    const f = firstNamed(c, name);
    if (f) return f;
  }
  return undefined;
}

/**
 * cloudbase-init's get_server_certs: a transport certificate made in LocalMachine\\STORE (its DER, base64, in
 * x-ms-guest-agent-public-x509-cert), the goal state's certificates decrypted with it (CryptoAPI's
 * CryptMsgControl's decrypt: CryptDecryptMessage's parts) into one PFX, the transport certificate deleted again; then
 * one server certificate per HostingEnvironmentConfig StoredCertificate (its store; configurationLevel System is
 * LocalMachine), each with that PFX.
 */
export async function azureServerCertificates(
  windows: WindowsSystem,
  log: Log,
  wire: CloudbaseWireserver,
  goal: CloudbaseGoalState,
  store: string,
): Promise<NonNullable<InstanceData['serverCertificates']>> {
  const url = goal.certificatesUrl as string;
  await wire.checkVersion();
  const transport = windows.createTransportCertificate(TRANSPORT_SUBJECT, store);
  let pfx: Uint8Array;
  try {
    const doc = parseXml(
      await wire.request(url, {
        headers: { 'x-ms-guest-agent-public-x509-cert': Buffer.from(transport.der).toString('base64') },
      }),
      url,
    );
    const data = firstNamed(doc, 'Data')?.text.replace(/\s+/g, '');
    if (!data) throw new SourceError('Azure', `${url}: the certificates document has no Data`);
    log.debug(`Azure: certificates in format ${firstNamed(doc, 'Format')?.text.trim() ?? '(none named)'}`);
    pfx = windows.decryptEnvelopedMessage(Buffer.from(data, 'base64'), transport.container);
  } finally {
    try {
      windows.deleteCertificate(transport.thumbprint, store, transport.container);
    } catch (err) {
      log.warn(`Azure: could not delete the transport certificate ${transport.thumbprint}: ${describeError(err)}`);
    }
  }
  if (!goal.hostingEnvironmentUrl)
    throw new SourceError(
      'Azure',
      'the goal state names certificates but no HostingEnvironmentConfig to say where they go',
    );
  const env = parseXml(await wire.request(goal.hostingEnvironmentUrl), goal.hostingEnvironmentUrl);
  const stored = firstNamed(env, 'StoredCertificates');
  const out: NonNullable<InstanceData['serverCertificates']> = [];
  for (const c of stored ? childrenNamed(stored, '', 'StoredCertificate') : []) {
    const level = c.attributes.configurationLevel ?? '';
    const storeName = c.attributes.storeName ?? '';
    if (level !== 'System' && level !== 'LocalMachine' && level !== 'CurrentUser')
      throw new SourceError(
        'Azure',
        `${goal.hostingEnvironmentUrl}: StoredCertificate '${c.attributes.name ?? ''}' has the unsupported store location '${level}'`,
      );
    log.debug(
      `Azure: server certificate ${c.attributes.name ?? ''} (${c.attributes.certificateId ?? ''}) for ${level}\\${storeName}`,
    );
    out.push({ storeLocation: level === 'CurrentUser' ? 'CurrentUser' : 'LocalMachine', storeName, pfx });
  }
  return out;
}

/** The tagged drive's ovf-env.xml and CustomData.bin as instance data, with what the reports need in the metadata. */
async function fromDrive(ctx: CrawlContext, baseUrl: string, goal: CloudbaseGoalState): Promise<InstanceData> {
  const drive = await provisioningDrive(ctx);
  const raw = await drive.tree.readFile('ovf-env.xml');
  if (!raw) throw new SourceError('Azure', `ovf-env path does not exist: ${drive.root}ovf-env.xml`);
  const env = parseWindowsOvfEnv(raw, `${drive.root}ovf-env.xml`);
  const custom = await drive.tree.readFile(CUSTOM_DATA_FILENAME);
  if (!custom && env.hasCustomData)
    throw new SourceError(
      'Azure',
      `ovf-env.xml has CustomData, but ${drive.root}${CUSTOM_DATA_FILENAME} is not present`,
    );
  const meta: CloudbaseAzureMetadata = {
    wireserver: baseUrl,
    goal_state: goal,
    admin_username: env.adminUsername,
    enable_automatic_updates: env.enableAutomaticUpdates,
    winrm_listeners: env.winrmListeners.map((l) => ({
      protocol: l.protocol,
      ...(l.certificateThumbprint ? { certificate_thumbprint: l.certificateThumbprint } : {}),
    })),
    vm_agent: {
      provision: env.provisionGuestAgent,
      ...(env.guestAgentPackageName ? { package_name: env.guestAgentPackageName } : {}),
    },
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
  if (custom?.length) data.userData = custom;
  return data;
}
