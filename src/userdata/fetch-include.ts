// Fetching `#include` URLs: http(s) only, with a time limit and a size cap (undici).
import type { Dispatcher } from 'undici';
import { loadUndici } from '../util/load-undici';
import { describeError } from '../util/errors';

/** Fetches one include URL; resolves with the body or throws an Error whose message says why. */
export type FetchInclude = (url: string) => Promise<Uint8Array>;

export interface FetchIncludeOptions {
  /** Milliseconds for the whole request (connect, headers, body); default 10 s. */
  timeoutMs?: number;
  /** Largest body accepted; default 16 MiB. */
  maxBytes?: number;
  /** Redirects followed; default 5. */
  maxRedirects?: number;
}

/** The default include fetcher: GET with a deadline, a size cap, and a clear error for non-2xx answers. */
export function httpIncludeFetcher(opts: FetchIncludeOptions = {}): FetchInclude {
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  const maxRedirects = opts.maxRedirects ?? 5;
  return async (url: string) => {
    let current = url;
    for (let hop = 0; ; hop++) {
      let parsed: URL;
      try {
        parsed = new URL(current);
      } catch {
        throw new Error(`'${current}' is not a URL`);
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        throw new Error(`only http and https URLs can be included, not ${parsed.protocol}`);
      const signal = AbortSignal.timeout(timeoutMs);
      let res: Dispatcher.ResponseData;
      try {
        res = await (await loadUndici()).request(current, {
          method: 'GET',
          signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (err) {
        throw new Error(signal.aborted ? `no answer within ${timeoutMs} ms` : `request failed: ${describeError(err)}`);
      }
      if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location) {
        await res.body.dump();
        if (hop >= maxRedirects) throw new Error(`more than ${maxRedirects} redirects`);
        current = new URL(String(res.headers.location), current).toString();
        continue;
      }
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump();
        throw new Error(`HTTP ${res.statusCode}`);
      }
      const declared = Number(res.headers['content-length'] ?? NaN);
      if (declared > maxBytes) {
        res.body.destroy();
        throw new Error(`body of ${declared} bytes exceeds the ${maxBytes}-byte limit`);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      try {
        for await (const chunk of res.body) {
          total += (chunk as Buffer).length;
          if (total > maxBytes) {
            res.body.destroy();
            throw new Error(`body exceeds the ${maxBytes}-byte limit`);
          }
          chunks.push(chunk as Buffer);
        }
      } catch (err) {
        if (/byte limit/.test(describeError(err))) throw err;
        throw new Error(
          signal.aborted
            ? `body not complete within ${timeoutMs} ms`
            : `reading the body failed: ${describeError(err)}`,
        );
      }
      return Buffer.concat(chunks);
    }
  };
}
