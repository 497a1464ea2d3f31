// GCE: the Google Compute Engine metadata server (computeMetadata/v1 with `Metadata-Flavor: Google`), for cloud-init's
// GCE/GCELocal; cloudbase-init's GCEService (cloudbase-gce-service.ts) shares its readers.
import { HttpClient, HttpError, type HttpRequest } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, HostKey, InstanceData, PublishContext } from './datasource';
import { defaultUserName } from './default-user';
import { crawlOnEachNic, gceCandidateNics } from './gce-primary-nic';
import { cloudInitKeyLines, cloudInitPublicKeys, type GceAttributes } from './gce-ssh-keys';
import { parseJsonObject } from './json-document';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { readUrlSettings, type UrlSettings } from './settings';
import { waitForEndpoint } from './wait-for-url';
import type { HttpMockService, MockAnswer, MockFiles, MockRequest } from './mock-service';

/** cloud-init's MD_V1_URL (and cloudbase-init's [gce] metadata_base_url default). */
export const GCE_METADATA_URL = 'http://metadata.google.internal/computeMetadata/v1/';
const V1_PATH = 'computeMetadata/v1/';
export const GCE_HEADERS = { 'Metadata-Flavor': 'Google' };
/** cloud-init reads each key with 5 retries (url_retries) and a 10 s timeout; kiln also bounds the whole wait. */
export const GCE_DEFAULTS: UrlSettings = { metadataUrls: [GCE_METADATA_URL], timeout: 10, maxWait: 60, retries: 5 };

/**
 * cloud-init's platform_reports_gce: DMI product name `Google Compute Engine` or `Google`, or a serial starting
 * with `GoogleCloud-` (the product name is not always there, LP: #1674861).
 */
export function platformReportsGce(dmi: Record<string, string>): boolean {
  const product = (dmi.product_name ?? '').trim();
  if (product === 'Google Compute Engine' || product === 'Google') return true;
  return (dmi.product_serial ?? '').trim().startsWith('GoogleCloud-');
}

/**
 * The v1 base URL (ending in '/'): a test's server root gets `computeMetadata/v1/`; else `metadata_url` or the default.
 */
