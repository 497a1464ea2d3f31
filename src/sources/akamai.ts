// Akamai (Linode): the metadata service's token (PUT /v1/token), instance JSON and base64 user data, over IPv6 then
// IPv4, in init-local inside a temporary network or in init; detected from DMI (cloud-init 23.4's DataSourceAkamai).
import { HttpClient, HttpError } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import type { EphemeralUpOptions } from '../net/ephemeral/ephemeral-network';
import { EphemeralNetworkRefused, withEphemeralNetwork } from './ephemeral-lease';
import { normalizePublicKeys } from './public-keys';
import { parseJsonObject } from './json-document';
import { SourceError } from './source-error';
import { randomBytes } from 'node:crypto';
import type { HttpMockService, MockAnswer, MockRequest } from './mock-service';

/** cloud-init's BUILTIN_DS_CONFIG for Akamai. */
const BUILTIN = {
  base_urls: { ipv4: 'http://169.254.169.254', ipv6: 'http://[fd00:a9fe:a9fe::1]' },
  paths: { token: '/v1/token', metadata: '/v1/instance', userdata: '/v1/user-data' },
  allow_local_stage: true,
  allow_init_stage: true,
  allow_dhcp: true,
  allow_ipv4: true,
  allow_ipv6: true,
  preferred_mac_prefixes: ['f2:3'],
};

type AkamaiConfig = typeof BUILTIN;

/** The short flags Akamai may put in the DMI baseboard serial (`als=0;v6=1;…`) and the settings they override. */
const DMI_FLAGS: Record<string, keyof AkamaiConfig> = {
  als: 'allow_local_stage',
  ais: 'allow_init_stage',
  dhcp: 'allow_dhcp',
  v4: 'allow_ipv4',
  v6: 'allow_ipv6',
  pmp: 'preferred_mac_prefixes',
};

/** cloud-init's get_dmi_config: `key=value` pairs separated by `;`; 0/1 are booleans, pmp a comma-separated list. */
export function akamaiDmiConfig(boardSerial: string | undefined): Partial<Record<keyof AkamaiConfig, unknown>> {
  const out: Partial<Record<keyof AkamaiConfig, unknown>> = {};
  for (const m of (boardSerial ?? '').matchAll(/([a-z0-9]+)=(.*?)(;|$)/g)) {
    const key = DMI_FLAGS[m[1] as string];
    if (!key) continue;
    const value = m[2] as string;
    // Python's `value in "01"` is a substring test: '' and '01' count too, and bool(int('')) would raise; only 0 and 1
    // are taken here.
    out[key] =
      value === '0' || value === '1' ? value === '1' : key === 'preferred_mac_prefixes' ? value.split(',') : value;
  }
  return out;
}

/**
 * DMI flags over the system config over the built-in defaults (cloud-init's mergemanydict, nested URL and path maps
 * merged too).
 */
export function akamaiConfig(boardSerial: string | undefined, settings: Record<string, unknown>): AkamaiConfig {
  const dmi = akamaiDmiConfig(boardSerial);
  const nested = (key: 'base_urls' | 'paths') => ({
    ...BUILTIN[key],
    ...(settings[key] && typeof settings[key] === 'object' ? (settings[key] as Record<string, string>) : {}),
  });
  const flag = (key: keyof AkamaiConfig) => {
    const v = dmi[key] ?? settings[key] ?? BUILTIN[key];
    return typeof v === 'boolean' ? v : typeof v === 'string' ? !/^(false|no|off|0|)$/i.test(v) : Boolean(v);
  };
  const pmp = dmi.preferred_mac_prefixes ?? settings.preferred_mac_prefixes;
  return {
    base_urls: nested('base_urls') as AkamaiConfig['base_urls'],
    paths: nested('paths') as AkamaiConfig['paths'],
    allow_local_stage: flag('allow_local_stage'),
    allow_init_stage: flag('allow_init_stage'),
    allow_dhcp: flag('allow_dhcp'),
    allow_ipv4: flag('allow_ipv4'),
    allow_ipv6: flag('allow_ipv6'),
    preferred_mac_prefixes: Array.isArray(pmp) ? pmp.map(String) : BUILTIN.preferred_mac_prefixes,
  };
}

/** cloud-init's is_on_akamai: the DMI system vendor is Linode or Akamai. */
function onAkamai(ctx: DetectContext): boolean {
  return ctx.dmi.sys_vendor === 'Linode' || ctx.dmi.sys_vendor === 'Akamai';
}

/**
 * Python's b64decode without validation: characters outside the alphabet are dropped; bad padding keeps the text as it
 * came.
 */
