// Scaleway's user and vendor data API: answered only to a client whose source port is below 1024 (only root can bind
// one), tried port after port as cloud-init's query_data_api does.
import { abortableSleep, HttpClient, HttpError } from '../../util/http';
import type { Log } from '../../util/log';
import { SourceError } from '../source-error';

export interface DataApiOptions {
  log: Log;
  timeoutMs: number;
  /** cloud-init's `retries`: ports 1 … max(retries, 2) - 1 are tried, one request each. */
  retries: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** Pause after a failed try (cloud-init: 5 s); tests shorten it. */
  pauseMs?: number;
  /** The first source port to try (default 1); see `nextPort` in the answer. */
  firstPort?: number;
}

/** The data (undefined: none set) and the port after the one used, where the next query should start. */
export interface DataApiAnswer {
  data: Uint8Array | undefined;
  nextPort: number;
}

/**
 * Errors that say the source port is taken here (or still in TIME_WAIT towards this server), not that the server
 * failed.
 */
const LOCAL_PORT_CODES = new Set(['EADDRINUSE', 'EADDRNOTAVAIL']);

/**
 * The bytes at URL, or undefined when Scaleway answers 404 (no user or vendor data set). Each try binds the
 * next privileged port (1, 2, …) as its source port: a refusal, a 429 or a 5xx moves on to the next one after a
 * pause, as cloud-init does, and a port taken here at once; running out of ports is a SourceError with the last
 * reason. Unlike cloud-init, a second query starts after the port the first one used: that connection's
 * TIME_WAIT would otherwise cost a try and a pause.
 */
export async function queryPrivilegedDataApi(
  what: 'user-data' | 'vendor-data',
  url: string,
  opts: DataApiOptions,
): Promise<DataApiAnswer> {
  let last = 'no port was tried';
  const first = opts.firstPort ?? 1;
  const lastPort = first - 1 + Math.max(opts.retries, 2);
  for (let port = first; port < lastPort; port++) {
    if (opts.signal?.aborted) break;
    opts.log.debug(`Scaleway: getting ${what} from ${url} (source port ${port})`);
    const client = new HttpClient({ log: opts.log, localPort: port, ...(opts.env ? { env: opts.env } : {}) });
    try {
      const res = await client.fetch(url, {
        timeoutMs: opts.timeoutMs,
        acceptStatuses: [404],
        maxBytes: 16 * 1024 * 1024,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return { data: res.status === 404 ? undefined : res.body, nextPort: port + 1 };
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const code = (err.cause as { code?: string } | undefined)?.code ?? '';
      if (LOCAL_PORT_CODES.has(code)) {
        // Another port at once: the server was not reached, so there is nothing to wait out.
        last = `source port ${port} is in use here (${code})`;
        opts.log.debug(`Scaleway: ${last}; trying the next one`);
        continue;
      }
      last =
        code === 'EACCES' || /EACCES/.test(err.message)
          ? `binding source port ${port} was refused (EACCES): only root may bind a port below 1024`
          : err.message;
      opts.log.warn(`Scaleway: error getting ${what} (source port ${port}): ${last}`);
    } finally {
      await client.close();
    }
    if (port + 1 < lastPort) await abortableSleep(opts.pauseMs ?? 5000, opts.signal).catch(() => undefined);
  }
  throw new SourceError(
    'Scaleway',
    `reading the ${what} from ${url} failed on source ports ${first}…${lastPort - 1}: ${last}`,
  );
}
