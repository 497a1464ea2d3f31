// OAuth 1.0a (RFC 5849) Authorization headers with the PLAINTEXT signature, built as oauthlib's Client.sign builds them
// for cloud-init and cloudbase-init.
import { randomBytes } from 'node:crypto';

export interface OAuthCredentials {
  consumerKey: string;
  consumerSecret: string;
  tokenKey: string;
  tokenSecret: string;
}

export interface OAuthSignOptions {
  /**
   * Seconds since the epoch as sent in oauth_timestamp; default now (cloud-init adds its clock-skew correction here).
   */
  timestamp?: number;
  /** Default: oauthlib's generate_nonce, a random 64-bit decimal number followed by the current time. */
  nonce?: string;
  /**
   * oauthlib writes `realm="…"` first, unescaped, when a realm is truthy: cloudbase-init passes an empty one
   * (its `_Realm("")`) and so sends `realm=""`; cloud-init passes none.
   */
  realm?: string;
}

/**
 * RFC 5849 section 3.6 percent-encoding (oauthlib's `escape`: Python's quote with only `~` added to the safe
 * letters, digits and `_.-`): UTF-8 bytes, every other byte as %XX with upper-case hex.
 */
export function oauthEscape(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * RFC 5849 section 3.4.4: the PLAINTEXT signature, the two escaped secrets joined by '&' (present even when both are
 * empty).
 */
export function plaintextSignature(consumerSecret: string, tokenSecret: string): string {
  return `${oauthEscape(consumerSecret)}&${oauthEscape(tokenSecret)}`;
}

/** oauthlib's generate_nonce: str(randbits(64)) + str(int(time.time())). */
export function generateNonce(nowSeconds = Math.floor(Date.now() / 1000)): string {
  return `${randomBytes(8).readBigUInt64BE().toString()}${nowSeconds}`;
}

/**
 * The Authorization header value for one GET, parameter for parameter in oauthlib's order (nonce, timestamp,
 * version, signature method, consumer key, token, signature), each name and value escaped (the signature is
 * so escaped twice, as oauthlib does), joined by ', ' after 'OAuth '. An empty token key leaves oauth_token out.
 */
export function oauthAuthorization(creds: OAuthCredentials, opts: OAuthSignOptions = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const params: Array<[string, string]> = [
    ['oauth_nonce', opts.nonce ?? generateNonce(now)],
    ['oauth_timestamp', String(opts.timestamp ?? now)],
    ['oauth_version', '1.0'],
    ['oauth_signature_method', 'PLAINTEXT'],
    ['oauth_consumer_key', creds.consumerKey],
  ];
  if (creds.tokenKey) params.push(['oauth_token', creds.tokenKey]);
  params.push(['oauth_signature', plaintextSignature(creds.consumerSecret, creds.tokenSecret)]);
  const parts = params.map(([k, v]) => `${oauthEscape(k)}="${oauthEscape(v)}"`).join(', ');
  return `OAuth ${opts.realm !== undefined ? `realm="${opts.realm}", ` : ''}${parts}`;
}

/** One parsed Authorization header: its realm (when sent) and its oauth_* parameters, unescaped. */
export interface ParsedOAuthHeader {
  realm?: string;
  params: Record<string, string>;
}

/**
 * Reads an `OAuth k="v", …` header back (for the mock service that checks signatures); undefined when it is not one.
 */
export function parseOAuthAuthorization(header: string): ParsedOAuthHeader | undefined {
  const m = /^OAuth\s+(.*)$/is.exec(header.trim());
  if (!m) return undefined;
  const params: Record<string, string> = {};
  let realm: string | undefined;
  const re = /\s*([A-Za-z0-9_]+)="([^"]*)"\s*(?:,|$)/gy;
  const body = m[1] as string;
  let pos = 0;
  while (pos < body.length) {
    re.lastIndex = pos;
    const p = re.exec(body);
    if (!p) return undefined;
    pos = re.lastIndex;
    const [, name, raw] = p as unknown as [string, string, string];
    if (name === 'realm') realm = raw;
    else {
      try {
        params[decodeURIComponent(name)] = decodeURIComponent(raw);
      } catch {
        return undefined; // a bad percent-escape: not a header this parses
      }
    }
  }
  return { ...(realm !== undefined ? { realm } : {}), params };
}
