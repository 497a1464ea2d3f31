// cloud-init's OauthUrlHelper: GETs signed with OAuth 1.0a PLAINTEXT, and the clock-skew correction learnt from the
// Date of a 401/403 (kept per host in /run/oauth_skew.json).
import type { Platform } from '../../platform/platform';
import { abortableSleep, HttpError, type HttpClient, type HttpResponse } from '../../util/http';
import { deadlineSignal } from '../../util/timeout-signal';
import type { Log } from '../../util/log';
import { oauthAuthorization, type OAuthCredentials } from './oauth1';
import { describeError } from '../../util/errors';

/** cloud-init's skew_data_file. */
export const OAUTH_SKEW_FILE = '/run/oauth_skew.json';
/**
 * A learnt skew is written to the file only when it moved by more than this many seconds (cloud-init's
 * skew_change_limit).
 */
const SKEW_CHANGE_LIMIT = 5;

export interface OAuthReaderOptions {
  client: HttpClient;
  log: Log;
  /** Undefined: requests go unsigned (cloud-init signs only when the consumer key and token are configured). */
  credentials?: OAuthCredentials;
  /** cloudbase-init sends `realm=""`; cloud-init no realm. */
  realm?: string;
  /**
   * Where learnt skews persist across boots and stages; undefined: kept in memory only (cloudbase-init learns none).
   */
  skewFile?: { platform: Platform; path: string };
  /** false: no correction at all (cloudbase-init's MaaSHttpService has none). */
  correctSkew: boolean;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** The clock, seconds since the epoch (tests move it). */
  now?: () => number;
}

/** One failed GET: the HTTP status when there was one, and why. */
export class OAuthReadError extends Error {
  override readonly name = 'OAuthReadError';
  constructor(
    readonly url: string,
    message: string,
    readonly status?: number,
  ) {
    super(`${url}: ${message}`);
  }
}

/**
 * Signed GETs for one crawl. Each request gets a fresh nonce and a timestamp of now plus the skew known for its
 * host; a 401 or 403 carrying a Date header sets that host's skew to (Date - now), as cloud-init's
 * OauthUrlHelper.exception_cb does, so the next request is signed with the server's idea of the time.
 */
export class OAuthUrlReader {
  private skew: Record<string, number> | undefined;

  constructor(private readonly opts: OAuthReaderOptions) {}

  private now(): number {
    return this.opts.now ? this.opts.now() : Date.now() / 1000;
  }

