// The MAAS metadata service as `devel serve-metadata --kind maas` answers it: every request must carry a valid OAuth
// 1.0a PLAINTEXT signature with a fresh nonce and a timestamp near the server's (possibly wrong) clock.
import { timingSafeEqual } from 'node:crypto';
import type { HttpMockService, MockAnswer, MockRequest } from '../mock-service';
import { parseOAuthAuthorization, plaintextSignature } from './oauth1';
import { describeError } from '../../util/errors';

/** The folder's oauth.json: the credentials the service expects, and how its clock is off. */
interface MaasMockAuth {
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

const MAAS_AUTH_FILE = 'oauth.json';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The rules of one mock server (they remember nonces): undefined lets the request through to the tree;
 * otherwise a 401 with the server's Date, as MAAS answers a bad or stale signature. Without oauth.json
 * requests need no signature. oauth.json itself is never served.
 */
function maasRequestRules(): (req: MockRequest) => Promise<MockAnswer | undefined> {
  const seenNonces = new Set<string>();
  return async (req) => {
    if (req.path.replace(/^\/+/, '') === MAAS_AUTH_FILE) return { status: 404, body: 'not found\n' };
    const text = await req.files.read(MAAS_AUTH_FILE);
    if (text === undefined) return undefined;
    let auth: MaasMockAuth;
    try {
      auth = JSON.parse(Buffer.from(text).toString('utf8')) as MaasMockAuth;
    } catch (err) {
      return { status: 500, body: `the mock's ${MAAS_AUTH_FILE} is unreadable: ${describeError(err)}\n` };
    }
    const serverNow = Math.trunc(Date.now() / 1000) + (auth.clock_offset ?? 0);
    const date = new Date(serverNow * 1000).toUTCString();
    const refuse = (why: string): MockAnswer => ({
      status: 401,
      body: `Authorization Error: ${why}\n`,
      headers: { date, 'www-authenticate': 'OAuth realm="OAuth"' },
    });
    const header = req.headers.authorization;
    if (typeof header !== 'string') return refuse('no Authorization header');
    const parsed = parseOAuthAuthorization(header);
    if (!parsed) return refuse('the Authorization header is not OAuth');
    const p = parsed.params;
    if (auth.realm !== undefined && parsed.realm !== auth.realm)
      return refuse(`realm ${JSON.stringify(parsed.realm)} is not ${JSON.stringify(auth.realm)}`);
    if (p.oauth_version !== undefined && p.oauth_version !== '1.0') return refuse(`oauth_version ${p.oauth_version}`);
    if (p.oauth_signature_method !== 'PLAINTEXT')
      return refuse(`signature method ${p.oauth_signature_method ?? 'missing'} (PLAINTEXT expected)`);
    if (!same(p.oauth_consumer_key ?? '', auth.consumer_key)) return refuse('unknown consumer key');
    if (!same(p.oauth_token ?? '', auth.token_key)) return refuse('unknown token');
    if (!same(p.oauth_signature ?? '', plaintextSignature(auth.consumer_secret ?? '', auth.token_secret)))
      return refuse('invalid signature');
    const nonce = p.oauth_nonce;
    if (!nonce) return refuse('no nonce');
    const ts = Number(p.oauth_timestamp);
    if (!/^\d+$/.test(p.oauth_timestamp ?? '') || Math.abs(ts - serverNow) > (auth.max_skew ?? 300))
      return refuse(`timestamp ${p.oauth_timestamp ?? 'missing'} is too far from the server's ${serverNow}`);
    if (seenNonces.has(`${ts}:${nonce}`)) return refuse('nonce already used');
    seenNonces.add(`${ts}:${nonce}`);
    return undefined;
  };
}

export const maasMock: HttpMockService = {
  kind: 'maas',
  transport: 'http',
  answers: () => ({ anyMethod: maasRequestRules() }),
};
