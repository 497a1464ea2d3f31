// CloudCIX: JSON metadata and user data at http://169.254.169.254/v1/, read in the init (network) stage on machines
// whose DMI product name is CloudCIX (newer cloud-init's DataSourceCloudCIX).
import { abortableSleep, HttpClient, HttpError, type HttpResponse } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { maybeBase64Decode } from './hetzner/hetzner';
import { normalizePublicKeys } from './public-keys';
import { readUrlSettings } from './settings';
import { parseJsonObject } from './json-document';
import { SourceError } from './source-error';
import { waitForEndpoint } from './wait-for-url';
import { describeError } from '../util/errors';

const BASE = 'http://169.254.169.254';
/** The highest metadata version cloud-init knows; it tries each from there down to v1. */
const METADATA_VERSION = 1;
const MAX_BODY = 4 * 1024 * 1024;

/**
 * cloud-init's: url_timeout 10 s (CloudCIX's own url_timeout_seconds is a name its base class never reads),
 * 3 retries 5 s apart for each document, and url_max_wait -1, so the service is probed once.
 */
const DEFAULTS = { timeout: 10, retries: 3, secBetween: 5, maxWait: -1 };

function onCloudCix(ctx: DetectContext): boolean {
  return ctx.dmi.product_name === 'CloudCIX';
}

function num(settings: Record<string, unknown>, key: string, fallback: number): number {
  const v = settings[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n))
    throw new SourceError('CloudCIX', `datasource.CloudCIX.${key} must be a number, not ${JSON.stringify(v)}`);
  return n;
}

export const cloudCixSource: Datasource = {
  mock: { kind: 'cloudcix', transport: 'http' },
  name: 'CloudCIX',
  kind: 'network',
  async detect(ctx: DetectContext) {
    return onCloudCix(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onCloudCix(ctx))
      throw new SourceError('CloudCIX', `the DMI product name is '${ctx.dmi.product_name ?? ''}', not CloudCIX`);
    const s = ctx.settings;
    const timeout = num(s, 'timeout', DEFAULTS.timeout);
    const retries = Math.max(0, Math.trunc(num(s, 'retries', DEFAULTS.retries)));
    const secBetween = num(s, 'sec_between_retries', DEFAULTS.secBetween);
    const maxWait = num(s, 'max_wait', DEFAULTS.maxWait);
    // The probe's rounds are bounded by max_wait alone (the retries setting is for each document).
    const urls = {
      ...readUrlSettings('CloudCIX', s, { metadataUrls: [BASE], timeout, maxWait, retries: 0 }, ctx.baseUrl),
      retries: 0,
    };
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const get = (url: string, signal?: AbortSignal): Promise<HttpResponse> =>
      client.fetch(url, {
        timeoutMs: timeout * 1000,
        maxBytes: MAX_BODY,
        ...((signal ?? ctx.signal) ? { signal: (signal ?? ctx.signal) as AbortSignal } : {}),
      });
    // cloud-init's readurl: every failure (a 404 too) is retried RETRIES times, SEC_BETWEEN seconds apart.
    const readWithRetries = async (url: string): Promise<HttpResponse> => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await get(url);
        } catch (err) {
          if (!(err instanceof HttpError) || attempt >= retries) throw err;
          ctx.log.debug(`CloudCIX: ${describeError(err)}; trying again in ${secBetween} s`);
          await abortableSleep(secBetween * 1000, ctx.signal);
        }
      }
    };
    try {
      // determine_md_url: the service answers at all (one round unless max_wait says more), then the highest version
      // with metadata.
      let base: string;
      try {
        base = (
          await waitForEndpoint(
            'CloudCIX',
            urls,
            async (u, signal) => {
              await get(u, signal);
              return u;
            },
            ctx.log,
            ctx.signal,
          )
        ).url;
      } catch (err) {
        throw new SourceError('CloudCIX', `Could not determine metadata URL: ${describeError(err)}`, { cause: err });
      }
      let mdUrl: string | undefined;
      for (let v = METADATA_VERSION; v > 0; v--) {
        try {
          await get(`${base}/v${v}/metadata`);
          mdUrl = `${base}/v${v}`;
          break;
        } catch (err) {
          ctx.log.debug(`CloudCIX: URL ${base}/v${v}/metadata raised exception ${describeError(err)}`);
        }
      }
      if (!mdUrl)
        throw new SourceError(
          'CloudCIX',
          `Could not determine metadata URL: no metadata at ${base}/v${METADATA_VERSION}/metadata`,
        );
      const read = async (leaf: string): Promise<HttpResponse> => {
        try {
          return await readWithRetries(`${mdUrl}/${leaf}`);
        } catch (err) {
          throw new SourceError('CloudCIX', `Failed to fetch IMDS ${leaf}: ${mdUrl}/${leaf}: ${describeError(err)}`, {
            cause: err,
          });
        }
      };
      const mdRes = await read('metadata');
      const md = parseJsonObject('CloudCIX', mdRes);
      const userData = maybeBase64Decode((await read('userdata')).body);
      return cloudCixInstanceData(md, userData);
    } finally {
      await client.close();
    }
  },
};

/**
 * The metadata as cloud-init keeps it: instance id, host name and keys by cloud-init's generic keys, `network` as the
 * network config.
 */
export function cloudCixInstanceData(md: Record<string, unknown>, userData: Uint8Array): InstanceData {
  const id = md['instance-id'];
  const data: InstanceData = {
    // cloud-init's base get_instance_id: its magic value when the metadata has no 'instance-id'.
    instanceId: id === undefined || id === null || String(id) === '' ? 'iid-datasource' : String(id),
    cloudName: 'cloudcix',
    platform: 'cloudcix',
    // DataSourceCloudCIX has no metadata_address, so cloud-init's subplatform is METADATA_UNKNOWN.
    subplatform: 'unknown',
    publicKeys: normalizePublicKeys(md['public-keys']),
    metadata: md,
  };
  const host = md['local-hostname'];
  if (typeof host === 'string' && host) data.localHostname = host;
  if (userData.length > 0) data.userData = userData;
  const net = md.network;
  if (net && typeof net === 'object' && !Array.isArray(net))
    data.networkConfig = { format: (net as Record<string, unknown>).version === 1 ? 'v1' : 'v2', config: net };
  return data;
}
