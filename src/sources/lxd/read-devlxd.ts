// Reads LXD's devlxd API over /dev/lxd/sock as cloud-init's DataSourceLXD read_metadata does: meta-data, config keys,
// devices.
import { abortableSleep, HttpError, type HttpClient, type HttpRequest, type HttpResponse } from '../../util/http';
import type { Log } from '../../util/log';
import { SourceError } from '../source-error';

/** The host part of every devlxd URL: the socket is the address, the name only fills the Host header. */
export const LXD_URL = 'http://lxd';
export const LXD_API_VERSION = '1.0';

/**
 * Config keys promoted to user data, vendor data and network config; cloud-init.* ones win over the older user.* ones.
 */
export const CONFIG_KEY_ALIASES: Readonly<Record<string, 'user-data' | 'vendor-data' | 'network-config'>> = {
  'cloud-init.user-data': 'user-data',
  'cloud-init.network-config': 'network-config',
  'cloud-init.vendor-data': 'vendor-data',
  'user.user-data': 'user-data',
  'user.network-config': 'network-config',
  'user.vendor-data': 'vendor-data',
};

/** What one crawl of the socket gave, in cloud-init's _crawled_metadata shape (raw texts, as LXD served them). */
export interface DevLxdCrawl {
  _metadata_api_version: string;
  'meta-data': string;
  /** Every config key the instance exposes, by its name (`user.foo`, `cloud-init.user-data` …), raw text. */
  config: Record<string, string>;
  'user-data'?: string;
  'vendor-data'?: string;
  'network-config'?: string;
  /** /1.0/devices (name → device), when LXD has that API. */
  devices?: Record<string, unknown>;
}

export interface DevLxdRequestOptions {
  client: HttpClient;
  log: Log;
  /** Per request timeout and the crawl's budget (signal). */
  base: HttpRequest;
  /** Retries of an HTTP 500 answer (LXD answers 500 while the instance's config is not ready yet). */
  retries: number;
}

/** Every error status: answered, not thrown, so the caller decides (config keys are skipped, meta-data is required). */
const ERROR_STATUSES = Array.from({ length: 200 }, (_, i) => 400 + i);

/**
 * GET ROUTE (an absolute path like /1.0/meta-data); HTTP 500 is asked again every 0.1 s, RETRIES times, as newer
 * cloud-init does.
 */
async function get(opts: DevLxdRequestOptions, route: string): Promise<HttpResponse> {
  const url = `${LXD_URL}${route}`;
  for (let left = opts.retries; ; left--) {
    const res = await opts.client.fetch(url, { ...opts.base, acceptStatuses: ERROR_STATUSES });
    if (res.status !== 500 || left <= 0) {
      opts.log.debug(`[GET] [HTTP:${res.status}] ${url}`);
      return res;
    }
    opts.log.warn(`[GET] [HTTP:500] ${url}, retrying ${left} more time(s)`);
    try {
      await abortableSleep(100, opts.base.signal);
    } catch (err) {
      throw new HttpError(url, 'budget', 'the total wait budget ran out (last answer: HTTP 500)', 500, { cause: err });
    }
  }
}

function ok(res: HttpResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

function parseJson(res: HttpResponse, route: string): unknown {
  try {
    return JSON.parse(res.text());
  } catch {
    throw new SourceError(
      'LXD',
      `unable to process LXD config at ${LXD_URL}${route}: expected JSON but found: ${res.text().slice(0, 200)}`,
    );
  }
}

/** meta-data (required), every config key, and the devices, as cloud-init 22.4 and newer read them. */
export async function readDevLxd(opts: DevLxdRequestOptions): Promise<DevLxdCrawl> {
  const version = `/${LXD_API_VERSION}`;
  const metaRoute = `${version}/meta-data`;
  const meta = await get(opts, metaRoute);
  if (!ok(meta))
    throw new SourceError(
      'LXD',
      `invalid HTTP response [${meta.status}] from ${LXD_URL}${metaRoute}: ${meta.text().trim().slice(0, 200)}`,
    );
  const crawl: DevLxdCrawl = { _metadata_api_version: LXD_API_VERSION, 'meta-data': meta.text(), config: {} };

  const configRoute = `${version}/config`;
  const listing = await get(opts, configRoute);
  if (!ok(listing))
    throw new SourceError(
      'LXD',
      `invalid HTTP response [${listing.status}] from ${LXD_URL}${configRoute}: ${listing.text().trim().slice(0, 200)}`,
    );
  const routes = parseJson(listing, configRoute);
  if (!Array.isArray(routes) || !routes.every((r) => typeof r === 'string'))
    throw new SourceError(
      'LXD',
      `${LXD_URL}${configRoute} must list config routes (a JSON list of strings), not ${listing.text().slice(0, 200)}`,
    );
  // Sorted, so cloud-init.* keys come before user.* ones and take the alias first (cloud-init's precedence).
  for (const route of [...(routes as string[])].sort()) {
    const path = route.startsWith('/') ? route : `/${route}`;
    const res = await get(opts, path);
    if (!ok(res)) {
      opts.log.debug(`Skipping ${LXD_URL}${path} on [HTTP:${res.status}]:${res.text()}`);
      continue;
    }
    const key = path.slice(path.lastIndexOf('/') + 1);
    const value = res.text();
    crawl.config[key] = value;
    const alias = CONFIG_KEY_ALIASES[key];
    if (alias === undefined) continue;
    if (crawl[alias] === undefined) crawl[alias] = value;
    else opts.log.warn(`Ignoring LXD config ${key} in favor of ${key.replace('user', 'cloud-init')} value.`);
  }

  // An LXD without the devices API answers 404: newer cloud-init skips it (22.4 failed the whole crawl).
  const devicesRoute = `${version}/devices`;
  const devices = await get(opts, devicesRoute);
  if (ok(devices)) {
    const doc = parseJson(devices, devicesRoute);
    if (!doc || typeof doc !== 'object' || Array.isArray(doc))
      throw new SourceError(
        'LXD',
        `${LXD_URL}${devicesRoute} must be a JSON object of devices, not ${devices.text().slice(0, 200)}`,
      );
    crawl.devices = doc as Record<string, unknown>;
  } else {
    opts.log.debug(`Skipping ${LXD_URL}${devicesRoute} on [HTTP:${devices.status}]:${devices.text()}`);
  }
  return crawl;
}

/** An HTTP failure on the socket as the SourceError a person can act on. */
export function devLxdFailure(err: unknown, socket: string): unknown {
  if (!(err instanceof HttpError)) return err;
  const why =
    err.kind === 'budget' ? 'the wait budget ran out' : err.kind === 'timeout' ? 'no answer in time' : err.kind;
  return new SourceError('LXD', `${why} on ${socket}: ${err.message}`, { cause: err });
}
