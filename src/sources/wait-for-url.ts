// cloud-init's wait_for_url: race every candidate endpoint, round after round, until one answers or max_wait runs out.
import { abortableSleep, HttpError, type HttpClient } from '../util/http';
import { timeoutSignal } from '../util/timeout-signal';
import type { Log } from '../util/log';
import { SourceError } from './source-error';
import type { UrlSettings } from './settings';
import { describeError } from '../util/errors';

/** Tries one base URL; resolves with what the caller needs (a token, a version …) or throws. */
export type EndpointProbe<T> = (baseUrl: string, signal: AbortSignal) => Promise<T>;

/**
 * Returns the first base URL whose probe succeeds (all are tried at once each round; the first answer wins).
 * As cloud-init's wait_for_url, rounds go on until `maxWait` seconds have passed (a fleet riding out a 429/503
 * storm must not give up after a count of refusals); only with no `maxWait` (0 or less) does `retries` bound
 * them. Waits between rounds back off exponentially with jitter, and everything stops with the caller's signal.
 */
export async function waitForEndpoint<T>(
  source: string,
  settings: UrlSettings,
  probe: EndpointProbe<T>,
  log: Log,
  parent?: AbortSignal,
): Promise<{ url: string; value: T }> {
  const budget = settings.maxWait > 0 ? timeoutSignal(settings.maxWait * 1000) : undefined;
  const signal =
    budget && parent ? AbortSignal.any([budget, parent]) : (budget ?? parent ?? new AbortController().signal);
  const errors: string[] = [];
  const started = Date.now();
  let refused = false;
  const lastRound = budget ? Number.POSITIVE_INFINITY : Math.max(0, settings.retries);
  for (let round = 0; round <= lastRound; round++) {
    if (signal.aborted) break;
    const roundCtl = new AbortController();
    const roundSignal = AbortSignal.any([signal, roundCtl.signal]);
    const attempts = settings.metadataUrls.map((url) =>
      probe(url, roundSignal).then(
        (value) => ({ url, value }),
        (err: unknown) => {
          throw Object.assign(new Error(describeError(err)), { url, final: !isTransient(err) });
        },
      ),
    );
    try {
      const won = await Promise.any(attempts);
      roundCtl.abort();
      await Promise.allSettled(attempts);
      log.debug(`${source}: using metadata source '${won.url}' after ${Date.now() - started} ms`);
      return won;
    } catch (err) {
      const all = err instanceof AggregateError ? err.errors : [err];
      for (const e of all) errors.push(describeError(e));
      // A definite refusal (e.g. a 4xx that retrying cannot change) is as final as a success.
      if (all.every((e) => (e as { final?: boolean }).final)) {
        refused = true;
        break;
      }
    }
    if (round < lastRound) {
      try {
        await abortableSleep(Math.min(1000 * 2 ** Math.min(round, 10), 5000) * (0.5 + Math.random() / 2), signal);
      } catch {
        break; // abortableSleep fails only when aborted: stop waiting
      }
    }
  }
  const why = refused
    ? 'refused (an answer retrying cannot change)'
    : budget?.aborted
      ? `no answer within max_wait ${settings.maxWait} s`
      : parent?.aborted
        ? 'the stage wait budget ran out'
        : `no answer after ${settings.retries + 1} rounds`;
  throw new SourceError(
    source,
    `${why} from ${settings.metadataUrls.join(', ')}; last errors: ${errors.slice(-settings.metadataUrls.length).join('; ')}`,
  );
}

/** True for errors worth another round (network trouble, timeouts, 5xx); 4xx answers are final. */
export function isTransient(err: unknown): boolean {
  if (!(err instanceof HttpError)) return false;
  if (err.kind === 'status')
    return err.status === undefined || err.status >= 500 || err.status === 429 || err.status === 408;
  return err.kind !== 'redirect' && err.kind !== 'too-large';
}

export function withHttpClient<T>(client: HttpClient, fn: (c: HttpClient) => Promise<T>): Promise<T> {
  return fn(client).finally(() => client.close());
}
