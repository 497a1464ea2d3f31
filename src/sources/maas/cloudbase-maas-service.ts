// cloudbase-init's MaaSHttpService: the MAAS metadata service read by its rules (with the MAAS source's OAuth reader),
// given the [maas] options (their deprecated [DEFAULT] maas_* names are read as these by the conf loader).
import type { CloudbaseConf } from '../../config/cloudbase-init-conf';
import { abortableSleep, HttpClient } from '../../util/http';
import type { CloudbaseMetadataService, ServiceSettings } from '../cloudbase-metadata-service';
import { CLOUDBASE_SERVICES_PACKAGE } from '../cloudbase-metadata-service';
import type { CrawlContext, InstanceData } from '../datasource';
import { sourceSettings } from '../settings';
import { checkUrl, fail, intSetting, MAAS_MD_VERSION, MAX_BODY, text } from './maas';
import { OAuthReadError, OAuthUrlReader } from './oauth-url-reader';
import { describeError } from '../../util/errors';

export function maasServiceSettings(conf: CloudbaseConf): ServiceSettings {
  const settings: Record<string, unknown> = {
    consumer_key: conf.strValue('oauth_consumer_key', 'maas'),
    consumer_secret: conf.strValue('oauth_consumer_secret', 'maas'),
    token_key: conf.strValue('oauth_token_key', 'maas'),
    token_secret: conf.strValue('oauth_token_secret', 'maas'),
    retries: conf.intValue('retry_count'),
    retry_interval: conf.floatValue('retry_count_interval'),
  };
  const url = conf.str('metadata_base_url', 'maas');
  if (url !== undefined) settings.metadata_url = url;
  return { settings };
}

/**
 * MaaSHttpService's network details: the v1 network config curtin left at %SystemDrive%\curtin\network.json
 * (else %SystemDrive%\network.json) when it installed Windows; none elsewhere.
 */
async function curtinNetworkConfig(ctx: CrawlContext): Promise<Record<string, unknown> | undefined> {
  const drive = (ctx.env?.SystemDrive ?? ctx.env?.SYSTEMDRIVE ?? 'C:').replace(/\\+$/, '');
  for (const path of [`${drive}\\curtin\\network.json`, `${drive}\\network.json`]) {
    const text = await ctx.platform.readTextIfExists(path).catch(() => undefined);
    if (text === undefined) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw fail(`${path} is not JSON: ${describeError(err)}`, err);
    }
    const version =
      parsed && typeof parsed === 'object' && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>).version
        : undefined;
    if (version !== 1) throw fail(`Unsupported MAAS network metadata version: ${JSON.stringify(version)} (${path})`);
    return parsed as Record<string, unknown>;
  }
  return undefined;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * cloudbase-init's MaaSHttpService: paths joined to [maas] metadata_base_url as a URL reference (so the base
 * wants its trailing '/'), `realm=""` in every header, no clock-skew correction, each read retried
 * retry_count times retry_count_interval apart (404 is final), and the client certificates from meta-data/x509.
 */
async function crawlMaasHttpService(ctx: CrawlContext, base: string): Promise<InstanceData> {
  const s = ctx.settings;
  const retries = Math.max(0, intSetting(s, 'retries', 5));
  const intervalMs = Math.max(0, intSetting(s, 'retry_interval', 4)) * 1000;
  // cloudbase-init signs every request, even with empty or partial credentials.
  const credentials = {
    consumerKey: text(s, 'consumer_key'),
    consumerSecret: text(s, 'consumer_secret'),
    tokenKey: text(s, 'token_key'),
    tokenSecret: text(s, 'token_secret'),
  };
  const timeoutS = intSetting(s, 'timeout', 60);
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  const reader = new OAuthUrlReader({
    client,
    log: ctx.log,
    credentials,
    realm: '',
    correctSkew: false,
    timeoutMs: timeoutS * 1000,
    maxBytes: MAX_BODY,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  const read = async (path: string, optional: boolean): Promise<Uint8Array | undefined> => {
    const url = new URL(path, base).href;
    for (let attempt = 0; ; attempt++) {
      try {
        return (await reader.get(url)).body;
      } catch (err) {
        if (err instanceof OAuthReadError && err.status === 404) {
          if (optional) return undefined;
          throw fail(`${url} does not exist (404)`, err);
        }
        if (attempt >= retries || !(err instanceof OAuthReadError)) throw fail(`${url}: ${describeError(err)}`, err);
        ctx.log.debug(`MAAS: ${err.message}; retrying in ${intervalMs / 1000} s`);
        await abortableSleep(intervalMs, ctx.signal);
      }
    }
  };
  try {
    await read(`${MAAS_MD_VERSION}/meta-data/`, false);
    const str = async (p: string, optional: boolean) => {
      const b = await read(`${MAAS_MD_VERSION}/meta-data/${p}`, optional);
      return b === undefined ? undefined : Buffer.from(b).toString('utf8');
    };
    const id = (await str('instance-id', false)) as string;
    if (id.trim() === '') throw fail(`${base}: meta-data/instance-id is empty`);
    const hostname = await str('local-hostname', true);
    const keys = await str('public-keys', true);
    const x509 = await str('x509', true);
    const userData = await read(`${MAAS_MD_VERSION}/user-data`, true);
    const metadata: Record<string, unknown> = { 'instance-id': id };
    if (hostname !== undefined) metadata['local-hostname'] = hostname;
    if (keys !== undefined) metadata['public-keys'] = keys;
    const data: InstanceData = {
      instanceId: id,
      cloudName: 'maas',
      platform: 'maas',
      subplatform: `metadata (${base})`,
      publicKeys: (keys ?? '').split(/\r\n|\r|\n/).filter((k) => k.trim() !== ''),
      metadata,
    };
    if (hostname) data.localHostname = hostname;
    const network = await curtinNetworkConfig(ctx);
    if (network) data.networkConfig = { format: 'v1', config: network };
    const certs = x509?.match(PEM_CERT);
    if (certs && certs.length > 0) data.certificates = certs;
    if (userData && userData.length > 0) data.userData = userData;
    return data;
  } finally {
    await client.close();
  }
}

export const cloudbaseMaasService: CloudbaseMetadataService = {
  classPath: `${CLOUDBASE_SERVICES_PACKAGE}maasservice.MaaSHttpService`,
  datasource: 'MAAS',
  kind: 'network',
  settings: maasServiceSettings,
  // The [maas] options are always there; MaaSHttpService counts only with a metadata_base_url.
  detect: async (ctx) => {
    const url = sourceSettings(ctx.config, 'MAAS').metadata_url;
    return typeof url === 'string' && url !== '';
  },
  crawl: async (ctx) => {
    const base = ctx.baseUrl ? `${ctx.baseUrl.replace(/\/+$/, '')}/` : text(ctx.settings, 'metadata_url');
    if (!base) throw fail('MaaS metadata url not set ([maas] metadata_base_url)');
    checkUrl(base);
    return crawlMaasHttpService(ctx, base);
  },
};
