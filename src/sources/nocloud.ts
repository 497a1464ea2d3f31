// NoCloud: seed folders, a cidata/CIDATA filesystem, `ds=nocloud;s=…` on the cmdline or DMI serial, and `seedfrom`.
import { readYaml, YamlError } from '../config/read-yaml';
import type { FileTree } from '../devices/filesystem-finder';
import { HttpClient, HttpError } from '../util/http';
import type { Log } from '../util/log';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { LeftToNetworkStage, SourceError } from './source-error';
import { withEphemeralNetwork } from './ephemeral-lease';
import { FolderTree } from './folder-tree';
import { noCloudHint, noCloudHintDsmode, type NoCloudHint } from './kernel-cmdline';
import { subplatformSource, dsmodeOf } from './source-description';
import { describeError } from '../util/errors';
import { mergeMissing } from './merge-many-dict';

export const NOCLOUD_SEED_DIRS = ['/var/lib/cloud/seed/nocloud', '/var/lib/cloud/seed/nocloud-net'];
export const NOCLOUD_LABELS = ['cidata', 'CIDATA'];

interface Seed {
  metaData: Record<string, unknown>;
  userData?: Uint8Array;
  vendorData?: Uint8Array;
  networkConfig?: Uint8Array;
  where: string;
}

/** The hint from the kernel cmdline, else from the DMI serial (cloud-init reads both). */
function hint(ctx: DetectContext): NoCloudHint | undefined {
  return noCloudHint(ctx.kernelCmdline) ?? noCloudHint(ctx.dmi.product_serial ?? '');
}

/** The meta-data a `ds=nocloud;…` hint gives, as 25.1's load_cmdline_data fills it: its pairs and its dsmode. */
function hintMetaData(hint: NoCloudHint): Record<string, unknown> {
  const meta: Record<string, unknown> = Object.fromEntries(hint.pairs);
  const dsmode = noCloudHintDsmode(hint);
  if (dsmode !== undefined) meta.dsmode = dsmode;
  return meta;
}

async function seedDirs(ctx: DetectContext): Promise<FolderTree[]> {
  const dirs: FolderTree[] = [];
  for (const d of NOCLOUD_SEED_DIRS) {
    const tree = new FolderTree(ctx.platform, d);
    // 25.1 (and ds-identify) take a seed folder only with both meta-data and user-data (pathprefix2dict's required).
    if ((await tree.exists('meta-data')) && (await tree.exists('user-data'))) dirs.push(tree);
  }
  return dirs;
}

/**
 * A seed file read as YAML (JSON being YAML too), as cloud-init's load_yaml reads it; errors name the file and line.
 */
function readSeedYaml(bytes: Uint8Array, file: string): unknown {
  try {
    return readYaml(Buffer.from(bytes).toString('utf8'), file);
  } catch (err) {
    throw new SourceError('NoCloud', err instanceof YamlError ? err.message : `${file}: ${describeError(err)}`);
  }
}

