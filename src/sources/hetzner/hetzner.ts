// Hetzner Cloud: YAML metadata, private networks and user data at 169.254.169.254/hetzner/v1/, read in init-local
// inside a temporary DHCP lease; detected from DMI.
import { readYaml } from '../../config/read-yaml';
import { HttpClient, HttpError, type HttpRequest } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { withEphemeralNetwork } from '../ephemeral-lease';
import { convertVendorData } from '../openstack-tree';
import { normalizePublicKeys } from '../public-keys';
import { readUrlSettings, type UrlSettings } from '../settings';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { waitForEndpoint } from '../wait-for-url';
import { hetznerNetworkFormat } from './network-format';
import { describeError } from '../../util/errors';
import { hetznerMock } from './mock-answers';

const BASE = 'http://169.254.169.254';
const API = '/hetzner/v1';
/** cloud-init's: 2 s per request, 2 s apart, 120 s in all (max_wait, newer upstream) or 60 tries (22.4). */
export const HETZNER_DEFAULTS: UrlSettings = { metadataUrls: [BASE], timeout: 2, maxWait: 120, retries: 60 };

/**
 * ds-identify's dscheck_Hetzner: the DMI system vendor (the serial, the server id, is checked against the metadata
 * later).
 */
function onHetzner(ctx: DetectContext): boolean {
  return ctx.dmi.sys_vendor === 'Hetzner';
}

function pathSetting(settings: Record<string, unknown>, key: string, fallback: string): string {
  const v = settings[key];
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !v.trim())
    throw new SourceError(
      'Hetzner',
      `datasource.Hetzner.${key} must be a path below ${API}/, not ${JSON.stringify(v)}`,
    );
  return v.replace(/^\/+/, '');
}

/**
 * Where each document is: below the base URL by cloud-init's newer `*_path` keys, or at 22.4's full
 * `metadata_url`/`userdata_url` when those are set (and no test or serve-metadata base URL overrides them).
 */
function urlsFor(ctx: CrawlContext, base: string): { metadata: string; privateNetworks: string; userdata: string } {
  const s = ctx.settings;
  const metadataPath = pathSetting(s, 'metadata_path', 'metadata');
  const urls = {
    metadata: `${base}${API}/${metadataPath}`,
    privateNetworks: `${base}${API}/${pathSetting(s, 'metadata_private_networks_path', `${metadataPath}/private-networks`)}`,
    userdata: `${base}${API}/${pathSetting(s, 'userdata_path', 'userdata')}`,
  };
  if (!ctx.baseUrl && typeof s.metadata_url === 'string') {
    urls.metadata = s.metadata_url;
    if (s.metadata_private_networks_url === undefined)
      urls.privateNetworks = `${s.metadata_url.replace(/\/+$/, '')}/private-networks`;
  }
  if (!ctx.baseUrl && typeof s.metadata_private_networks_url === 'string')
    urls.privateNetworks = s.metadata_private_networks_url;
  if (!ctx.baseUrl && typeof s.userdata_url === 'string') urls.userdata = s.userdata_url;
  return urls;
}

/** cloud-init's maybe_b64decode: strict base64 (alphabet, padding, no whitespace) is decoded; anything else is kept. */
export function maybeBase64Decode(data: Uint8Array): Uint8Array {
  const text = Buffer.from(data).toString('latin1');
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return data;
  return Buffer.from(text, 'base64');
}

function yamlOf(bytes: Uint8Array, url: string): unknown {
  try {
    return readYaml(Buffer.from(bytes).toString('utf8'), url);
  } catch (err) {
    throw new SourceError('Hetzner', `${url} is not YAML: ${describeError(err)}`);
  }
}

