// HTTP for metadata services: per-request timeouts, a total budget, backoff with jitter, bounded bodies, same-host
// redirects only.
import type { Agent, Dispatcher } from 'undici';
import { loadUndici } from './load-undici';
import { describeError, KilnError } from './errors';
import type { Log } from './log';
import { timeoutSignal } from './timeout-signal';

export type HttpFailure = 'timeout' | 'budget' | 'status' | 'too-large' | 'truncated' | 'redirect' | 'network';

/** A request that did not produce a usable answer; `kind` says why, `status` is set for HTTP error codes. */
export class HttpError extends KilnError {
  override readonly name = 'HttpError';
  constructor(
    readonly url: string,
    readonly kind: HttpFailure,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(`${url}: ${message}`, options);
  }
}

export interface HttpResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
  text(): string;
}

export interface HttpRequest {
  method?: 'GET' | 'PUT' | 'HEAD' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Milliseconds for one attempt (connect, headers and body). Default 10 s. */
  timeoutMs?: number;
  /** Aborts every attempt and every wait between them: the caller's total budget. */
  signal?: AbortSignal;
  /** Attempts after the first, for network errors, timeouts and retryable statuses. Default 0. */
  retries?: number;
  /** First backoff delay in ms; doubled each retry, with full jitter, capped by maxBackoffMs. Default 250. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Statuses worth retrying. Default 408, 429, 500, 502, 503, 504. */
  retryStatuses?: number[];
  /** Largest body accepted, in bytes. Default 4 MiB. */
  maxBytes?: number;
  /** Same-host redirects followed. Default 5. */
  maxRedirects?: number;
  /** Follows redirects to other http(s) hosts too (a user's own download URL, not metadata). Default false. */
  anyHostRedirects?: boolean;
  /**
   * Statuses returned instead of thrown (e.g. 404 for optional files, 401 for token refresh). Default none: only 2xx.
   */
  acceptStatuses?: number[];
  /** Header names whose values never reach logs (tokens). */
  secretHeaders?: string[];
}

const DEFAULT_RETRY_STATUSES = [408, 429, 500, 502, 503, 504];

/** Link-local and loopback hosts: never sent through a proxy (cloud-init's metadata addresses are link-local). */
export function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.startsWith('127.') ||
    h.startsWith('169.254.') ||
    h === '::1' ||
    h.startsWith('fe80:') ||
    h.startsWith('fd00:ec2:') ||
    h.endsWith('.internal') ||
    h === 'instance-data' ||
    h === 'instance-data.'
  );
}

export interface HttpClientOptions {
  log: Log;
  /** Proxy variables (http_proxy, https_proxy, no_proxy); used only for hosts that are not link-local. */
  env?: NodeJS.ProcessEnv;
  /** Sleeps between retries (tests may shorten them); honours the signal. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  /**
   * A unix socket every request goes to (LXD's /dev/lxd/sock): the URL's host only names the service, no proxy
   * applies, and no TCP connection is made.
   */
  socketPath?: string;
  /**
   * The local TCP port every connection is made from (Scaleway's user data answers only to a privileged source
   * port, proof that root asks); one connection at a time, since each needs that port.
   */
  localPort?: number;
}

