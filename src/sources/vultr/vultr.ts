// Vultr: the instance metadata JSON at 169.254.169.254/v1.json (interfaces, keys, user and vendor data), read in
// init-local inside a temporary DHCP lease; detected from DMI or `vultr` on the kernel command line.
import { HttpClient, HttpError } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { withEphemeralNetwork } from '../ephemeral-lease';
import { convertVendorData } from '../openstack-tree';
import { normalizePublicKeys } from '../public-keys';
import { readUrlSettings, type UrlSettings } from '../settings';
import { parseJsonObject } from '../json-document';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { waitForEndpoint } from '../wait-for-url';
import { vultrNetworkFormat } from './network-format';
import { vultrMock } from './mock-answers';

const BASE = 'http://169.254.169.254';
/** cloud-init's: 10 s per request, 30 retries 5 s apart; kiln bounds the whole wait by max_wait as well. */
export const VULTR_DEFAULTS: UrlSettings = { metadataUrls: [BASE], timeout: 10, maxWait: 180, retries: 30 };

/**
 * cloud-init's is_vultr: the DMI system vendor (virtual machines), or the word `vultr` on the kernel command line (bare
 * metal).
 */
function onVultr(ctx: DetectContext): boolean {
  return ctx.dmi.sys_vendor === 'Vultr' || ctx.kernelCmdline.split(/\s+/).includes('vultr');
}

export const vultrSource: Datasource = {
  mock: vultrMock,
  name: 'Vultr',
  kind: 'network',
  networkFormat: vultrNetworkFormat,
  async detect(ctx: DetectContext) {
    return onVultr(ctx);
  },
  // cloud-init runs Vultr in init-local only (DEP_FILESYSTEM), inside a lease it takes itself.
  async localEvidence(ctx: DetectContext) {
    return onVultr(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onVultr(ctx))
      throw new SourceError(
        'Vultr',
        `the DMI system vendor is '${ctx.dmi.sys_vendor ?? ''}' and the kernel command line has no 'vultr'`,
      );
    // cloud-init's key is `url` (the base); kiln's usual metadata_urls work too.
    const given = ctx.settings.url;
    if (given !== undefined && typeof given !== 'string')
      throw new SourceError('Vultr', `datasource.Vultr.url must be a URL, not ${JSON.stringify(given)}`);
    const s = readUrlSettings(
      'Vultr',
      {
        ...(typeof given === 'string' && ctx.settings.metadata_urls === undefined ? { metadata_urls: [given] } : {}),
        ...ctx.settings,
      },
      VULTR_DEFAULTS,
      ctx.baseUrl,
    );
    const agent =
      typeof ctx.settings['user-agent'] === 'string' ? ctx.settings['user-agent'] : 'Cloud-Init/kiln - OS: Linux';
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    try {
      const { value: md } = await withEphemeralNetwork(ctx.network, () =>
        waitForEndpoint(
          'Vultr',
          s,
          async (base, signal) => {
            const url = `${base}/v1.json`;
            const res = await client.fetch(url, {
              timeoutMs: s.timeout * 1000,
              signal,
              maxBytes: 4 * 1024 * 1024,
              headers: { 'Metadata-Token': 'cloudinit', 'User-Agent': agent },
            });
            return parseJsonObject('Vultr', res);
          },
          ctx.log,
          ctx.signal,
        ),
      );
      return vultrInstanceData(md);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('Vultr', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/** User data as Vultr gives it: a string (empty: none), or a list of parts (empty: none). */
function userDataOf(v: unknown): Uint8Array | undefined {
  if (typeof v === 'string') return v === '' ? undefined : Buffer.from(v);
  if (Array.isArray(v)) return v.length === 0 ? undefined : convertVendorData('Vultr', 'v1.json user-data', v);
  if (v === undefined || v === null) return undefined;
  throw new SourceError('Vultr', `v1.json user-data must be a string or a list of strings, not ${typeof v}`);
}

/**
 * The metadata as cloud-init's DataSourceVultr keeps it: `instance-v2-id` the instance id, the region's country code
 * (lower case) the region.
 */
export function vultrInstanceData(input: Record<string, unknown>): InstanceData {
  const md: Record<string, unknown> = { ...input };
  const id = md['instance-v2-id'] ?? md['instance-id'];
  if (id === undefined || id === null || String(id).trim() === '')
    throw new SourceError('Vultr', 'v1.json has no instance-v2-id (the instance id)');
  md['instance-id'] = id;
  // A white-label instance has an empty hostname: cloud-init names it 'guest'.
  md['local-hostname'] =
    md.hostname === undefined || md.hostname === null || md.hostname === '' ? 'guest' : md.hostname;
  const region = md.region && typeof md.region === 'object' ? (md.region as Record<string, unknown>) : undefined;
  if (region) {
    const code = region.countrycode ?? region.regioncode;
    if (typeof code === 'string') md.region = code.toLowerCase();
  }
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'vultr',
    platform: 'vultr',
    // cloud-init's Vultr names no metadata address, so its subplatform is 'unknown'.
    subplatform: 'unknown',
    localHostname: String(md['local-hostname']),
    publicKeys: normalizePublicKeys(md['public-keys']),
    metadata: md,
    // Newer cloud-init hides the startup script (it may carry secrets) from non-root readers.
    sensitiveKeys: ['startup-script'],
  };
  if (typeof md.region === 'string' && md.region) data.region = md.region;
  const ud = userDataOf(md['user-data']);
  if (ud) data.userData = ud;
  const vendor = convertVendorData('Vultr', 'v1.json vendor-data', md['vendor-data']);
  if (vendor && vendor.length > 0) data.vendorData = vendor;
  if (md.cloud_interfaces !== undefined)
    data.networkConfig = { format: 'vultr', config: { cloudInterfaces: md.cloud_interfaces } };
  else if (Array.isArray(md.interfaces))
    data.networkConfig = { format: 'vultr', config: { interfaces: md.interfaces } };
  return data;
}
