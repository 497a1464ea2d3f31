// Scaleway: the instance metadata JSON at 169.254.42.42/conf?format=json and user and vendor data asked for from a
// privileged source port, read in init-local inside a temporary lease (IPv4 first, then IPv6 at fd00:42::42).
import { HttpError } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { fallbackInterface } from '../../net/ephemeral/ephemeral-network';
import { EphemeralNetworkRefused, withEphemeralNetwork } from '../ephemeral-lease';
import { readUrlSettings, type UrlSettings } from '../settings';
import { parseJsonObject } from '../json-document';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { waitForEndpoint } from '../wait-for-url';
import { HttpClient } from '../../util/http';
import { queryPrivilegedDataApi } from './privileged-data-api';
import { scalewayNetworkConfig } from './scaleway-network';
import { describeError } from '../../util/errors';
import { scalewayMock } from './mock-answers';

export const SCALEWAY_IPV4_BASE = 'http://169.254.42.42';
export const SCALEWAY_IPV6_BASE = 'http://[fd00:42::42]';
/**
 * cloud-init's: 10 s per request; the metadata is asked up to 5 times (22.4's DEF_MD_RETRIES), the user data from ports
 * 1…4.
 */
export const SCALEWAY_DEFAULTS: UrlSettings = {
  metadataUrls: [SCALEWAY_IPV4_BASE, SCALEWAY_IPV6_BASE],
  timeout: 10,
  maxWait: 0,
  retries: 5,
};

/**
 * cloud-init's ds_detect: the DMI vendor, the initrd's /var/run/scaleway, or `scaleway` anywhere on the kernel command
 * line.
 */
async function onScaleway(ctx: DetectContext): Promise<boolean> {
  if (ctx.dmi.sys_vendor === 'Scaleway') return true;
  if (await ctx.platform.exists('/var/run/scaleway').catch(() => false)) return true;
  return ctx.kernelCmdline.includes('scaleway');
}

interface Crawled {
  metadataUrl: string;
  md: Record<string, unknown>;
  userData?: Uint8Array;
  vendorData?: Uint8Array;
}

/**
 * The three URLs for BASE; cloud-init 22.4's full `metadata_url`/`userdata_url`/`vendordata_url` settings win where
 * given.
 */
function urlsFor(ctx: CrawlContext, base: string): { metadata: string; userdata: string; vendordata: string } {
  const s = ctx.settings;
  const pick = (key: string, fallback: string) =>
    !ctx.baseUrl && typeof s[key] === 'string' && s[key] ? (s[key] as string) : fallback;
  return {
    metadata: pick('metadata_url', `${base}/conf?format=json`),
    userdata: pick('userdata_url', `${base}/user_data/cloud-init`),
    vendordata: pick('vendordata_url', `${base}/vendor_data/cloud-init`),
  };
}

async function crawlFrom(ctx: CrawlContext, s: UrlSettings, bases: string[]): Promise<Crawled> {
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  try {
    const { url: base, value: md } = await waitForEndpoint(
      'Scaleway',
      { ...s, metadataUrls: bases },
      async (b, signal) => {
        const url = urlsFor(ctx, b).metadata;
        const res = await client.fetch(url, { timeoutMs: s.timeout * 1000, signal, maxBytes: 1024 * 1024 });
        return parseJsonObject('Scaleway', res);
      },
      ctx.log,
      ctx.signal,
    );
    const urls = urlsFor(ctx, base);
    const api = {
      log: ctx.log,
      timeoutMs: s.timeout * 1000,
      retries: s.retries,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.env ? { env: ctx.env } : {}),
    };
    const user = await queryPrivilegedDataApi('user-data', urls.userdata, api);
    const vendor = await queryPrivilegedDataApi('vendor-data', urls.vendordata, { ...api, firstPort: user.nextPort });
    const userData = user.data;
    const vendorData = vendor.data;
    return { metadataUrl: urls.metadata, md, ...(userData ? { userData } : {}), ...(vendorData ? { vendorData } : {}) };
  } catch (err) {
    if (err instanceof HttpError) throw sourceErrorOfHttp('Scaleway', err);
    throw err;
  } finally {
    await client.close();
  }
}

