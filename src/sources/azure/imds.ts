// Azure's instance metadata service: /metadata/instance with `Metadata: true`, extended api-version first and the
// minimum on HTTP 400, cloud-init's retries.
import { HttpError, type HttpClient } from '../../util/http';
import type { Log } from '../../util/log';
import { describeError } from '../../util/errors';

export const IMDS_VERSION_WANT = '2021-08-01';
export const IMDS_VERSION_MIN = '2019-06-01';
/** What cloud-init retries: not found or gone (yet), throttled, server error; other codes end the attempt. */
export const IMDS_RETRY_STATUSES = [404, 410, 429, 500];

export interface ImdsOptions {
  client: HttpClient;
  log: Log;
  /** 'http://169.254.169.254' or a mock's URL. */
  baseUrl: string;
  timeoutMs: number;
  retries: number;
  /** The crawl's budget: every attempt and every wait between them. */
  signal?: AbortSignal;
}

/** Why IMDS gave nothing, for the log and the error a crawl without OVF ends with. */
export interface ImdsResult {
  metadata?: Record<string, unknown>;
  error?: string;
}

async function fetchJson(opts: ImdsOptions, version: string): Promise<Record<string, unknown>> {
  const url = `${opts.baseUrl}/metadata/instance?api-version=${version}${version >= '2021-03-01' ? '&extended=true' : ''}`;
  const res = await opts.client.fetch(url, {
    headers: { Metadata: 'true' },
    timeoutMs: opts.timeoutMs,
    retries: opts.retries,
    retryStatuses: IMDS_RETRY_STATUSES,
    // cloud-init waits a second between attempts.
    backoffMs: 1000,
    maxBackoffMs: 1000,
    maxRedirects: 0,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  let doc: unknown;
  try {
    doc = JSON.parse(res.text());
  } catch (err) {
    throw new HttpError(url, 'status', `the answer is not JSON (${describeError(err)})`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new HttpError(url, 'status', 'the answer is not a JSON object');
  return doc as Record<string, unknown>;
}

/**
 * The IMDS document, or why there is none. As cloud-init: api-version 2021-08-01 with extended=true first,
 * 2019-06-01 when that answers 400 (an older IMDS); any other failure leaves the crawl to the OVF alone.
 */
export async function fetchImds(opts: ImdsOptions): Promise<ImdsResult> {
  opts.log.info(`Azure: reading IMDS api-version ${IMDS_VERSION_WANT}`);
  try {
    return { metadata: await fetchJson(opts, IMDS_VERSION_WANT) };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    if (err.status !== 400) {
      opts.log.warn(`Azure: ignoring IMDS: ${err.message}`);
      return { error: err.message };
    }
  }
  opts.log.info(`Azure: IMDS refused ${IMDS_VERSION_WANT} (HTTP 400); falling back to api-version ${IMDS_VERSION_MIN}`);
  try {
    return { metadata: await fetchJson(opts, IMDS_VERSION_MIN) };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    opts.log.warn(`Azure: ignoring IMDS: ${err.message}`);
    return { error: err.message };
  }
}
