// The MAAS metadata service's rules for the mock: every request must carry a valid OAuth 1.0a PLAINTEXT signature with a fresh nonce and a timestamp near the server's (possibly wrong) clock.
import { timingSafeEqual } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { posix } from 'node:path';
import { parseOAuthAuthorization, plaintextSignature } from '../sources/maas/oauth1';
import type { KindAnswer } from './hetzner';

/** ROOT/oauth.json: the credentials the service expects, and how its clock is off. */
export interface MaasMockAuth {
  consumer_key: string;
  consumer_secret?: string;
  token_key: string;
  token_secret: string;
  /** Seconds the server's clock is ahead of the real one (negative: behind); its Date headers say so. */
  clock_offset?: number;
  /** How far a request's oauth_timestamp may be from the server's clock, in seconds (default 300, MAAS's). */
  max_skew?: number;
  /** When set, the header must carry exactly this realm (cloudbase-init sends realm=""). */
  realm?: string;
}

export const MAAS_AUTH_FILE = 'oauth.json';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The rules of one mock server (they remember nonces): undefined lets the request through to the tree;
 * otherwise a 401 with the server's Date, as MAAS answers a bad or stale signature. Without ROOT/oauth.json
 * requests need no signature. oauth.json itself is never served.
 */
export function maasRequestRules(): (root: string, req: IncomingMessage, path: string) => Promise<KindAnswer | undefined> {
  const seenNonces = new Set<string>();
  return async (root, req, path) => {
    if (path.replace(/^\/+/, '') === MAAS_AUTH_FILE) return { status: 404, body: 'not found\n' };
    let auth: MaasMockAuth;
    try {
      auth = JSON.parse(await fsp.readFile(posix.join(root, MAAS_AUTH_FILE), 'utf8')) as MaasMockAuth;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      return { status: 500, body: `the mock's ${MAAS_AUTH_FILE} is unreadable: ${(err as Error).message}\n` };
    }
    const serverNow = Math.trunc(Date.now() / 1000) + (auth.clock_offset ?? 0);
    const date = new Date(serverNow * 1000).toUTCString();
    const refuse = (why: string): KindAnswer => ({ status: 401, body: `Authorization Error: ${why}\n`, headers: { date, 'www-authenticate': 'OAuth realm="OAuth"' } });
    const header = req.headers.authorization;
    if (typeof header !== 'string') return refuse('no Authorization header');
    const parsed = parseOAuthAuthorization(header);
    if (!parsed) return refuse('the Authorization header is not OAuth');
    const p = parsed.params;
    if (auth.realm !== undefined && parsed.realm !== auth.realm) return refuse(`realm ${JSON.stringify(parsed.realm)} is not ${JSON.stringify(auth.realm)}`);
    if (p.oauth_version !== undefined && p.oauth_version !== '1.0') return refuse(`oauth_version ${p.oauth_version}`);
    if (p.oauth_signature_method !== 'PLAINTEXT') return refuse(`signature method ${p.oauth_signature_method ?? 'missing'} (PLAINTEXT expected)`);
    if (!same(p.oauth_consumer_key ?? '', auth.consumer_key)) return refuse('unknown consumer key');
    if (!same(p.oauth_token ?? '', auth.token_key)) return refuse('unknown token');
    if (!same(p.oauth_signature ?? '', plaintextSignature(auth.consumer_secret ?? '', auth.token_secret))) return refuse('invalid signature');
    const nonce = p.oauth_nonce;
    if (!nonce) return refuse('no nonce');
    const ts = Number(p.oauth_timestamp);
    if (!/^\d+$/.test(p.oauth_timestamp ?? '') || Math.abs(ts - serverNow) > (auth.max_skew ?? 300)) return refuse(`timestamp ${p.oauth_timestamp ?? 'missing'} is too far from the server's ${serverNow}`);
    if (seenNonces.has(`${ts}:${nonce}`)) return refuse('nonce already used');
    seenNonces.add(`${ts}:${nonce}`);
    return undefined;
  };
}