export const scalewaySource: Datasource = {
  mock: scalewayMock,
  name: 'Scaleway',
  kind: 'network',
  async detect(ctx: DetectContext) {
    return onScaleway(ctx);
  },
  // cloud-init runs Scaleway in init-local only (DEP_FILESYSTEM), inside its own temporary lease.
  async localEvidence(ctx: DetectContext) {
    return onScaleway(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!(await onScaleway(ctx)))
      throw new SourceError(
        'Scaleway',
        `no sign of Scaleway: DMI vendor '${ctx.dmi.sys_vendor ?? ''}', no /var/run/scaleway, no 'scaleway' on the kernel command line`,
      );
    const s = readUrlSettings('Scaleway', ctx.settings, SCALEWAY_DEFAULTS, ctx.baseUrl);
    // Newer cloud-init adds configured metadata_urls to its two built-in bases.
    const bases =
      ctx.baseUrl || ctx.settings.metadata_urls === undefined
        ? s.metadataUrls
        : [...new Set([SCALEWAY_IPV4_BASE, SCALEWAY_IPV6_BASE, ...s.metadataUrls])];
    let crawled: Crawled;
    let dhcpv4 = Boolean(ctx.network);
    if (!ctx.network) crawled = await crawlFrom(ctx, s, bases);
    else {
      // As newer cloud-init: DHCPv4 first; a machine without DHCPv4 (IPv6-only) is read over IPv6 alone instead.
      try {
        crawled = await withEphemeralNetwork(ctx.network, () => crawlFrom(ctx, s, bases));
      } catch (v4err) {
        if (v4err instanceof EphemeralNetworkRefused || ctx.signal?.aborted) throw v4err;
        ctx.log.warn(`Scaleway: no metadata over IPv4 (${describeError(v4err)}); trying IPv6`);
        dhcpv4 = false;
        try {
          crawled = await withEphemeralNetwork(ctx.network, () => crawlFrom(ctx, s, bases), {
            ipv6: true,
            ipv4: false,
          });
        } catch (v6err) {
          throw new SourceError(
            'Scaleway',
            `no metadata over IPv4 (${describeError(v4err)}) nor over IPv6 (${describeError(v6err)})`,
            { cause: v6err },
          );
        }
      }
    }
    // 25.1 records in the metadata which family its temporary network read it over.
    if (ctx.network) crawled.md.net_in_use = dhcpv4 ? 'ipv4' : 'ipv6';
    const nic = await fallbackInterface(ctx.platform);
    return scalewayInstanceData(crawled, nic, dhcpv4);
  },
};

/**
 * The public keys as cloud-init's get_public_ssh_keys: the `ssh_public_keys` entries, then `AUTHORIZED_KEY=` tags
 * (underscores for spaces).
 */
export function scalewayPublicKeys(md: Record<string, unknown>): string[] {
  const keys: string[] = [];
  for (const k of Array.isArray(md.ssh_public_keys) ? md.ssh_public_keys : []) {
    const key = k && typeof k === 'object' ? (k as Record<string, unknown>).key : undefined;
    if (typeof key === 'string' && key.trim()) keys.push(key);
  }
  const prefix = 'AUTHORIZED_KEY=';
  // cloud-init 22.4 kept the prefix instead of the key (tag[:plen]); newer releases take what follows it, as here.
  for (const tag of Array.isArray(md.tags) ? md.tags : [])
    if (typeof tag === 'string' && tag.startsWith(prefix)) keys.push(tag.slice(prefix.length).replace(/_/g, ' '));
  return keys;
}

/**
 * The metadata as cloud-init's DataSourceScaleway keeps it: the whole document, `id` the instance id, `hostname` the
 * hostname.
 */
export function scalewayInstanceData(c: Crawled, nic: string | undefined, dhcpv4: boolean): InstanceData {
  const { md } = c;
  const id = md.id;
  if (id === undefined || id === null || String(id).trim() === '')
    throw new SourceError('Scaleway', `${c.metadataUrl} has no id (the instance id)`);
  const hostname = md.hostname;
  if (hostname === undefined || hostname === null || String(hostname).trim() === '')
    throw new SourceError('Scaleway', `${c.metadataUrl} has no hostname`);
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'scaleway',
    platform: 'scaleway',
    // 25.1's Scaleway keeps its URL as metadata_url, not the metadata_address the base class names the
    // subplatform after, so its subplatform is 'unknown' (22.4's was 'metadata (<url>)').
    subplatform: 'unknown',
    localHostname: String(hostname),
    publicKeys: scalewayPublicKeys(md),
    metadata: md,
  };
  if (c.userData && c.userData.length > 0) data.userData = c.userData;
  if (c.vendorData && c.vendorData.length > 0) data.vendorData = c.vendorData;
  if (nic)
    data.networkConfig = {
      format: md.private_ip === null && Array.isArray(md.public_ips) ? 'v2' : 'v1',
      config: scalewayNetworkConfig(md, nic, dhcpv4),
    };
  return data;
}
