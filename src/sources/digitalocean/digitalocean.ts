// DigitalOcean: the droplet metadata JSON at 169.254.169.254/metadata/v1.json, read in init-local over a temporary
// link-local address; detected from DMI.
import { HttpClient, HttpError } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { withEphemeralNetwork } from '../ephemeral-lease';
import { convertVendorData } from '../openstack-tree';
import { normalizePublicKeys } from '../public-keys';
import { boolSetting, wholeUrlSettings, type UrlSettings } from '../settings';
import { parseJsonObject } from '../json-document';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { waitForEndpoint } from '../wait-for-url';
import { digitaloceanNetworkFormat } from './network-format';
import { digitalOceanMock } from './mock-answers';

const BASE = 'http://169.254.169.254';
export const DIGITALOCEAN_METADATA_PATH = '/metadata/v1.json';
/** cloud-init's: 30 tries, 2 s each, 2 s apart (a minute or two); kiln bounds the whole wait with max_wait as well. */
export const DIGITALOCEAN_DEFAULTS: UrlSettings = {
  metadataUrls: [`${BASE}${DIGITALOCEAN_METADATA_PATH}`],
  timeout: 2,
  maxWait: 120,
  retries: 30,
};

/** ds-identify's dscheck_DigitalOcean: the DMI system vendor. */
function onDigitalOcean(ctx: DetectContext): boolean {
  return ctx.dmi.sys_vendor === 'DigitalOcean';
}

function settingsFor(ctx: CrawlContext): UrlSettings {
  return wholeUrlSettings(
    'DigitalOcean',
    ctx.settings,
    { ...DIGITALOCEAN_DEFAULTS, metadataUrls: [BASE] },
    DIGITALOCEAN_METADATA_PATH,
    ctx.baseUrl,
  );
}

export const digitalOceanSource: Datasource = {
  mock: digitalOceanMock,
  name: 'DigitalOcean',
  kind: 'network',
  networkFormat: digitaloceanNetworkFormat,
  async detect(ctx: DetectContext) {
    return onDigitalOcean(ctx);
  },
  // cloud-init runs DigitalOcean in init-local only (DEP_FILESYSTEM), on the DMI vendor.
  async localEvidence(ctx: DetectContext) {
    return onDigitalOcean(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onDigitalOcean(ctx))
      throw new SourceError('DigitalOcean', `the DMI system vendor is '${ctx.dmi.sys_vendor ?? ''}', not DigitalOcean`);
    const dropletId = ctx.dmi.product_serial;
    if (!dropletId)
      throw new SourceError(
        'DigitalOcean',
        'DMI says DigitalOcean but gives no droplet id (system serial number); file a support ticket with DigitalOcean',
      );
    const s = settingsFor(ctx);
    // use_ip4LL (cloud-init's switch): the metadata service answers on the link; no DHCP is needed to reach it.
    const network = boolSetting(ctx.settings, 'use_ip4LL', true) ? ctx.network : undefined;
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    try {
      const { url, value: md } = await withEphemeralNetwork(
        network,
        () =>
          waitForEndpoint(
            'DigitalOcean',
            s,
            async (u, signal) => {
              const res = await client.fetch(u, { timeoutMs: s.timeout * 1000, signal, maxBytes: 1024 * 1024 });
              return parseJsonObject('DigitalOcean', res);
            },
            ctx.log,
            ctx.signal,
          ),
        { mode: 'link-local' },
      );
      return digitalOceanInstanceData(md, dropletId, url);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('DigitalOcean', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/**
 * The droplet metadata MD as cloud-init's DataSourceDigitalOcean keeps it; DROPLETID (DMI) stands in for missing
 * fields.
 */
export function digitalOceanInstanceData(md: Record<string, unknown>, dropletId: string, url: string): InstanceData {
  const id = md.droplet_id ?? dropletId;
  const hostname = md.hostname ?? dropletId;
  const region = typeof md.region === 'string' && md.region ? md.region : undefined;
  const metadata: Record<string, unknown> = {
    'instance-id': id,
    'local-hostname': hostname,
    interfaces: md.interfaces ?? null,
    'public-keys': md.public_keys ?? null,
    availability_zone: md.region ?? 'default',
  };
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'digitalocean',
    platform: 'digitalocean',
    subplatform: `metadata (${url})`,
    localHostname: String(hostname),
    availabilityZone: String(md.region ?? 'default'),
    publicKeys: normalizePublicKeys(md.public_keys),
    metadata,
  };
  // cloud-init leaves v1.region empty (the region is only its availability zone); kiln names it as what it is.
  if (region) data.region = region;
  if (typeof md.user_data === 'string' && md.user_data !== '') data.userData = Buffer.from(md.user_data);
  const vendor = convertVendorData('DigitalOcean', `${url} vendor_data`, md.vendor_data);
  if (vendor && vendor.length > 0) data.vendorData = vendor;
  const interfaces = md.interfaces;
  if (interfaces && typeof interfaces === 'object' && Object.keys(interfaces).length > 0) {
    const dns = md.dns && typeof md.dns === 'object' ? (md.dns as Record<string, unknown>).nameservers : undefined;
    data.networkConfig = { format: 'digitalocean', config: { interfaces, nameservers: dns ?? [] } };
  }
  return data;
}