export const hetznerSource: Datasource = {
  mock: hetznerMock,
  name: 'Hetzner',
  kind: 'network',
  networkFormat: hetznerNetworkFormat,
  async detect(ctx: DetectContext) {
    return onHetzner(ctx);
  },
  // cloud-init runs Hetzner in init-local only (DEP_FILESYSTEM), on the DMI vendor.
  async localEvidence(ctx: DetectContext) {
    return onHetzner(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onHetzner(ctx))
      throw new SourceError('Hetzner', `the DMI system vendor is '${ctx.dmi.sys_vendor ?? ''}', not Hetzner`);
    const serial = ctx.dmi.product_serial;
    if (!serial)
      throw new SourceError('Hetzner', 'DMI says Hetzner Cloud but gives no system serial number (the server id)');
    const s = readUrlSettings('Hetzner', ctx.settings, HETZNER_DEFAULTS, ctx.baseUrl);
    const urls = urlsFor(ctx, s.metadataUrls[0] ?? BASE);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    // Each document is waited for as cloud-init's get_metadata waits: rounds within max_wait, 5xx and timeouts retried.
    const fetchOne = async (url: string, what: string, accept: number[] = []) => {
      const { value } = await waitForEndpoint(
        'Hetzner',
        { ...s, metadataUrls: [url] },
        async (u, signal) => client.fetch(u, { ...base, signal, maxBytes: 1024 * 1024, acceptStatuses: accept }),
        ctx.log,
        ctx.signal,
      ).catch((err: unknown) => {
        throw err instanceof SourceError
          ? new SourceError('Hetzner', `reading the ${what} failed: ${err.message.replace(/^Hetzner: /, '')}`, {
              cause: err,
            })
          : err;
      });
      return value;
    };
    try {
      // As cloud-init's EphemeralDHCPv4 with a connectivity URL: no lease when the metadata service already answers.
      let network = ctx.network;
      if (network) {
        const reachable = await client
          .fetch(`${urls.metadata}/instance-id`, { timeoutMs: 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) })
          .then(
            () => true,
            () => false,
          );
        if (reachable) {
          ctx.log.debug(`Hetzner: ${urls.metadata}/instance-id answers already; no temporary DHCP lease`);
          network = undefined;
        }
      }
      const { md, privateNetworks, userData } = await withEphemeralNetwork(network, async () => {
        const metaRes = await fetchOne(urls.metadata, 'metadata');
        const md = yamlOf(metaRes.body, urls.metadata);
        if (!md || typeof md !== 'object' || Array.isArray(md))
          throw new SourceError('Hetzner', `${urls.metadata} is not a YAML mapping`);
        // cloud-init 25.2 reads the private networks; older metadata services answer 404 (then there are none).
        const pnRes = await fetchOne(urls.privateNetworks, 'private networks', [404]);
        const privateNetworks = pnRes.status === 404 ? undefined : yamlOf(pnRes.body, urls.privateNetworks);
        if (privateNetworks !== undefined && privateNetworks !== null && !Array.isArray(privateNetworks))
          throw new SourceError('Hetzner', `${urls.privateNetworks} is not a YAML list`);
        // 204 (or an empty 200) is "no user data", as cloud-init's get_metadata takes it.
        const udRes = await fetchOne(urls.userdata, 'user data', [204]);
        return {
          md: md as Record<string, unknown>,
          privateNetworks: (privateNetworks ?? undefined) as unknown[] | undefined,
          userData: udRes.body,
        };
      });
      return hetznerInstanceData(md, privateNetworks, userData, serial, urls.metadata);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('Hetzner', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/** The metadata MD as cloud-init's DataSourceHetzner keeps it, checked against the DMI SERIAL. */
export function hetznerInstanceData(
  md: Record<string, unknown>,
  privateNetworks: unknown[] | undefined,
  userData: Uint8Array,
  serial: string,
  url: string,
): InstanceData {
  const id = md['instance-id'];
  if (id === undefined || id === null || String(id).trim() === '')
    throw new SourceError('Hetzner', `${url} has no instance-id`);
  const hostname = md.hostname;
  if (hostname === undefined || hostname === null || String(hostname).trim() === '')
    throw new SourceError('Hetzner', `${url} has no hostname`);
  // The server id is both the SMBIOS serial and the instance id: a mismatch means metadata of another server.
  if (String(id) !== serial)
    throw new SourceError(
      'Hetzner',
      `the SMBIOS serial ${serial} does not match instance-id ${String(id)} from ${url}`,
    );
  const metadata: Record<string, unknown> = {
    'instance-id': id,
    'local-hostname': hostname,
    'network-config': md['network-config'] ?? null,
    'public-keys': md['public-keys'] ?? null,
  };
  if (privateNetworks !== undefined) metadata['private-networks'] = privateNetworks;
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'hetzner',
    platform: 'hetzner',
    subplatform: `metadata (${url})`,
    localHostname: String(hostname),
    publicKeys: normalizePublicKeys(md['public-keys']),
    metadata,
  };
  // cloud-init leaves these empty; the metadata has them, and templates and `query` are better off with them.
  if (typeof md.region === 'string' && md.region) data.region = md.region;
  if (typeof md['availability-zone'] === 'string' && md['availability-zone'])
    data.availabilityZone = md['availability-zone'];
  const ud = maybeBase64Decode(userData);
  if (ud.length > 0) data.userData = ud;
  const vendor = convertVendorData('Hetzner', `${url} vendor_data`, md.vendor_data);
  if (vendor && vendor.length > 0) data.vendorData = vendor;
  const net = md['network-config'];
  if (net && typeof net === 'object')
    data.networkConfig = {
      format: 'hetzner',
      config: { networkConfig: net, ...(privateNetworks ? { privateNetworks } : {}) },
    };
  return data;
}