export function akamaiUserData(raw: Uint8Array, log: CrawlContext['log']): Uint8Array {
  const cleaned = Buffer.from(raw)
    .toString('latin1')
    .replace(/[^A-Za-z0-9+/=]/g, '');
  const body = cleaned.replace(/=+$/, '');
  if (cleaned.length % 4 !== 0 || body.includes('=') || cleaned.length - body.length > 2) {
    log.warn('Akamai: failed to base64 decode the user data (incorrect padding); it is used as it came');
    return raw;
  }
  return Buffer.from(cleaned, 'base64');
}

/** The service answered, but not with a JSON object: as in cloud-init, no other network is tried. */
class AkamaiBadMetadata extends SourceError {}

interface Fetched {
  instance?: Record<string, unknown>;
  userData?: Uint8Array;
}

/** One try of cloud-init's _fetch_metadata at BASE: undefined when a request failed (the next network is tried). */
async function fetchAll(ctx: CrawlContext, cfg: AkamaiConfig, base: string): Promise<Fetched | undefined> {
  const timeoutMs = (typeof ctx.settings.timeout === 'number' ? ctx.settings.timeout : 30) * 1000;
  const tokenRetries = typeof ctx.settings.retries === 'number' ? ctx.settings.retries : 4;
  const common = { timeoutMs, backoffMs: 2000, maxBackoffMs: 2000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  try {
    const tokenRes = await client.fetch(`${base}${cfg.paths.token}`, {
      ...common,
      method: 'PUT',
      retries: tokenRetries,
      retryStatuses: [408, 429, 500, 502, 503, 504],
      headers: { 'Metadata-Token-Expiry-Seconds': '300' },
      maxBytes: 4096,
    });
    if (tokenRes.status !== 200) {
      ctx.log.info(`Akamai: fetching the token returned ${tokenRes.status}; not fetching data`);
      return {};
    }
    const token = tokenRes.text().trim();
    const secret = { secretHeaders: ['Metadata-Token'] };
    const mdUrl = `${base}${cfg.paths.metadata}`;
    const md = await client.fetch(mdUrl, {
      ...common,
      ...secret,
      retries: 2,
      maxBytes: 1024 * 1024,
      headers: { Accept: 'application/json', 'Metadata-Token': token },
    });
    const instance = parseJsonObject(
      (reason, cause) => new AkamaiBadMetadata('Akamai', reason, cause === undefined ? undefined : { cause }),
      md,
    );
    const ud = await client.fetch(`${base}${cfg.paths.userdata}`, {
      ...common,
      ...secret,
      retries: 2,
      maxBytes: 16 * 1024 * 1024,
      headers: { 'Metadata-Token': token },
    });
    return { instance, userData: akamaiUserData(ud.body, ctx.log) };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    ctx.log.warn(`Akamai: failed to retrieve metadata from ${base}: ${err.message}`);
    return undefined;
  } finally {
    await client.close();
  }
}

/**
 * `devel serve-metadata --kind akamai`: the folder holds `v1/instance` and `v1/network` (JSON) and `v1/user-data` (the
 * raw user data, sent base64-encoded as the service does; none: an empty body). PUT /v1/token needs
 * `Metadata-Token-Expiry-Seconds` (1…86400); every other /v1/ path needs a live `Metadata-Token` (401 otherwise).
 */
const akamaiMock: HttpMockService = {
  kind: 'akamai',
  transport: 'http',
  answers: () => {
    /** Tokens the mock gave out, with when each expires (ms since the epoch). */
    const tokens = new Map<string, number>();
    return {
      anyMethod: async (req: MockRequest): Promise<MockAnswer | undefined> => {
        const { path } = req;
        if (path === '/v1/token') {
          if (req.method !== 'PUT') return { status: 405, body: 'use PUT\n' };
          const ttl = Number(req.headers['metadata-token-expiry-seconds'] ?? 3600);
          if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86400)
            return { status: 400, body: 'Metadata-Token-Expiry-Seconds must be 1..86400\n' };
          const token = randomBytes(24).toString('hex');
          tokens.set(token, Date.now() + ttl * 1000);
          return { status: 200, body: token };
        }
        if (!path.startsWith('/v1/')) return undefined;
        const given = req.headers['metadata-token'];
        const expires = typeof given === 'string' ? tokens.get(given) : undefined;
        if (expires === undefined || expires < Date.now())
          return { status: 401, body: 'a valid Metadata-Token is required\n' };
        if (req.method !== 'GET') return { status: 405, body: 'use GET\n' };
        if (path === '/v1/user-data') {
          const ud = await req.files.read('v1/user-data');
          return { status: 200, body: ud ? Buffer.from(ud).toString('base64') : '' };
        }
        if (path === '/v1/instance' || path === '/v1/network') {
          const doc = await req.files.read(path.slice(1));
          return doc
            ? { status: 200, body: doc, headers: { 'content-type': 'application/json' } }
            : { status: 404, body: 'not found\n' };
        }
        return { status: 404, body: 'not found\n' };
      },
    };
  },
};

