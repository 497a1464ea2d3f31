// MAAS: the seed folder /var/lib/cloud/seed/maas, or the MAAS metadata service at datasource.MAAS.metadata_url read
// with OAuth-signed requests (cloud-init's DataSourceMAAS; cloudbase-init's MaaSHttpService, cloudbase-maas-service.ts,
// shares its readers).
import { readYaml } from '../../config/read-yaml';
import { HttpClient } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { FolderTree } from '../folder-tree';
import { convertVendorData } from '../openstack-tree';
import { normalizePublicKeys } from '../public-keys';
import { SourceError } from '../source-error';
import type { OAuthCredentials } from './oauth1';
import { OAUTH_SKEW_FILE, OAuthReadError, OAuthUrlReader } from './oauth-url-reader';
import { subplatformSource } from '../source-description';
import { describeError } from '../../util/errors';
import { maasMock } from './mock-answers';

/** cloud-init's MD_VERSION, also cloudbase-init's _METADATA_2012_03_01. */
export const MAAS_MD_VERSION = '2012-03-01';
export const MAAS_SEED_DIR = '/var/lib/cloud/seed/maas';
/** ds-identify's heuristic for MAAS's ephemeral (iSCSI-root) environment. */
const MAAS_IQN = 'iqn.2004-05.com.ubuntu:maas';
export const MAX_BODY = 10 * 1024 * 1024;

/** cloud-init's DS_FIELDS: the path, where it lands, binary or text, optional. */
const DS_FIELDS: ReadonlyArray<{ path: string; binary: boolean; optional: boolean }> = [
  { path: 'meta-data/instance-id', binary: false, optional: false },
  { path: 'meta-data/local-hostname', binary: false, optional: false },
  { path: 'meta-data/public-keys', binary: false, optional: true },
  { path: 'meta-data/vendor-data', binary: true, optional: true },
  { path: 'user-data', binary: true, optional: true },
];

export function fail(reason: string, cause?: unknown): SourceError {
  return new SourceError('MAAS', reason, cause === undefined ? undefined : { cause });
}

