// Reads a write_files entry's `source: {uri, headers}` as newer cloud-init's read_url_or_decode does: http(s) through
// kiln's client, file:// and bare paths from the target.
import { HttpClient, abortableSleep } from '../../util/http';
import { isRecord } from './config-shapes';
import type { ModuleContext } from '../module';

/** cloud-init's arbitrary defaults for the download: 3 retries, 3 seconds apart. */
const SOURCE_RETRIES = 3;
const SECONDS_BETWEEN = 3;
/** One attempt's limit: cloud-init sets none; a dead server must still not hang the boot forever. */
const ATTEMPT_TIMEOUT_MS = 30_000;
/** write_files writes what it fetches in one piece; larger downloads belong to a script, not the cloud-config. */
const MAX_SOURCE_BYTES = 64 * 1024 * 1024;

export interface SourceFetchOptions {
  /** The wait between attempts (tests shorten it). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The `uri` of a `source` mapping, or undefined when there is none (or it is empty, which cloud-init ignores). */
export function sourceUri(source: unknown): string | undefined {
  if (!isRecord(source)) return undefined;
  const uri = source.uri;
  return typeof uri === 'string' && uri ? uri : undefined;
}

function sourceHeaders(source: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (isRecord(source.headers))
    for (const [k, v] of Object.entries(source.headers)) if (v !== undefined && v !== null) headers[k] = String(v);
  return headers;
}

/**
 * The bytes at the entry's source URI (read_file_or_url: `/path` and file:// read the target's file once, other
 * schemes are fetched with the headers, retried). Throws with the reason when it cannot be read.
 */
export async function readWriteFileSource(
  ctx: ModuleContext,
  source: Record<string, unknown>,
  uri: string,
  opts: SourceFetchOptions = {},
): Promise<Uint8Array> {
  const fileUrl = uri.startsWith('/') ? `file://${uri}` : uri;
  if (/^file:\/\//i.test(fileUrl)) return ctx.platform.readFile(decodeURIComponent(fileUrl.slice('file://'.length)));
  const client = new HttpClient({
    log: ctx.log,
    env: process.env,
    sleep: opts.sleep ?? abortableSleep,
    random: () => 1,
  });
  try {
    const res = await client.fetch(uri, {
      headers: sourceHeaders(source),
      retries: SOURCE_RETRIES,
      backoffMs: SECONDS_BETWEEN * 1000,
      maxBackoffMs: SECONDS_BETWEEN * 1000,
      // readurl retries every failure, not only the transient ones.
      retryStatuses: Array.from({ length: 200 }, (_, i) => 400 + i),
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      maxBytes: MAX_SOURCE_BYTES,
      anyHostRedirects: true,
    });
    return res.body;
  } finally {
    await client.close();
  }
}