/** One client per crawl: holds its connection pools; call close() when done so no socket keeps the process alive. */
export class HttpClient {
  private direct: Agent | undefined;
  private proxied: Dispatcher | undefined;
  private readonly log: Log;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly opts: HttpClientOptions) {
    this.log = opts.log;
    this.sleep = opts.sleep ?? abortableSleep;
    this.random = opts.random ?? Math.random;
  }

  private dispatcherFor(url: URL, { Agent, EnvHttpProxyAgent }: Awaited<ReturnType<typeof loadUndici>>): Dispatcher {
    if (this.opts.socketPath !== undefined) {
      this.direct ??= new Agent({
        keepAliveTimeout: 2000,
        connections: 8,
        connect: { socketPath: this.opts.socketPath },
      });
      return this.direct;
    }
    const env = this.opts.env ?? {};
    const hasProxy = Boolean(env.http_proxy || env.HTTP_PROXY || env.https_proxy || env.HTTPS_PROXY);
    if (hasProxy && !isLocalHost(url.hostname)) {
      this.proxied ??= new EnvHttpProxyAgent({
        ...(env.http_proxy || env.HTTP_PROXY ? { httpProxy: (env.http_proxy || env.HTTP_PROXY) as string } : {}),
        ...(env.https_proxy || env.HTTPS_PROXY ? { httpsProxy: (env.https_proxy || env.HTTPS_PROXY) as string } : {}),
        ...(env.no_proxy || env.NO_PROXY ? { noProxy: (env.no_proxy || env.NO_PROXY) as string } : {}),
      });
      return this.proxied;
    }
    // No TCP keepalive: undici sets it with setKeepAlive() before the socket connects, which makes every
    // connect fail with UNKNOWN under wine (wine 8); each request has its own timeout, so probes add nothing.
    const port = this.opts.localPort;
    this.direct ??= new Agent({
      keepAliveTimeout: 2000,
      connections: port === undefined ? 8 : 1,
      connect: { keepAlive: false, ...(port === undefined ? {} : { localPort: port }) },
    });
    return this.direct;
  }

  async close(): Promise<void> {
    const closing: Array<Promise<void>> = [];
    if (this.direct) closing.push(this.direct.destroy());
    if (this.proxied) closing.push(this.proxied.destroy());
    this.direct = undefined;
    this.proxied = undefined;
    await Promise.allSettled(closing);
  }

  /** Sends REQ to URL, retrying as asked; resolves with a 2xx (or accepted) response or throws HttpError. */
  async fetch(url: string, req: HttpRequest = {}): Promise<HttpResponse> {
    const retries = req.retries ?? 0;
    const base = req.backoffMs ?? 250;
    const cap = req.maxBackoffMs ?? 5000;
    const retryStatuses = req.retryStatuses ?? DEFAULT_RETRY_STATUSES;
    let last: HttpError | undefined;
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (req.signal?.aborted) throw budgetError(url, last);
      try {
        return await this.fetchFollowingRedirects(url, req);
      } catch (err) {
        if (!(err instanceof HttpError)) throw err;
        last = err;
        const retryable =
          err.kind === 'timeout' ||
          err.kind === 'network' ||
          err.kind === 'truncated' ||
          (err.kind === 'status' && err.status !== undefined && retryStatuses.includes(err.status));
        if (!retryable || attempt === retries) throw err;
        const delay = Math.round(this.random() * Math.min(cap, base * 2 ** attempt));
        this.log.debug(`[${attempt + 1}/${retries + 1}] ${err.message}; retrying in ${delay} ms`);
        try {
          await this.sleep(delay, req.signal);
        } catch {
          throw budgetError(url, last);
        }
      }
    }
    throw last ?? new HttpError(url, 'network', 'no attempt was made');
  }

  private async fetchFollowingRedirects(url: string, req: HttpRequest): Promise<HttpResponse> {
    const maxRedirects = req.maxRedirects ?? 5;
    let current = new URL(url);
    const seen = new Set<string>();
    for (let hop = 0; ; hop++) {
      const res = await this.once(current, req);
      if (res.status < 300 || res.status >= 400 || res.status === 304) {
        if ((res.status >= 200 && res.status < 300) || req.acceptStatuses?.includes(res.status)) return res;
        throw new HttpError(current.href, 'status', `HTTP ${res.status}`, res.status);
      }
      const location = res.headers.location;
      if (!location)
        throw new HttpError(current.href, 'redirect', `HTTP ${res.status} without a Location header`, res.status);
      const next = new URL(location, current);
      const allowed = req.anyHostRedirects
        ? next.protocol === 'http:' || next.protocol === 'https:'
        : next.host === current.host && next.protocol === current.protocol;
      if (!allowed) {
        throw new HttpError(
          url,
          'redirect',
          `refused redirect to another host (${next.protocol}//${next.host}); metadata must come from the host asked`,
        );
      }
      if (seen.has(next.href) || hop >= maxRedirects)
        throw new HttpError(
          url,
          'redirect',
          `redirect loop or more than ${maxRedirects} redirects (last to ${next.pathname})`,
        );
      seen.add(current.href);
      current = next;
    }
  }

  private async once(url: URL, req: HttpRequest): Promise<HttpResponse> {
    const timeoutMs = req.timeoutMs ?? 10_000;
    const maxBytes = req.maxBytes ?? 4 * 1024 * 1024;
    const timer = timeoutSignal(timeoutMs);
    const signal = req.signal ? AbortSignal.any([timer, req.signal]) : timer;
    const why = (err: unknown): HttpError => {
      if (req.signal?.aborted)
        return new HttpError(url.href, 'budget', 'the total wait budget ran out', undefined, { cause: err });
      if (timer.aborted)
        return new HttpError(url.href, 'timeout', `no complete answer within ${timeoutMs} ms`, undefined, {
          cause: err,
        });
      if (err instanceof HttpError) return err;
      const code = (err as { code?: string }).code ?? '';
      const text = describeError(err);
      if (
        code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' ||
        code === 'UND_ERR_SOCKET' ||
        /other side closed|terminated|aborted/i.test(text)
      ) {
        const truncated =
          code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH' || code === 'UND_ERR_SOCKET' || /closed|terminated/.test(text);
        return new HttpError(
          url.href,
          truncated ? 'truncated' : 'network',
          truncated ? `body ended early: connection dropped (${text})` : `connection failed (${text})`,
          undefined,
          { cause: err },
        );
      }
      return new HttpError(url.href, 'network', text, undefined, { cause: err });
    };
    const headers = { ...req.headers };
    this.log.debug(`[${req.method ?? 'GET'}] ${url.href}${describeHeaders(headers, req.secretHeaders)}`);
    const undici = await loadUndici();
    let res: Dispatcher.ResponseData;
    try {
      res = await undici.request(url, {
        method: req.method ?? 'GET',
        headers,
        ...(req.body !== undefined ? { body: req.body } : {}),
        signal,
        dispatcher: this.dispatcherFor(url, undici),
      });
    } catch (err) {
      throw why(err);
    }
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers))
      if (v !== undefined) flat[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
    const declared = flat['content-length'] !== undefined ? Number(flat['content-length']) : undefined;
    if (declared !== undefined && declared > maxBytes) {
      // Nobody reads the body: without a listener its abort error would surface as an uncaught exception.
      res.body.on('error', () => undefined);
      res.body.destroy();
      throw new HttpError(
        url.href,
        'too-large',
        `body of ${declared} bytes is over the ${maxBytes}-byte limit`,
        res.statusCode,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        size += buf.length;
        if (size > maxBytes) {
          res.body.on('error', () => undefined);
          res.body.destroy();
          throw new HttpError(url.href, 'too-large', `body is over the ${maxBytes}-byte limit`, res.statusCode);
        }
        chunks.push(buf);
      }
    } catch (err) {
      throw why(err);
    }
    if (declared !== undefined && size !== declared && req.method !== 'HEAD') {
      throw new HttpError(url.href, 'truncated', `body ended after ${size} of ${declared} bytes`, res.statusCode);
    }
    const body = new Uint8Array(Buffer.concat(chunks));
    return {
      url: url.href,
      status: res.statusCode,
      headers: flat,
      body,
      text: () => Buffer.from(body).toString('utf8'),
    };
  }
}

function budgetError(url: string, last: HttpError | undefined): HttpError {
  return new HttpError(
    url,
    'budget',
    `the total wait budget ran out${last ? ` (last error: ${last.message})` : ''}`,
    last?.status,
    { cause: last },
  );
}

function describeHeaders(headers: Record<string, string>, secret: string[] | undefined): string {
  const names = Object.keys(headers);
  if (names.length === 0) return '';
  const hidden = new Set((secret ?? []).map((s) => s.toLowerCase()));
  return ` headers: ${names.map((n) => `${n}: ${hidden.has(n.toLowerCase()) ? 'REDACTED' : headers[n]}`).join(', ')}`;
}

/** Resolves after MS, or rejects as soon as SIGNAL aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