export function gceMetadataUrl(settings: Record<string, unknown>, baseUrl?: string): string {
  if (baseUrl) {
    const root = baseUrl.replace(/\/+$/, '');
    return root.endsWith('/computeMetadata/v1') ? `${root}/` : `${root}/${V1_PATH}`;
  }
  const given = settings.metadata_url;
  if (given !== undefined && (typeof given !== 'string' || !/^https?:\/\//.test(given)))
    throw new SourceError('GCE', `datasource.GCE.metadata_url must be an http(s) URL, not ${JSON.stringify(given)}`);
  const url = typeof given === 'string' ? given : GCE_METADATA_URL;
  return url.endsWith('/') ? url : `${url}/`;
}

/** One crawl's view of the metadata server: every request carries the header, 404 means "not there". */
export class GceMetadata {
  constructor(
    private readonly client: HttpClient,
    readonly url: string,
    private readonly base: HttpRequest,
    private readonly retries: number,
  ) {}

  /** GET PATH below the v1 URL; undefined for 404. */
  async get(path: string): Promise<Uint8Array | undefined> {
    const res = await this.client.fetch(`${this.url}${path}`, {
      ...this.base,
      headers: { ...GCE_HEADERS },
      retries: this.retries,
      acceptStatuses: [404],
    });
    return res.status === 404 ? undefined : res.body;
  }

  async text(path: string): Promise<string | undefined> {
    const b = await this.get(path);
    return b === undefined ? undefined : Buffer.from(b).toString('utf8');
  }

  /**
   * A required text key: its absence means this is no GCE metadata server (cloud-init's "required key … returned
   * nothing").
   */
  async required(key: string, path: string): Promise<string> {
    const v = await this.text(path);
    if (v === undefined)
      throw new SourceError('GCE', `required key ${key} (${this.url}${path}) returned nothing: not GCE`);
    return v;
  }

  /** A folder read with `?recursive=True` as a JSON object, or {} when the server has none (404). */
  async attributes(path: string): Promise<{ raw: string | undefined; value: GceAttributes }> {
    const raw = await this.text(`${path}/?recursive=True`);
    if (raw === undefined) return { raw, value: {} };
    return {
      raw,
      value: parseJsonObject('GCE', { text: raw, where: `${this.url}${path}/?recursive=True` }) as GceAttributes,
    };
  }
}

/**
 * `user-data` decoded by `user-data-encoding` (base64, or none); another encoding is warned about and the text kept, as
 * both agents do.
 */
export function userDataOf(attrs: GceAttributes, warn: (m: string) => void): Uint8Array | undefined {
  const ud = attrs['user-data'];
  if (typeof ud !== 'string') return undefined;
  const encoding = attrs['user-data-encoding'];
  if (encoding === 'base64') return Buffer.from(ud, 'base64');
  if (typeof encoding === 'string' && encoding) warn(`GCE: unknown user-data-encoding: ${encoding}, ignoring`);
  return Buffer.from(ud, 'utf8');
}

const MOCK_V1 = '/computeMetadata/v1/';
const MOCK_FLAVOR = { 'metadata-flavor': 'Google' };

/** A folder as GCE's recursive JSON: files as strings, subfolders as objects. */
async function mockFolderJson(files: MockFiles, dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const { name, folder } of (await files.list(dir)) ?? []) {
    const p = dir ? `${dir}/${name}` : name;
    out[name] = folder ? await mockFolderJson(files, p) : Buffer.from((await files.read(p)) ?? []).toString('utf8');
  }
  return out;
}

/**
 * `devel serve-metadata --kind gce` answers as GCE's server does: 403 without `Metadata-Flavor: Google` (or with
 * X-Forwarded-For), the folder served below /computeMetadata/v1/, folders listed one name a line (subfolders with '/'),
 * and `?recursive=true` (any case, as cloud-init sends `True`) answering a folder as one JSON object of its files.
 * PUTs below instance/guest-attributes/ are kept (path → value) and read back by GET.
 */
const gceMock: HttpMockService = {
  kind: 'gce',
  transport: 'http',
  answers: () => {
    const guest = new Map<string, string>();
    return {
      anyMethod: async (req: MockRequest): Promise<MockAnswer> => {
        const { url, files } = req;
        if (req.headers['metadata-flavor'] !== 'Google')
          return {
            status: 403,
            body: 'Missing required header "Metadata-Flavor": "Google"\n',
            headers: { 'content-type': 'text/html' },
          };
        if (req.headers['x-forwarded-for'])
          return { status: 403, body: 'Request had X-Forwarded-For\n', headers: MOCK_FLAVOR };
        if (!url.pathname.startsWith(MOCK_V1)) return { status: 404, body: 'not found\n', headers: MOCK_FLAVOR };
        const parts = decodeURIComponent(url.pathname.slice(MOCK_V1.length))
          .split('/')
          .filter((p) => p !== '' && p !== '.');
        if (parts.includes('..')) return { status: 404, body: 'not found\n', headers: MOCK_FLAVOR };
        const rel = parts.join('/');
        if (parts[0] === 'instance' && parts[1] === 'guest-attributes') {
          if (req.method === 'PUT') {
            guest.set(rel, await req.body(256 * 1024, 'guest attribute over 256 KiB'));
            return { status: 200, body: '', headers: MOCK_FLAVOR };
          }
          const v = guest.get(rel);
          if (v !== undefined)
            return { status: 200, body: v, headers: { ...MOCK_FLAVOR, 'content-type': 'application/text' } };
        }
        if (req.method !== 'GET' && req.method !== 'HEAD')
          return { status: 405, body: 'method not allowed\n', headers: MOCK_FLAVOR };
        const file = await files.read(rel);
        if (file) return { status: 200, body: file, headers: { ...MOCK_FLAVOR, 'content-type': 'application/text' } };
        const entries = await files.list(rel);
        if (!entries) return { status: 404, body: 'not found\n', headers: MOCK_FLAVOR };
        if (/^true$/i.test(url.searchParams.get('recursive') ?? ''))
          return {
            status: 200,
            body: JSON.stringify(await mockFolderJson(files, rel)),
            headers: { ...MOCK_FLAVOR, 'content-type': 'application/json' },
          };
        return {
          status: 200,
          body: `${entries.map((e) => (e.folder ? `${e.name}/` : e.name)).join('\n')}\n`,
          headers: { ...MOCK_FLAVOR, 'content-type': 'application/text' },
        };
      },
    };
  },
};

/**
 * The metadata server's reads both agents share: the v1 URL from the settings (or a test's base URL), instance/id
 * as the probe bounded by max_wait, then BUILD's reads; on a NIC lease of its own in init-local (GCELocal).
 */
export async function readGceMetadata(
  ctx: CrawlContext,
  build: (md: GceMetadata, instanceId: string) => Promise<InstanceData>,
): Promise<InstanceData> {
  const v1 = gceMetadataUrl(ctx.settings, ctx.baseUrl);
  const s = readUrlSettings('GCE', { ...ctx.settings, metadata_urls: [v1] }, GCE_DEFAULTS);
  const url = `${s.metadataUrls[0] as string}/`;
  // No proxy: the metadata server is only ever reached directly.
  const client = new HttpClient({ log: ctx.log });
  const base: HttpRequest = { timeoutMs: s.timeout * 1000 };
  try {
    const crawl = async () => {
      // The first required key doubles as the probe, bounded by max_wait (cloud-init has only its retries).
      const { value: instanceId } = await waitForEndpoint(
        'GCE',
        s,
        async (u, signal) => {
          const res = await client.fetch(`${u}/instance/id`, { ...base, signal, headers: { ...GCE_HEADERS } });
          return res.text();
        },
        ctx.log,
        ctx.signal,
      );
      const md = new GceMetadata(client, url, { ...base, ...(ctx.signal ? { signal: ctx.signal } : {}) }, s.retries);
      return await build(md, instanceId);
    };
    if (!ctx.network) return await crawl();
    // GCELocal (newer cloud-init): a lease on each candidate NIC in turn until the metadata server answers.
    return (await crawlOnEachNic(ctx.network, await gceCandidateNics(ctx.platform), crawl, ctx.log, ctx.signal)).value;
  } catch (err) {
    if (err instanceof HttpError) throw sourceErrorOfHttp('GCE', err);
    throw err;
  } finally {
    await client.close();
  }
}

export const gceSource: Datasource = {
  mock: gceMock,
  name: 'GCE',
  kind: 'network',
  /** cloud-init's class per stage (its *Local class registers with the filesystem dependency only). */
  classNames: { local: 'GCELocal', network: 'GCE' },
  async detect(ctx: DetectContext) {
    return platformReportsGce(ctx.dmi);
  },
  // GCELocal: the same DMI facts; init-local crawls inside a temporary lease.
  async localEvidence(ctx: DetectContext) {
    return platformReportsGce(ctx.dmi);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!platformReportsGce(ctx.dmi)) {
      throw new SourceError(
        'GCE',
        `not running on GCE: DMI product_name '${ctx.dmi.product_name ?? ''}' and product_serial '${ctx.dmi.product_serial ?? ''}' do not say Google`,
      );
    }
    return readGceMetadata(ctx, (md, instanceId) => cloudInitData(ctx, md, instanceId));
  },
  async publishHostKeys(ctx, _data, keys) {
    await publishGceHostKeys(ctx, keys);
  },
};

