// UpCloud: the server metadata JSON at 169.254.169.254/metadata/v1.json, read in init-local inside a temporary DHCP
// lease (UpCloudLocal) or in init (UpCloud); detected from DMI, the server UUID from the system UUID.
import { HttpClient, HttpError } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { withEphemeralNetwork } from '../ephemeral-lease';
import { convertVendorData } from '../openstack-tree';
import { normalizePublicKeys } from '../public-keys';
import { wholeUrlSettings, type UrlSettings } from '../settings';
import { parseJsonObject } from '../json-document';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { waitForEndpoint } from '../wait-for-url';
import { upcloudNetworkFormat } from './network-format';
import { upCloudMock } from './mock-answers';

const BASE = 'http://169.254.169.254';
export const UPCLOUD_METADATA_PATH = '/metadata/v1.json';
/** cloud-init's: 2 s per request, 30 retries 2 s apart; kiln bounds the whole wait by max_wait as well. */
export const UPCLOUD_DEFAULTS: UrlSettings = { metadataUrls: [BASE], timeout: 2, maxWait: 120, retries: 30 };

/** cloud-init's read_sysinfo: the DMI system vendor. */
function onUpCloud(ctx: DetectContext): boolean {
  return ctx.dmi.sys_vendor === 'UpCloud';
}

function settingsFor(ctx: CrawlContext): UrlSettings {
  return wholeUrlSettings('UpCloud', ctx.settings, UPCLOUD_DEFAULTS, UPCLOUD_METADATA_PATH, ctx.baseUrl);
}

export const upCloudSource: Datasource = {
  mock: upCloudMock,
  name: 'UpCloud',
  kind: 'network',
  /** cloud-init's class per stage (its *Local class registers with the filesystem dependency only). */
  classNames: { local: 'UpCloudLocal', network: 'UpCloud' },
  networkFormat: upcloudNetworkFormat,
  async detect(ctx: DetectContext) {
    return onUpCloud(ctx);
  },
  // UpCloudLocal: init-local takes a lease on the fallback NIC when DMI says UpCloud; UpCloud (init) reads over the
  // configured network.
  async localEvidence(ctx: DetectContext) {
    return onUpCloud(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onUpCloud(ctx))
      throw new SourceError('UpCloud', `the DMI system vendor is '${ctx.dmi.sys_vendor ?? ''}', not UpCloud`);
    const serverUuid = ctx.dmi.product_uuid;
    if (!serverUuid)
      throw new SourceError(
        'UpCloud',
        'DMI says UpCloud but gives no system UUID (the server UUID); contact UpCloud support at https://hub.upcloud.com',
      );
    const s = settingsFor(ctx);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    try {
      const { url, value: md } = await withEphemeralNetwork(ctx.network, () =>
        waitForEndpoint(
          'UpCloud',
          s,
          async (u, signal) => {
            const res = await client.fetch(u, { timeoutMs: s.timeout * 1000, signal, maxBytes: 1024 * 1024 });
            return parseJsonObject('UpCloud', res);
          },
          ctx.log,
          ctx.signal,
        ),
      );
      return upCloudInstanceData(md, serverUuid, url);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('UpCloud', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/** The metadata as cloud-init's DataSourceUpCloud keeps it; the DMI server UUID stands in for a missing instance id. */
export function upCloudInstanceData(md: Record<string, unknown>, serverUuid: string, url: string): InstanceData {
  const id = md.instance_id ?? serverUuid;
  const zone = md.region ?? 'default';
  const metadata: Record<string, unknown> = {
    'instance-id': id,
    'local-hostname': md.hostname ?? null,
    network: md.network ?? null,
    'public-keys': md.public_keys ?? null,
    availability_zone: zone,
  };
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'upcloud',
    platform: 'upcloud',
    subplatform: `metadata (${url})`,
    availabilityZone: String(zone),
    publicKeys: normalizePublicKeys(md.public_keys),
    metadata,
  };
  if (typeof md.hostname === 'string' && md.hostname) data.localHostname = md.hostname;
  if (typeof md.user_data === 'string' && md.user_data !== '') data.userData = Buffer.from(md.user_data);
  const vendor = convertVendorData('UpCloud', `${url} vendor_data`, md.vendor_data);
  if (vendor && vendor.length > 0) data.vendorData = vendor;
  // An UpCloud server always has one; cloud-init raises later without it, kiln falls back to DHCP on the first NIC.
  if (md.network && typeof md.network === 'object') data.networkConfig = { format: 'upcloud', config: md.network };
  return data;
}
