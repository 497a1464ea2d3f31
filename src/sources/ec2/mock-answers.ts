// EC2's IMDS as `devel serve-metadata --kind ec2` answers it: the folder as a metadata tree (key folders named '0=name'
// answer as '0/'), behind IMDSv2's token rules; AliYun's hardened mode has the same rules under its own header names.
import { randomBytes } from 'node:crypto';
import type { HttpMockService, MockAnswer, MockOptions, MockRequest } from '../mock-service';

/** The IMDSv2 header names: the token's, and its lifetime's on the PUT that asks for one. */
export interface MockTokenHeaders {
  header: string;
  ttlHeader: string;
}

/**
 * One server's token rules: PUT /latest/api/token hands out a token; a request with a token needs a live one; OPTS say
 * whether one is needed at all.
 */
function tokenRules(opts: MockOptions, names: MockTokenHeaders): (req: MockRequest) => Promise<MockAnswer | undefined> {
  const tokens = new Map<string, { uses: number; expires: number }>();
  const [TOKEN_HEADER, TTL_HEADER] = [names.header.toLowerCase(), names.ttlHeader.toLowerCase()];
  return async (req) => {
    const mode = opts.imdsv2 ?? 'optional';
    if (req.path === '/latest/api/token') {
      if (req.method !== 'PUT') return { status: 405, body: 'use PUT\n' };
      if (mode === 'disabled') return { status: 403, body: 'IMDSv2 is disabled\n' };
      if (req.headers['x-forwarded-for']) return { status: 403, body: 'forwarded requests are refused\n' };
      const ttl = Number(req.headers[TTL_HEADER]);
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > 21600)
        return { status: 400, body: `${TTL_HEADER} must be 1..21600\n` };
      const token = randomBytes(24).toString('base64url');
      tokens.set(token, { uses: 0, expires: Date.now() + ttl * 1000 });
      return { status: 200, body: token };
    }
    const given = req.headers[TOKEN_HEADER];
    if (typeof given === 'string') {
      const t = tokens.get(given);
      if (!t || t.expires < Date.now() || (opts.tokenUses !== undefined && t.uses >= opts.tokenUses))
        return { status: 401, body: 'token expired or unknown\n' };
      t.uses++;
      return undefined;
    }
    if (mode === 'required') return { status: 401, body: 'a token is required (IMDSv2)\n' };
    return undefined;
  };
}

/** The mock of an EC2-style IMDS whose tokens go by NAMES, served as --kind KIND. */
export function imdsMock(kind: string, names: MockTokenHeaders, note?: string): HttpMockService {
  return {
    kind,
    transport: 'http',
    ...(note ? { note } : {}),
    keyNamedFolders: true,
    imdsv2: true,
    answers: (opts) => ({ anyMethod: tokenRules(opts, names) }),
  };
}
