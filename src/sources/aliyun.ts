// AliYun (Alibaba Cloud ECS): the EC2-style metadata service at 100.100.100.200 (version 2016-01-01), with its own
// IMDSv2-like tokens; detected from the DMI product name.
import { HttpClient, HttpError, type HttpRequest } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { crawlImds, ec2InstanceData } from './ec2/ec2';
import { withEphemeralNetwork } from './ephemeral-lease';
import { boolSetting, readUrlSettings, type UrlSettings } from './settings';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { imdsMock } from './ec2/mock-answers';

export const ALIYUN_PRODUCT = 'Alibaba Cloud ECS';
/** cloud-init's AliYun: one endpoint, Ec2's waits. */
export const ALIYUN_DEFAULTS: UrlSettings = {
  metadataUrls: ['http://100.100.100.200'],
  timeout: 10,
  maxWait: 120,
  retries: 10,
};
/** cloud-init's min_metadata_version, with no extended versions. */
export const ALIYUN_VERSION = '2016-01-01';
/**
 * ECS's hardened mode (newer cloud-init asks for it): PUT latest/api/token with a TTL, then the token on every request.
 */
export const ALIYUN_TOKEN_HEADERS = {
  header: 'X-aliyun-ecs-metadata-token',
  ttlHeader: 'X-aliyun-ecs-metadata-token-ttl-seconds',
};

function onAliYun(ctx: DetectContext): boolean {
  return ctx.dmi.product_name === ALIYUN_PRODUCT;
}

/** cloud-init's AliYun parse_public_keys: each value a key, a list of keys, or a folder with its openssh-key. */
export function aliyunPublicKeys(value: unknown): string[] {
  const keys: string[] = [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return keys;
  const add = (v: unknown) => {
    if (typeof v === 'string') keys.push(v.trim());
    else if (Array.isArray(v)) keys.push(...v.filter((k): k is string => typeof k === 'string'));
  };
  for (const body of Object.values(value as Record<string, unknown>)) {
    if (body && typeof body === 'object' && !Array.isArray(body))
      add((body as Record<string, unknown>)['openssh-key'] ?? []);
    else add(body);
  }
  return keys;
}

export const aliYunSource: Datasource = {
  mock: imdsMock('aliyun', ALIYUN_TOKEN_HEADERS),
  name: 'AliYun',
  kind: 'network',
  /** 25.1 registers DataSourceAliYunLocal for init-local (22.4 had no AliYunLocal). */
  classNames: { local: 'AliYunLocal', network: 'AliYun' },
  async detect(ctx: DetectContext) {
    return onAliYun(ctx);
  },
  // cloud-init 25.1 has an AliYunLocal (DEP_FILESYSTEM, perform_dhcp_setup): on ECS it reads the metadata in
  // init-local inside a temporary lease (22.4's AliYun, an Ec2 subclass, waited for the init stage).
  async localEvidence(ctx: DetectContext) {
    return onAliYun(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    // cloud-init's AliYun reports no-ec2-metadata (and finds nothing) when DMI does not say Alibaba Cloud ECS.
    if (!onAliYun(ctx))
      throw new SourceError('AliYun', `the DMI product name is '${ctx.dmi.product_name ?? ''}', not ${ALIYUN_PRODUCT}`);
    const s = readUrlSettings('AliYun', ctx.settings, ALIYUN_DEFAULTS, ctx.baseUrl);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    try {
      return await withEphemeralNetwork(ctx.network, async () => {
        const crawl = await crawlImds(ctx, s, client, base, {
          source: 'AliYun',
          versions: [ALIYUN_VERSION],
          token: ALIYUN_TOKEN_HEADERS,
          v1Fallback: boolSetting(ctx.settings, 'imdsv1_fallback', true),
          identity: false,
        });
        const data = ec2InstanceData(
          crawl.meta,
          crawl.userData,
          undefined,
          crawl.url,
          crawl.version,
          'aliyun',
          'AliYun',
        );
        // 25.1's AliYun is its own class: platform aliyun, no region of its own (the metadata has none under that
        // name), and the crawl it keeps is the meta-data alone (no Ec2 API version).
        data.platform = 'aliyun';
        delete data.region;
        data.crawledMetadata = { 'meta-data': crawl.meta };
        // AliYun's get_hostname: the metadata's hostname (not local-hostname); its keys as parse_public_keys reads
        // them.
        const hostname = crawl.meta.hostname;
        if (typeof hostname === 'string' && hostname.trim()) data.localHostname = hostname.trim();
        else delete data.localHostname;
        data.publicKeys = aliyunPublicKeys(crawl.meta['public-keys']);
        return data;
      });
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('AliYun', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};