export const akamaiSource: Datasource = {
  mock: akamaiMock,
  name: 'Akamai',
  kind: 'network',
  async detect(ctx: DetectContext) {
    return onAkamai(ctx);
  },
  // AkamaiLocal: init-local reads the service inside a temporary network when DMI says Akamai.
  async localEvidence(ctx: DetectContext) {
    return onAkamai(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onAkamai(ctx))
      throw new SourceError('Akamai', `the DMI system vendor is '${ctx.dmi.sys_vendor ?? ''}', not Linode or Akamai`);
    const localId = ctx.dmi.product_serial ?? '';
    const cfg = akamaiConfig(ctx.dmi.board_serial, ctx.settings);
    const local = Boolean(ctx.network);
    if ((!cfg.allow_ipv4 && !cfg.allow_ipv6) || (!cfg.allow_local_stage && !cfg.allow_init_stage)) {
      ctx.log.info('Akamai: the configuration prohibits fetching metadata; local data only');
      return akamaiInstanceData(localId, {});
    }
    if (local && !cfg.allow_local_stage)
      throw new EphemeralNetworkRefused(
        'Akamai',
        'the configuration prohibits the local stage (allow_local_stage); left to the init stage',
      );
    if (local && !cfg.allow_dhcp && !cfg.allow_ipv6)
      throw new EphemeralNetworkRefused(
        'Akamai',
        'the configuration allows no temporary network (allow_dhcp and allow_ipv6 are off); left to the init stage',
      );
    if (!local && !cfg.allow_init_stage)
      throw new SourceError('Akamai', 'the configuration prohibits the init stage (allow_init_stage)');
    // cloud-init's network contexts: IPv6 first, then IPv4 (over DHCP in init-local).
    const tries: Array<{ v6: boolean; up?: EphemeralUpOptions }> = [];
    if (cfg.allow_ipv6) tries.push({ v6: true, up: { ipv6: true, ipv4: false } });
    if (cfg.allow_ipv4 && (!local || cfg.allow_dhcp)) tries.push({ v6: false, up: {} });
    for (const t of tries) {
      const base = ctx.baseUrl ?? (t.v6 || !cfg.allow_ipv4 ? cfg.base_urls.ipv6 : cfg.base_urls.ipv4);
      let got: Fetched | undefined;
      try {
        got = await withEphemeralNetwork(ctx.network, () => fetchAll(ctx, cfg, base), t.up);
      } catch (err) {
        if (
          err instanceof EphemeralNetworkRefused ||
          err instanceof AkamaiBadMetadata ||
          !(err instanceof SourceError) ||
          ctx.signal?.aborted
        )
          throw err;
        ctx.log.warn(`Akamai: over IPv${t.v6 ? 6 : 4}: ${err.message}`);
        continue;
      }
      if (got) return akamaiInstanceData(localId, got);
    }
    // As cloud-init: the instance id from DMI is enough to stop a later boot from taking the machine for a new one.
    ctx.log.warn('Akamai: failed to contact the metadata service; falling back to local metadata only');
    return akamaiInstanceData(localId, {});
  },
};

/** The metadata as cloud-init keeps it: the instance JSON, its `id` the instance id (the DMI serial without one). */
export function akamaiInstanceData(localId: string, got: Fetched): InstanceData {
  const md: Record<string, unknown> = got.instance ? { ...got.instance } : {};
  const id = md.id ?? localId;
  if (id === undefined || id === null || String(id) === '')
    throw new SourceError('Akamai', 'neither the metadata service nor DMI (system serial number) gives an instance id');
  md['instance-id'] = id;
  const data: InstanceData = {
    instanceId: String(id),
    cloudName: 'akamai',
    platform: 'akamai',
    // cloud-init's Akamai names no metadata address, so its subplatform is 'unknown'.
    subplatform: 'unknown',
    publicKeys: normalizePublicKeys(md['public-keys']),
    metadata: md,
  };
  if (typeof md.region === 'string' && md.region) data.region = md.region;
  if (got.userData && got.userData.length > 0) data.userData = got.userData;
  return data;
}