/** cloud-init's read_md and DataSourceGCE's accessors. */
async function cloudInitData(ctx: CrawlContext, md: GceMetadata, instanceId: string): Promise<InstanceData> {
  const zone = await md.required('availability-zone', 'instance/zone');
  const hostname = await md.required('local-hostname', 'instance/hostname');
  const instance = await md.attributes('instance/attributes');
  const project = await md.attributes('project/attributes');
  const keyLines = cloudInitKeyLines(instance.value, project.value);
  // GCE answers projects/NUMBER/zones/ZONE.
  const az = zone.split('/').at(-1) ?? '';
  const metadata: Record<string, unknown> = {
    'instance-id': instanceId,
    'availability-zone': az,
    'local-hostname': hostname,
    'instance-data': instance.raw ?? null,
    'project-data': project.raw ?? null,
    'public-keys-data': keyLines,
  };
  const data: InstanceData = {
    instanceId,
    cloudName: 'gce',
    platform: 'gce',
    subplatform: `metadata (${md.url})`,
    publicKeys: cloudInitPublicKeys(keyLines, defaultUserName(ctx.config), new Date()),
    metadata,
    // GCE has long FQDNs and asked for short host names: the first label.
    localHostname: hostname.split('.')[0] as string,
    availabilityZone: az,
    region: az.replace(/-[^-]*$/, ''),
  };
  const ud = userDataOf(instance.value, (m) => ctx.log.warn(m));
  if (ud !== undefined) data.userData = ud;
  return data;
}

/**
 * cloud-init's _write_host_key_to_guest_attributes: each key PUT to instance/guest-attributes/hostkeys/<type>
 * with the header; a refusal is only logged (check_status=False), a connection failure fails the publish.
 * cloud-init always uses metadata.google.internal here; kiln uses the configured metadata_url's server.
 */
export async function publishGceHostKeys(ctx: PublishContext, keys: HostKey[]): Promise<void> {
  const url = gceMetadataUrl(ctx.settings);
  const s = readUrlSettings('GCE', { ...ctx.settings, metadata_urls: [url] }, GCE_DEFAULTS);
  const client = new HttpClient({ log: ctx.log });
  try {
    for (const key of keys) {
      const res = await client.fetch(`${url}instance/guest-attributes/hostkeys/${encodeURIComponent(key.type)}`, {
        method: 'PUT',
        body: key.value,
        headers: { ...GCE_HEADERS },
        timeoutMs: s.timeout * 1000,
        acceptStatuses: ALL_ERROR_STATUSES,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      if (res.status >= 200 && res.status < 300) ctx.log.debug(`Wrote ${key.type} host key to guest attributes.`);
      else ctx.log.debug(`Unable to write ${key.type} host key to guest attributes (HTTP ${res.status}).`);
    }
  } finally {
    await client.close();
  }
}

const ALL_ERROR_STATUSES = Array.from({ length: 200 }, (_, i) => 400 + i);