export function text(settings: Record<string, unknown>, key: string): string {
  const v = settings[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string' && typeof v !== 'number')
    throw fail(`datasource.MAAS.${key} must be a string, not ${JSON.stringify(v)}`);
  return String(v);
}

/**
 * The OAuth credentials of the settings, as cloud-init's OauthUrlHelper takes them: none when consumer_key,
 * token_key and token_secret are all empty (requests go unsigned); an error when only some are set.
 */
export function maasCredentials(settings: Record<string, unknown>): OAuthCredentials | undefined {
  const consumerKey = text(settings, 'consumer_key');
  const tokenKey = text(settings, 'token_key');
  const tokenSecret = text(settings, 'token_secret');
  const set = [consumerKey, tokenKey, tokenSecret].filter((v) => v !== '').length;
  if (set === 0) return undefined;
  if (set < 3) throw fail('all or none of token_key, token_secret, or consumer_key can be set (datasource.MAAS)');
  return { consumerKey, consumerSecret: text(settings, 'consumer_secret'), tokenKey, tokenSecret };
}

/**
 * ds-identify's dscheck_MAAS: MAAS's ephemeral boot (its iSCSI target with cloud-config-url on the cmdline), or MAAS
 * settings in the system config.
 */
function onMaas(ctx: DetectContext): boolean {
  const cmdline = ctx.kernelCmdline;
  if (cmdline.includes('cloud-config-url=') && cmdline.includes(MAAS_IQN)) return true;
  const ds = ctx.config.datasource;
  return !!ds && typeof ds === 'object' && 'MAAS' in ds;
}

/** The files of one crawl by path (cloud-init's `md` before check_seed_contents). */
type Fetched = Map<string, Uint8Array>;

/**
 * cloud-init's check_seed_contents: the required files present, vendor-data loadable as YAML. Returns user
 * data, the meta-data mapping and the loaded vendor data.
 */
function checkSeedContents(
  content: Fetched,
  where: string,
  ctx: CrawlContext,
): { userData?: Uint8Array; metadata: Record<string, string>; vendor: unknown } {
  const missing = DS_FIELDS.filter((f) => !f.optional && !content.has(f.path)).map((f) => f.path);
  if (content.size === 0) throw fail(`${where}: no data files found`);
  if (missing.length > 0) throw fail(`${where}: missing files ${missing.join(', ')}`);
  const metadata: Record<string, string> = {};
  for (const f of DS_FIELDS) {
    const bytes = content.get(f.path);
    if (bytes && f.path.startsWith('meta-data/') && !f.binary)
      metadata[f.path.slice('meta-data/'.length)] = Buffer.from(bytes).toString('utf8');
  }
  let vendor: unknown;
  const vd = content.get('meta-data/vendor-data');
  if (vd && vd.length > 0) {
    try {
      vendor = readYaml(Buffer.from(vd).toString('utf8'), `${where}/meta-data/vendor-data`);
    } catch (err) {
      throw fail(`${where}: vendor-data was not loadable as yaml: ${describeError(err)}`, err);
    }
  }
  ctx.log.debug(`MAAS: read ${[...content.keys()].join(', ')} from ${where}`);
  const userData = content.get('user-data');
  return { ...(userData ? { userData } : {}), metadata, vendor };
}

function instanceData(
  parts: ReturnType<typeof checkSeedContents>,
  subplatform: string,
  ctx: CrawlContext,
): InstanceData {
  const md = parts.metadata;
  const id = md['instance-id'] as string;
  if (id.trim() === '') throw fail(`${subplatform}: meta-data/instance-id is empty`);
  const data: InstanceData = {
    instanceId: id,
    cloudName: 'maas',
    platform: 'maas',
    subplatform,
    publicKeys: normalizePublicKeys(md['public-keys']),
    metadata: { ...md },
  };
  if (md['local-hostname']) data.localHostname = md['local-hostname'];
  if (parts.userData) data.userData = parts.userData;
  if (parts.vendor !== undefined && parts.vendor !== null) {
    try {
      const vendor = convertVendorData('MAAS', 'meta-data/vendor-data', parts.vendor);
      if (vendor) data.vendorData = vendor;
    } catch (err) {
      // cloud-init: "Invalid content in vendor-data", and no vendor data.
      ctx.log.warn(`MAAS: Invalid content in vendor-data: ${describeError(err)}`);
    }
  }
  return data;
}

/**
 * cloud-init's read_maas_seed_dir: the files straight in the folder (no version level); undefined when it is absent or
 * empty.
 */
async function readSeedDir(ctx: CrawlContext): Promise<InstanceData | undefined> {
  const names = await ctx.platform.listDir(MAAS_SEED_DIR).catch(() => [] as string[]);
  if (names.length === 0) return undefined;
  const tree = new FolderTree(ctx.platform, MAAS_SEED_DIR);
  const content: Fetched = new Map();
  for (const f of DS_FIELDS) {
    const bytes = await tree.readFile(f.path);
    if (bytes) content.set(f.path, bytes);
    else if (!f.optional) throw fail(`${MAAS_SEED_DIR} was malformed: Missing required ${f.path}`);
  }
  return instanceData(checkSeedContents(content, MAAS_SEED_DIR, ctx), `seed-dir (${MAAS_SEED_DIR})`, ctx);
}

export function intSetting(settings: Record<string, unknown>, key: string, fallback: number): number {
  const v = settings[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw fail(`datasource.MAAS.${key} must be a number, not ${JSON.stringify(v)}`);
  return Math.trunc(n);
}

/**
 * cloud-init's flow: wait for <url>/2012-03-01/meta-data/instance-id (learning the clock skew), then read each file
 * once.
 */
async function crawlCloudInit(ctx: CrawlContext, url: string): Promise<InstanceData> {
  const base = url.replace(/\/+$/, '');
  const s = ctx.settings;
  const maxWait = intSetting(s, 'max_wait', 120);
  if (maxWait === 0) throw fail('datasource.MAAS.max_wait is 0: the metadata service is not to be waited for');
  // cloud-init means 50 s unless datasource.MAAS.timeout says otherwise (its check for the key is broken, so it always
  // uses 50; kiln honours the setting).
  const timeout = intSetting(s, 'timeout', 50);
  const credentials = maasCredentials(s);
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  const reader = new OAuthUrlReader({
    client,
    log: ctx.log,
    ...(credentials ? { credentials } : {}),
    skewFile: { platform: ctx.platform, path: OAUTH_SKEW_FILE },
    correctSkew: true,
    timeoutMs: Math.max(1, timeout) * 1000,
    maxBytes: MAX_BODY,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
  try {
    const check = `${base}/${MAAS_MD_VERSION}/meta-data/instance-id`;
    try {
      await reader.waitFor(check, maxWait);
    } catch (err) {
      throw fail(`Giving up on md from ${check} after ${maxWait} seconds: ${describeError(err)}`, err);
    }
    ctx.log.debug(`MAAS: Using metadata source: '${check}'`);
    const content: Fetched = new Map();
    for (const f of DS_FIELDS) {
      const url = `${base}/${MAAS_MD_VERSION}/${f.path}`;
      try {
        content.set(f.path, (await reader.get(url)).body);
      } catch (err) {
        if (err instanceof OAuthReadError && err.status === 404) {
          if (f.optional) continue;
          throw fail(`Missing required ${f.path}: ${url} answered 404`, err);
        }
        throw fail(`Failed fetching metadata from url ${url}: ${describeError(err)}`, err);
      }
    }
    // cloud-init's _get_subplatform says seed-dir for the URL too, and names it as configured (trailing '/' kept).
    return instanceData(checkSeedContents(content, base, ctx), `seed-dir (${url})`, ctx);
  } finally {
    await client.close();
  }
}

/** A metadata URL that parses, else the error naming it. */
export function checkUrl(base: string): void {
  try {
    new URL(base);
  } catch {
    throw fail(`metadata_url ${JSON.stringify(base)} is not a URL`);
  }
}

export const maasSource: Datasource = {
  mock: maasMock,
  name: 'MAAS',
  kind: 'network',
  describe: (data, cls) => `${cls} [${subplatformSource(data)}]`,
  async detect(ctx: DetectContext) {
    return onMaas(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    // cloud-init reads the seed folder first; a malformed one is an error, not a fall-through.
    const seeded = await readSeedDir(ctx);
    if (seeded) return seeded;
    const base = ctx.baseUrl || text(ctx.settings, 'metadata_url');
    if (!base) throw fail(`no datasource.MAAS.metadata_url and nothing in ${MAAS_SEED_DIR}`);
    checkUrl(base);
    return crawlCloudInit(ctx, base);
  },
};