  /** The skews known so far (read from the skew file on first use), by host:port. */
  async skews(): Promise<Record<string, number>> {
    if (this.skew) return this.skew;
    this.skew = {};
    const file = this.opts.skewFile;
    if (file && this.opts.correctSkew) {
      const text = await file.platform.readTextIfExists(file.path).catch(() => undefined);
      if (text !== undefined) {
        try {
          const parsed: unknown = JSON.parse(text);
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
            for (const [host, v] of Object.entries(parsed))
              if (typeof v === 'number' && Number.isFinite(v)) this.skew[host] = Math.trunc(v);
          }
        } catch {
          // JSON.parse fails only on text that is not JSON, which the warning says
          this.opts.log.warn(`${file.path} is not JSON; starting with no OAuth clock skew`);
        }
      }
    }
    return this.skew;
  }

  /** The headers for one GET of URL (none when unsigned). */
  async headersFor(url: string): Promise<Record<string, string>> {
    const creds = this.opts.credentials;
    if (!creds) return {};
    const host = new URL(url).host;
    const skews = await this.skews();
    // cloud-init: int(time.time()) + skew when a skew is known for the host, else oauthlib's own now.
    const timestamp =
      this.opts.correctSkew && host in skews
        ? Math.trunc(this.now()) + (skews[host] as number)
        : Math.trunc(this.now());
    return {
      Authorization: oauthAuthorization(creds, {
        timestamp,
        ...(this.opts.realm !== undefined ? { realm: this.opts.realm } : {}),
      }),
    };
  }

  /** What cloud-init's exception_cb does with a 401/403 answer: learn the skew from its Date header. */
  async learnSkew(url: string, status: number, dateHeader: string | undefined): Promise<void> {
    if (!this.opts.correctSkew || (status !== 401 && status !== 403)) return;
    if (dateHeader === undefined) {
      this.opts.log.warn(`Missing header 'date' in ${status} response`);
      return;
    }
    const remote = Date.parse(dateHeader);
    if (Number.isNaN(remote)) {
      this.opts.log.warn(`Failed to convert datetime '${dateHeader}'`);
      return;
    }
    const skew = Math.trunc(remote / 1000 - this.now());
    const host = new URL(url).host;
    const skews = await this.skews();
    const old = skews[host] ?? 0;
    if (Math.abs(old - skew) > SKEW_CHANGE_LIMIT) {
      this.opts.log.warn(`Setting oauth clockskew for ${host} to ${skew}`);
      await this.writeSkew(host, skew);
    }
    skews[host] = skew;
  }

  private async writeSkew(host: string, skew: number): Promise<void> {
    const file = this.opts.skewFile;
    if (!file) return;
    let current: Record<string, unknown> = {};
    const text = await file.platform.readTextIfExists(file.path).catch(() => undefined);
    if (text !== undefined) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) current = parsed as Record<string, unknown>;
      } catch {
        /* a broken file is replaced, as cloud-init's json.load failure would leave it unusable anyway */
      }
    }
    current[host] = skew;
    try {
      // Python's json.dumps spacing, so the file reads the same as cloud-init's.
      const text = `{${Object.entries(current)
        .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
        .join(', ')}}`;
      await file.platform.writeFile(file.path, text);
    } catch (err) {
      this.opts.log.warn(`could not record the OAuth clock skew in ${file.path}: ${describeError(err)}`);
    }
  }

  /** One signed GET. 2xx: the response; anything else an OAuthReadError (a 401/403 first teaches the skew). */
  async get(url: string, signal?: AbortSignal): Promise<HttpResponse> {
    const headers = await this.headersFor(url);
    const sig = signal ?? this.opts.signal;
    let res: HttpResponse;
    try {
      res = await this.opts.client.fetch(url, {
        headers,
        secretHeaders: ['Authorization'],
        timeoutMs: this.opts.timeoutMs,
        maxBytes: this.opts.maxBytes,
        acceptStatuses: [401, 403],
        ...(sig ? { signal: sig } : {}),
      });
    } catch (err) {
      if (err instanceof HttpError)
        throw new OAuthReadError(url, `${err.kind}: ${err.message.replace(`${url}: `, '')}`, err.status);
      throw err;
    }
    if (res.status === 401 || res.status === 403) {
      await this.learnSkew(url, res.status, res.headers.date);
      throw new OAuthReadError(
        url,
        `refused with ${res.status} (the OAuth credentials or the clock are wrong)`,
        res.status,
      );
    }
    return res;
  }

  /**
   * cloud-init's wait_for_url over one URL: try, and after each failure sleep int(n/5)+1 seconds (n the round),
   * until it answers or MAX_WAIT seconds have passed; every failure may teach the skew. Resolves with the
   * response, or rejects with the last error when time is up.
   */
  async waitFor(url: string, maxWaitS: number): Promise<HttpResponse> {
    const start = this.now();
    // Like cloud-init, a request never runs past max_wait (it shortens the last timeouts).
    const signal = deadlineSignal(Math.max(1, maxWaitS) * 1000, this.opts.signal);
    let last: unknown;
    for (let round = 0; ; round++) {
      try {
        return await this.get(url, signal);
      } catch (err) {
        if (!(err instanceof OAuthReadError)) throw err;
        // The attempt max_wait cut short says less than the answer before it (a 401, say).
        if (!(signal.aborted && last)) last = err;
        this.opts.log.debug(`Calling '${url}' failed [${Math.trunc(this.now() - start)}/${maxWaitS}s]: ${err.message}`);
      }
      const left = start + maxWaitS - this.now();
      if (left <= 0 || signal.aborted) break;
      const sleepS = Math.min(Math.trunc(round / 5) + 1, left);
      try {
        await abortableSleep(sleepS * 1000, signal);
      } catch {
        break; // abortableSleep fails only when aborted: stop waiting
      }
    }
    throw last instanceof Error ? last : new OAuthReadError(url, 'no answer');
  }
}
