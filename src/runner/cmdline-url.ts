// The kernel command line's `cloud-config-url=` (or the older `url=`): fetched before the init stages read their config
// and kept as a cloud.cfg.d file when it is cloud-config, as cloud-init's attempt_cmdline_url does (MAAS's ephemeral
// environment is configured that way).
import { SYSTEM_CONFIG_DIR } from '../config/load-system-config';
import type { Platform } from '../platform/platform';
import { HttpClient, HttpError } from '../util/http';
import type { Log } from '../util/log';
import { describeError } from '../util/errors';

/** Where the fetched cloud-config is kept; the stage then reads it with the rest of cloud.cfg.d. */
export const KERNEL_CMDLINE_URL_CFG = `${SYSTEM_CONFIG_DIR}/91_kernel_cmdline_url.cfg`;

const HEADER = '#cloud-config';

export interface CmdlineUrl {
  /** The key that gave it: `cloud-config-url`, or the deprecated `url`. */
  key: 'cloud-config-url' | 'url';
  url: string;
}

/**
 * The URL the command line names: whitespace-separated words, `key=value` split at the first '=', a later word
 * overriding an earlier one with the same key (cloud-init's keyval_str_to_dict); `cloud-config-url` wins over `url`.
 * A bare `url` word (no '=') names nothing.
 */
export function parseCmdlineUrl(cmdline: string): CmdlineUrl | undefined {
  const values = new Map<string, string | undefined>();
  for (const word of cmdline.split(/\s+/).filter(Boolean)) {
    const eq = word.indexOf('=');
    if (eq < 0) values.set(word, undefined);
    else values.set(word.slice(0, eq), word.slice(eq + 1));
  }
  for (const key of ['cloud-config-url', 'url'] as const) {
    if (!values.has(key)) continue;
    const url = values.get(key);
    return url === undefined ? undefined : { key, url };
  }
  return undefined;
}

export interface CmdlineUrlOutcome {
  /** How loudly cloud-init reports it (its early log's level). */
  level: 'DEBUG' | 'INFO' | 'WARNING';
  message: string;
  /** The cloud.cfg.d file was (re)written: the config must be read again. */
  wrote: boolean;
}

export interface CmdlineUrlOptions {
  platform: Platform;
  log: Log;
  cmdline: string;
  /** The init stage (true) or init-local (false): only how loudly a failure is reported and the pause between tries. */
  network: boolean;
  /** Proxy variables for the request. */
  env?: NodeJS.ProcessEnv;
  /** Tests shorten the pauses between tries. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Every 4xx and 5xx: cloud-init's readurl retries any failed request, not only the usual transient ones. */
const EVERY_ERROR_STATUS = Array.from({ length: 200 }, (_, i) => 400 + i);

/**
 * What the URL holds: a file in the root (`file://…` or an absolute path), or an HTTP(S) answer (10 s a try, 3 tries).
 */
async function fetchContent(
  o: CmdlineUrlOptions,
  url: string,
  local: boolean,
): Promise<{ ok: true; body: Uint8Array } | { ok: false; why: string }> {
  if (local) {
    const path = url.startsWith('/') ? url : url.slice('file://'.length);
    try {
      return { ok: true, body: await o.platform.readFile(path) };
    } catch (err) {
      return { ok: false, why: describeError(err) };
    }
  }
  const client = new HttpClient({
    log: o.log,
    ...(o.env ? { env: o.env } : {}),
    ...(o.sleep ? { sleep: o.sleep } : {}),
  });
  try {
    // cloud-init waits 1 s between tries in the network stage (and for local files), 0.1 s in init-local.
    const pause = o.network ? 1000 : 100;
    const res = await client.fetch(url, {
      timeoutMs: 10_000,
      retries: 2,
      backoffMs: pause,
      maxBackoffMs: pause,
      retryStatuses: EVERY_ERROR_STATUS,
      anyHostRedirects: true,
    });
    return { ok: true, body: res.body };
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, why: err.message };
    throw err;
  } finally {
    await client.close();
  }
}

/**
 * Fetches the command line's URL and writes it to KERNEL_CMDLINE_URL_CFG (mode 0600) when it starts with
 * `#cloud-config`; a network URL is fetched again in each init stage, a local file only while the cloud.cfg.d file
 * is missing. Nothing here fails the stage: every outcome is a message to log.
 */
export async function attemptCmdlineUrl(o: CmdlineUrlOptions): Promise<CmdlineUrlOutcome> {
  const found = parseCmdlineUrl(o.cmdline);
  if (!found) return { level: 'DEBUG', message: 'No kernel command line url found.', wrote: false };
  const { key, url } = found;
  const local = url.startsWith('file://') || url.startsWith('/');
  if (local && (await o.platform.exists(KERNEL_CMDLINE_URL_CFG))) {
    const when = o.network ? 'possibly from local stage download' : 'possibly from previous boot download';
    return {
      level: o.network ? 'DEBUG' : 'WARNING',
      message: `file '${KERNEL_CMDLINE_URL_CFG}' existed, ${when} of command line url '${url}'. Not re-writing.`,
      wrote: false,
    };
  }
  const failLevel = o.network || local ? 'WARNING' : 'DEBUG';
  if (!local && !/^https?:\/\//i.test(url))
    return { level: failLevel, message: `retrieving url '${url}' failed: not an http(s) URL or a file`, wrote: false };
  const got = await fetchContent(o, url, local);
  if (!got.ok) return { level: failLevel, message: `retrieving url '${url}' failed: ${got.why}`, wrote: false };
  if (!Buffer.from(got.body.subarray(0, HEADER.length)).equals(Buffer.from(HEADER))) {
    return {
      level: key === 'cloud-config-url' ? 'WARNING' : 'INFO',
      message: `contents of '${url}' did not start with b'${HEADER}'`,
      wrote: false,
    };
  }
  if (key === 'url')
    o.log.warn(
      'DEPRECATED: `url` kernel command line key is deprecated for providing cloud-config via URL. Please use `cloud-config-url` kernel command line parameter instead',
    );
  await o.platform.writeFile(KERNEL_CMDLINE_URL_CFG, got.body, { mode: 0o600 });
  return {
    level: 'INFO',
    message: `wrote cloud-config data from ${key}='${url}' to ${KERNEL_CMDLINE_URL_CFG}`,
    wrote: true,
  };
}
