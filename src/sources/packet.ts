// Equinix Metal (Packet): cloudbase-init's PacketService, for the Windows face only (cloud-init has no such source):
// `metadata` (JSON) and `userdata` below metadata_base_url.
import { HttpClient, HttpError } from '../util/http';
import type { CrawlContext, Datasource, InstanceData } from './datasource';
import { parseJsonObject } from './json-document';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { readMockText, type HttpMockService, type MockAnswer } from './mock-service';

/** cloudbase-init's [packet] metadata_base_url default. */
export const PACKET_METADATA_BASE_URL = 'https://metadata.packet.net/';

export interface PacketSettings {
  baseUrl: string;
  /** cloudbase-init's retry_count and retry_count_interval (seconds): every failure but a 404 is retried. */
  retries: number;
  retryIntervalS: number;
}

function packetSettings(ctx: CrawlContext): PacketSettings {
  const s = ctx.settings;
  const given = ctx.baseUrl ?? s.metadata_base_url;
  if (given !== undefined && (typeof given !== 'string' || !/^https?:\/\//.test(given)))
    throw new SourceError('Packet', `[packet] metadata_base_url must be an http(s) URL, not ${JSON.stringify(given)}`);
  const n = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
  return {
    baseUrl: ((given as string | undefined) ?? PACKET_METADATA_BASE_URL).replace(/\/*$/, '/'),
    retries: n(s.retry_count, 5),
    retryIntervalS: n(s.retry_count_interval, 4),
  };
}

/**
 * cloudbase-init's get_public_keys: the `ssh_keys` list, each stripped, duplicates dropped (Python's set; kiln keeps
 * the first order).
 */
function packetKeys(md: Record<string, unknown>): string[] {
  const keys = Array.isArray(md.ssh_keys) ? md.ssh_keys : [];
  return [...new Set(keys.filter((k): k is string => typeof k === 'string').map((k) => k.trim()))].filter((k) => k);
}

/**
 * `devel serve-metadata --kind packet`: the folder holds `metadata` (JSON; `{{url}}` in it becomes this server's URL,
 * so `phone_home_url` can be `{{url}}/phone-home`), `userdata` (absent: 404) and `phone-home-key` (the public key the
 * password is encrypted with, answered at `/phone-home/key`). A POST to `/phone-home` is accepted (the password as
 * `{"password": …}`, or an empty body: provisioning done) and recorded by the server with its body.
 */
const packetMock: HttpMockService = {
  kind: 'packet',
  transport: 'http',
  answers: () => ({
    anyMethod: async ({ method, path, files, self, body }): Promise<MockAnswer> => {
      if (method === 'POST')
        return {
          ...(path === '/phone-home' ? { status: 200, body: '' } : { status: 404, body: 'not found\n' }),
          keptBody: await body(1024 * 1024),
        };
      if (method !== 'GET') return { status: 405, body: 'method not allowed\n' };
      if (path === '/metadata') {
        const doc = await readMockText(files, 'metadata');
        return doc !== undefined
          ? { status: 200, body: doc.replaceAll('{{url}}', self), headers: { 'content-type': 'application/json' } }
          : { status: 404, body: 'not found\n' };
      }
      const file = path === '/userdata' ? 'userdata' : path === '/phone-home/key' ? 'phone-home-key' : undefined;
      const found = file ? await files.read(file) : undefined;
      return found ? { status: 200, body: found } : { status: 404, body: 'not found\n' };
    },
  }),
};

export const packetSource: Datasource = {
  mock: packetMock,
  name: 'Packet',
  kind: 'network',
  // cloudbase-init's PacketService has no platform check: its load() is the metadata request, which the runner makes.
  async detect() {
    return false;
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const s = packetSettings(ctx);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const req = {
      retries: s.retries,
      backoffMs: s.retryIntervalS * 1000,
      maxBackoffMs: s.retryIntervalS * 1000,
      retryStatuses: [408, 429, 500, 502, 503, 504],
      timeoutMs: 10_000,
      maxBytes: 16 * 1024 * 1024,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    };
    const metadataUrl = `${s.baseUrl}metadata`;
    try {
      const res = await client.fetch(metadataUrl, req);
      const md = parseJsonObject('Packet', res);
      // A 404 on userdata is "no user data" (cloudbase-init's NotExistingMetadataException).
      const ud = await client.fetch(`${s.baseUrl}userdata`, { ...req, acceptStatuses: [404] });
      return packetInstanceData(md, ud.status === 404 ? undefined : ud.body, metadataUrl);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('Packet', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/**
 * The instance data of the metadata document MD: `id`, `hostname`, `ssh_keys`; `phone_home_url` stays in the metadata
 * for the password post and the provisioning report.
 */
export function packetInstanceData(
  md: Record<string, unknown>,
  userData: Uint8Array | undefined,
  url: string,
): InstanceData {
  const id = md.id;
  if (typeof id !== 'string' || !id) throw new SourceError('Packet', `${url} has no 'id' (the instance id)`);
  const data: InstanceData = {
    instanceId: id,
    cloudName: 'packet',
    platform: 'packet',
    subplatform: `metadata (${url})`,
    publicKeys: packetKeys(md),
    metadata: md,
  };
  if (typeof md.hostname === 'string' && md.hostname) data.localHostname = md.hostname;
  if (userData?.length) data.userData = userData;
  return data;
}