/** meta-data: a YAML (or JSON) mapping. */
export function parseMetaData(bytes: Uint8Array, where: string): Record<string, unknown> {
  const value = readSeedYaml(bytes, `${where}/meta-data`);
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SourceError(
      'NoCloud',
      `${where}/meta-data must be a mapping, not ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  return value as Record<string, unknown>;
}

/** network-config: v1 or v2, bare or under a top-level `network:` key. */
export function parseNetworkConfig(bytes: Uint8Array, where: string): InstanceData['networkConfig'] {
  const value = readSeedYaml(bytes, `${where}/network-config`);
  if (value === null || value === undefined) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SourceError('NoCloud', `${where}/network-config must be a mapping`);
  let cfg = value as Record<string, unknown>;
  if (cfg.network && typeof cfg.network === 'object' && !Array.isArray(cfg.network))
    cfg = cfg.network as Record<string, unknown>;
  const version = Number(cfg.version);
  if (version === 1) return { format: 'v1', config: cfg };
  if (version === 2) return { format: 'v2', config: cfg };
  throw new SourceError(
    'NoCloud',
    `${where}/network-config: 'version' must be 1 or 2, not ${JSON.stringify(cfg.version)}`,
  );
}

async function readTreeSeed(tree: FileTree, where: string): Promise<Seed> {
  const meta = await tree.readFile('meta-data');
  const ud = await tree.readFile('user-data');
  // cloud-init 25.1 requires both (pathprefix2dict's required, read_seeded's reads); an empty user-data is fine.
  const missing = [...(meta ? [] : ['meta-data']), ...(ud ? [] : ['user-data'])];
  if (missing.length > 0)
    throw new SourceError(
      'NoCloud',
      `${where}: ${missing.join(' and ')} missing (a NoCloud seed needs meta-data and user-data)`,
    );
  const seed: Seed = { metaData: parseMetaData(meta as Uint8Array, where), where };
  if (ud && ud.length > 0) seed.userData = ud;
  const vd = await tree.readFile('vendor-data');
  if (vd) seed.vendorData = vd;
  const nc = await tree.readFile('network-config');
  if (nc) seed.networkConfig = nc;
  return seed;
}

/** Reads a seed from a `seedfrom` URL: file:// through the platform, http(s) with retries and a budget. */
async function readUrlSeed(ctx: CrawlContext, seedfrom: string): Promise<Seed> {
  const base = seedfrom.includes('%s') || seedfrom.endsWith('/') ? seedfrom : `${seedfrom}/`;
  const at = (name: string) => (base.includes('%s') ? base.replace('%s', name) : `${base}${name}`);
  if (base.startsWith('file://') || base.startsWith('/')) {
    const dir = base.replace(/^file:\/\//, '').replace(/\/$/, '');
    return readTreeSeed(new FolderTree(ctx.platform, dir), base);
  }
  if (!/^https?:\/\//.test(base))
    throw new SourceError('NoCloud', `seedfrom '${seedfrom}' must start with http://, https:// or file://`);
  // cloud-init's local NoCloud leaves network seeds to NoCloudNet in the network stage; so do we, unless a lease is
  // offered.
  if (ctx.stage === 'local' && !ctx.network)
    throw new LeftToNetworkStage('NoCloud', `seedfrom ${base} needs the network; it is read in the network stage`);
  const timeout = Number(ctx.settings.timeout ?? 10);
  const retries = Number(ctx.settings.retries ?? 3);
  const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
  const get = async (name: string, required: boolean): Promise<Uint8Array | undefined> => {
    try {
      const res = await client.fetch(at(name), {
        timeoutMs: timeout * 1000,
        retries,
        acceptStatuses: required ? [] : [404],
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      });
      return res.status === 404 ? undefined : res.body;
    } catch (err) {
      if (err instanceof HttpError)
        throw new SourceError('NoCloud', `reading ${name} from seedfrom ${base} failed (${err.kind}): ${err.message}`, {
          cause: err,
        });
      throw err;
    }
  };
  try {
    return await withEphemeralNetwork(ctx.network, async () => {
      const meta = (await get('meta-data', true)) as Uint8Array;
      const seed: Seed = { metaData: parseMetaData(meta, base), where: base };
      // read_seeded reads user-data as it reads meta-data: a seed URL without it fails the source.
      const ud = await get('user-data', true);
      if (ud && ud.length > 0) seed.userData = ud;
      const vd = await get('vendor-data', false);
      if (vd) seed.vendorData = vd;
      const nc = await get('network-config', false);
      if (nc) seed.networkConfig = nc;
      return seed;
    });
  } finally {
    await client.close();
  }
}

export const noCloudSource: Datasource = {
  mock: { kind: 'nocloud', transport: 'http' },
  name: 'NoCloud',
  kind: 'local',
  /** cloud-init's class per stage (its *Local class registers with the filesystem dependency only). */
  classNames: { local: 'NoCloud', network: 'NoCloudNet' },
  /** 25.1's __str__: the seed, and the dsmode only when it is not the default `net` (22.4 always printed it). */
  describe(data, cls) {
    const source = subplatformSource(data);
    const dsmode = dsmodeOf(data);
    return `${cls} ${source ? `[seed=${source}]` : ''}${dsmode === 'net' ? '' : `[dsmode=${dsmode}]`}`;
  },
  async detect(ctx) {
    if (hint(ctx)) return true;
    if ((await seedDirs(ctx)).length > 0) return true;
    return (await ctx.finder.find({ labels: NOCLOUD_LABELS })).length > 0;
  },
  async crawl(ctx) {
    const h = hint(ctx);
    // What cloud-init calls the seed: every place data came from, in the order it looked (dmi, cmdline, the seed
    // folder or device, the seedfrom URL), joined by commas.
    const found: string[] = [];
    // cloud-init calls the seed a config disk when it starts with a device (/dev/…; kiln's finder may also name an
    // image file).
    let firstIsDevice = false;
    const dmiHint = noCloudHint(ctx.dmi.product_serial ?? '');
    const cmdlineHint = noCloudHint(ctx.kernelCmdline);
    if (dmiHint) found.push('dmi');
    if (cmdlineHint) found.push('cmdline');
    // cloud-init merges the DMI serial's meta-data, then the cmdline's, then the seed folder's or device's, then the
    // seedfrom URL's, each keeping a key's first value (util.mergemanydict): so the hint's keys (DMI's before the
    // cmdline's; its dsmode too) win over any seed's.
    let meta = mergeMissing(dmiHint ? hintMetaData(dmiHint) : {}, cmdlineHint ? hintMetaData(cmdlineHint) : {});
    let seed: Seed | undefined;
    for (const dir of await seedDirs(ctx)) {
      seed = await readTreeSeed(dir, dir.base);
      found.push(dir.base);
      break;
    }
    if (!seed) {
      for (const fs of await ctx.finder.find({ labels: NOCLOUD_LABELS })) {
        if (!(await fs.tree.exists('meta-data')) || !(await fs.tree.exists('user-data'))) {
          // 25.1's words for a labelled device without both files.
          ctx.log.warn(`device ${fs.device} with label=${fs.label} not a valid seed.`);
          continue;
        }
        seed = await readTreeSeed(fs.tree, fs.device);
        if (found.length === 0) firstIsDevice = true;
        found.push(fs.device);
        break;
      }
    }
    if (seed) meta = mergeMissing(meta, seed.metaData);
    const seedfrom = typeof meta.seedfrom === 'string' ? meta.seedfrom : undefined;
    if (seedfrom) {
      ctx.log.debug(`NoCloud: seeding from ${seedfrom}`);
      const remote = await readUrlSeed(ctx, seedfrom);
      // What pointed at the seed keeps its keys; the seeded meta-data adds the rest. Its user data, vendor data and
      // network-config replace any found locally, as 25.1's read_seeded results do (DataSourceNoCloud._get_data): a
      // seed that serves no network-config leaves none, so the seed folder's is dropped and the fallback (or
      // meta-data's network-interfaces) is rendered. 22.4 read no network-config there and kept the folder's.
      meta = mergeMissing(meta, remote.metaData);
      seed = { ...remote, metaData: meta };
      found.push(seedfrom);
    }
    const where = found.length
      ? `${firstIsDevice || found[0]?.startsWith('/dev') ? 'config-disk' : 'seed-dir'} (${found.join(',')})`
      : '';
    if (!seed && !h)
      throw new SourceError(
        'NoCloud',
        `no seed: nothing in ${NOCLOUD_SEED_DIRS.join(' or ')}, no ${NOCLOUD_LABELS.join('/')} filesystem, no ds=nocloud;s=… hint`,
      );
    // cloud-init merges its defaults under the seed's meta-data: instance-id 'nocloud' and dsmode 'net'.
    meta = mergeMissing(meta, { 'instance-id': 'nocloud', dsmode: 'net' });
    const instanceId =
      typeof meta['instance-id'] === 'string' || typeof meta['instance-id'] === 'number'
        ? String(meta['instance-id'])
        : 'nocloud';
    const data: InstanceData = {
      instanceId,
      cloudName: noCloudCloudName(meta, ctx.log),
      platform: 'nocloud',
      subplatform: where,
      publicKeys: publicKeysOf(meta),
      metadata: meta,
    };
    const host = meta['local-hostname'] ?? meta.hostname;
    if (typeof host === 'string' && host) data.localHostname = host;
    if (seed?.userData) data.userData = seed.userData;
    if (seed?.vendorData) data.vendorData = seed.vendorData;
    if (seed?.networkConfig) {
      const nc = parseNetworkConfig(seed.networkConfig, seed.where);
      if (nc) data.networkConfig = nc;
    } else if (typeof meta['network-interfaces'] === 'string') {
      data.networkConfig = { format: 'eni', config: meta['network-interfaces'] };
    }
    return data;
  },
};

/**
 * cloud_name as cloud-init 26.2 gives it (sources/__init__.py `cloud_name`, DataSourceNoCloud `_get_cloud_name`,
 * unchanged since 18.5): a string `cloud-name` in meta-data, lower-cased; else 'unknown' (cloud_id then falls back
 * to the platform, 'nocloud').
 */
export function noCloudCloudName(meta: Record<string, unknown>, log: Log): string {
  const given = meta['cloud-name'];
  if (typeof given === 'string' && given) return given.toLowerCase();
  // Only a value Python finds true is looked at (not 0, false, [] or {}); one that is not a string is ignored.
  const truthy = Array.isArray(given)
    ? given.length > 0
    : given !== null && typeof given === 'object'
      ? Object.keys(given).length > 0
      : Boolean(given);
  if (truthy)
    log.debug(
      `Ignoring metadata provided key cloud-name: non-string type ${Array.isArray(given) ? 'list' : typeof given}`,
    );
  return 'unknown';
}

/** `public-keys` in meta-data: a string, a list, or a mapping of names to keys. */
function publicKeysOf(meta: Record<string, unknown>): string[] {
  const v = meta['public-keys'] ?? meta.public_keys;
  const out: string[] = [];
  const add = (x: unknown) => {
    if (typeof x === 'string')
      out.push(
        ...x
          .split('\n')
          .map((s) => s.trim())
          .filter(Boolean),
      );
    else if (Array.isArray(x)) x.forEach(add);
    else if (x && typeof x === 'object') Object.values(x).forEach(add);
  };
  add(v);
  return [...new Set(out)];
}
