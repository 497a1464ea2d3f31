// The Akamai (Linode) metadata service's rules for the mock: a token from PUT /v1/token, then /v1/instance, /v1/network (JSON) and /v1/user-data (base64) only with that token.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { posix } from 'node:path';
import type { KindAnswer } from './hetzner';

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    return (await fsp.stat(path)).isFile() ? await fsp.readFile(path) : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens the mock gave out, with when each expires (ms since the epoch). */
export type AkamaiTokens = Map<string, number>;

/**
 * ROOT holds `v1/instance` and `v1/network` (JSON) and `v1/user-data` (the raw user data, sent base64-encoded as
 * the service does; none: an empty body). PUT /v1/token needs `Metadata-Token-Expiry-Seconds` (1…86400); every
 * other /v1/ path needs a live `Metadata-Token` (401 otherwise).
 */
export async function akamaiAnswer(root: string, req: IncomingMessage, path: string, tokens: AkamaiTokens): Promise<KindAnswer | undefined> {
  if (path === '/v1/token') {
    if (req.method !== 'PUT') return { status: 405, body: 'use PUT\n' };
    const ttl = Number(req.headers['metadata-token-expiry-seconds'] ?? 3600);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86400) return { status: 400, body: 'Metadata-Token-Expiry-Seconds must be 1..86400\n' };
    const token = randomBytes(24).toString('hex');
    tokens.set(token, Date.now() + ttl * 1000);
    return { status: 200, body: token };
  }
  if (!path.startsWith('/v1/')) return undefined;
  const given = req.headers['metadata-token'];
  const expires = typeof given === 'string' ? tokens.get(given) : undefined;
  if (expires === undefined || expires < Date.now()) return { status: 401, body: 'a valid Metadata-Token is required\n' };
  if (req.method !== 'GET') return { status: 405, body: 'use GET\n' };
  if (path === '/v1/user-data') {
    const ud = await readIfFile(posix.join(root, 'v1/user-data'));
    return { status: 200, body: ud ? ud.toString('base64') : '' };
  }
  if (path === '/v1/instance' || path === '/v1/network') {
    const doc = await readIfFile(posix.join(root, path.slice(1)));
    return doc ? { status: 200, body: doc, headers: { 'content-type': 'application/json' } } : { status: 404, body: 'not found\n' };
  }
  return { status: 404, body: 'not found\n' };
}
