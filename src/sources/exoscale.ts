// Exoscale: EC2-style metadata and user data at 169.254.169.254/1.0/, and the VM password from its CloudStack-style
// password server on port 8080 (CloudStack's crawl tail); detected from the DMI product name.
import { HttpClient, HttpError, type HttpRequest } from '../util/http';
import type { ActivateContext, CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { cloudStackStyleInstanceData, crawlCloudStackStyle, type CloudStackStyleCrawl } from './cloudstack';
import { readUrlSettings, type UrlSettings } from './settings';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { waitForEndpoint } from './wait-for-url';

/** cloud-init's: 10 s per request, 6 retries, 120 s to wait for the service. */
export const EXOSCALE_DEFAULTS: UrlSettings = {
  metadataUrls: ['http://169.254.169.254'],
  timeout: 10,
  maxWait: 120,
  retries: 6,
};

/** cloud-init's _is_platform_viable and ds-identify: the DMI product name starts with Exoscale. */
function onExoscale(ctx: DetectContext): boolean {
  return (ctx.dmi.product_name ?? '').startsWith('Exoscale');
}

function stringSetting(settings: Record<string, unknown>, key: string, fallback: string): string {
  const v = settings[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' && typeof v !== 'number')
    throw new SourceError('Exoscale', `datasource.Exoscale.${key} must be a string, not ${JSON.stringify(v)}`);
  return String(v);
}

export const exoscaleSource: Datasource = {
  mock: { kind: 'exoscale', transport: 'http', passwordServer: true },
  name: 'Exoscale',
  kind: 'network',
  async detect(ctx: DetectContext) {
    return onExoscale(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onExoscale(ctx))
      throw new SourceError('Exoscale', `the DMI product name is '${ctx.dmi.product_name ?? ''}', not Exoscale…`);
    // cloud-init's datasource.Exoscale keys: metadata_url, api_version, password_server_port, timeout, retries.
    const given =
      typeof ctx.settings.metadata_url === 'string'
        ? { ...ctx.settings, metadata_urls: [ctx.settings.metadata_url] }
        : ctx.settings;
    const s = readUrlSettings('Exoscale', given, EXOSCALE_DEFAULTS, ctx.baseUrl);
    const api = stringSetting(ctx.settings, 'api_version', '1.0');
    const port = Number(stringSetting(ctx.settings, 'password_server_port', '8080'));
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw new SourceError(
        'Exoscale',
        `datasource.Exoscale.password_server_port must be a port number, not ${JSON.stringify(ctx.settings.password_server_port)}`,
      );
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    try {
      const probe = (u: string, signal: AbortSignal) =>
        client.fetch(`${u}/${api}/meta-data/instance-id`, { ...base, signal });
      const { url } = await waitForEndpoint('Exoscale', s, probe, ctx.log, ctx.signal);
      const crawled = await crawlCloudStackStyle(
        `${url}/${api}/`,
        { ...base, retries: s.retries },
        {
          source: 'Exoscale',
          url: `http://${new URL(url).host.replace(/:\d+$/, '')}:${port}/${api}/`,
          client,
          log: ctx.log,
          timeoutMs: s.timeout * 1000,
          retries: s.retries,
          flavour: 'cloud-init',
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        },
      );
      return exoscaleInstanceData(crawled, api);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('Exoscale', err);
      throw err;
    } finally {
      await client.close();
    }
  },
  /**
   * cloud-init's activate(): set_passwords runs on every boot, so that a password reset in the Exoscale console
   * applies at the next reboot (the password server hands out a password only after such a reset).
   */
  async activate(ctx: ActivateContext) {
    await ctx.rerunModule('set_passwords');
    ctx.log.debug('Exoscale: overriding module set_passwords with frequency always');
  },
};

/**
 * The crawl as cloud-init's DataSourceExoscale keeps it: CloudStack's shape (it has no metadata_address, so its
 * subplatform is 'unknown').
 */
export function exoscaleInstanceData(crawled: CloudStackStyleCrawl, api: string): InstanceData {
  return cloudStackStyleInstanceData(crawled, {
    source: 'Exoscale',
    cloudName: 'exoscale',
    subplatform: 'unknown',
    instanceIdAt: `${api}/meta-data/instance-id`,
  });
}
