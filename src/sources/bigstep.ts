// Bigstep: the URL written to /var/lib/cloud/data/seed/bigstep/url, whose JSON carries metadata, vendordata_raw
// and userdata_raw, read as cloud-init's DataSourceBigstep reads it.
import { HttpClient, HttpError } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { normalizePublicKeys } from './public-keys';
import { parseJson } from './json-document';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { readMockText, type HttpMockService, type MockAnswer } from './mock-service';

const NAME = 'Bigstep';
export const BIGSTEP_URL_FILE = '/var/lib/cloud/data/seed/bigstep/url';

type Obj = Record<string, unknown>;

/** The raw user/vendor data of the answer: a string (or null, none); anything else is refused, naming the key. */
function rawData(answer: Obj, key: string, url: string): Uint8Array | undefined {
  if (!(key in answer)) throw new SourceError(NAME, `${url}: the answer has no '${key}'`);
  const v = answer[key];
  if (v === null || v === '') return undefined;
  if (typeof v !== 'string')
    throw new SourceError(NAME, `${url}: '${key}' must be a string, not ${Array.isArray(v) ? 'a list' : typeof v}`);
  return Buffer.from(v, 'utf8');
}

/** A metadata value given as text (a number is written as one); empty or anything else: none. */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string' && v) return v;
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** The answer at URL as cloud-init keeps it. */
export function bigstepInstanceData(answer: unknown, url: string): InstanceData {
  if (answer === null || typeof answer !== 'object' || Array.isArray(answer))
    throw new SourceError(NAME, `${url}: the answer must be a JSON object`);
  const a = answer as Obj;
  if (!('metadata' in a)) throw new SourceError(NAME, `${url}: the answer has no 'metadata'`);
  const md = a.metadata;
  if (md === null || typeof md !== 'object' || Array.isArray(md))
    throw new SourceError(NAME, `${url}: 'metadata' must be an object`);
  const metadata = md as Obj;
  const id = metadata['instance-id'];
  const host = metadata['local-hostname'];
  const keys = metadata['public-keys'];
  const data: InstanceData = {
    // cloud-init's get_instance_id falls back to 'iid-datasource' when the metadata has none.
    instanceId: id === undefined || id === null || id === '' ? 'iid-datasource' : String(id),
    cloudName: 'bigstep',
    platform: 'bigstep',
    subplatform: `metadata (${url})`,
    publicKeys: normalizePublicKeys(keys),
    metadata,
  };
  if (typeof host === 'string' && host) data.localHostname = host;
  // What cloud-init's DataSource base class reads from any source's metadata: the zone (either spelling, else
  // placement's), the region and a string cloud-name (lower-cased).
  const placement = metadata.placement;
  const zone =
    textOf(metadata['availability-zone'] ?? metadata.availability_zone) ??
    (placement && typeof placement === 'object' ? textOf((placement as Obj)['availability-zone']) : undefined);
  const region = textOf(metadata.region);
  const cloudName = metadata['cloud-name'];
  if (zone !== undefined) data.availabilityZone = zone;
  if (region !== undefined) data.region = region;
  if (typeof cloudName === 'string' && cloudName) data.cloudName = cloudName.toLowerCase();
  const vd = rawData(a, 'vendordata_raw', url);
  const ud = rawData(a, 'userdata_raw', url);
  if (vd) data.vendorData = vd;
  if (ud) data.userData = ud;
  return data;
}

/**
 * `devel serve-metadata --kind bigstep`: the folder holds `metadata.json` (the `metadata` object), and optionally
 * `userdata_raw` and `vendordata_raw` (the raw blobs, absent: an empty string), answered as one JSON document at every
 * path: the URL is whatever Bigstep wrote into the machine's url file, so the mock cannot know it. No `metadata.json`:
 * 404, as a URL that names no instance.
 */
const bigstepMock: HttpMockService = {
  kind: 'bigstep',
  transport: 'http',
  answers: () => ({
    readOnly: async ({ files }): Promise<MockAnswer> => {
      const text = await readMockText(files, 'metadata.json');
      if (text === undefined) return { status: 404, body: 'no metadata.json in the mock folder\n' };
      let metadata: unknown;
      try {
        metadata = JSON.parse(text);
      } catch {
        // The client gets a 500 saying which file of the mock folder is broken.
        return { status: 500, body: "the mock's metadata.json is not JSON\n" };
      }
      const doc = {
        metadata,
        vendordata_raw: (await readMockText(files, 'vendordata_raw')) ?? '',
        userdata_raw: (await readMockText(files, 'userdata_raw')) ?? '',
      };
      return { status: 200, body: JSON.stringify(doc), headers: { 'content-type': 'application/json' } };
    },
  }),
};

export const bigstepSource: Datasource = {
  mock: bigstepMock,
  name: NAME,
  kind: 'network',
  async detect(ctx: DetectContext) {
    return ctx.platform.exists(BIGSTEP_URL_FILE);
  },
  async crawl(ctx: CrawlContext) {
    const text = await ctx.platform.readTextIfExists(BIGSTEP_URL_FILE);
    if (text === undefined) throw new SourceError(NAME, `${BIGSTEP_URL_FILE} does not exist`);
    const url = text.trim();
    if (!/^https?:\/\//.test(url))
      throw new SourceError(NAME, `${BIGSTEP_URL_FILE} holds '${url.slice(0, 80)}', not an http(s) URL`);
    // cloud-init reads it once with no time limit; kiln bounds each attempt (timeout) and retries as configured.
    const timeout = Number(ctx.settings.timeout ?? 10);
    const retries = Number(ctx.settings.retries ?? 0);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    try {
      const res = await client.fetch(url, {
        timeoutMs: timeout * 1000,
        retries,
        maxBytes: 16 * 1024 * 1024,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return bigstepInstanceData(parseJson(NAME, res), url);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp(NAME, err);
      throw err;
    } finally {
      await client.close();
    }
  },
};
