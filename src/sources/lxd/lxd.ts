// LXD: instance data from the devlxd API on /dev/lxd/sock (cloud-init's DataSourceLXD), read with undici over the unix
// socket.
import { readYaml, YamlError } from '../../config/read-yaml';
import { HttpClient, type HttpRequest } from '../../util/http';
import { timeoutSignal } from '../../util/timeout-signal';
import type { Log } from '../../util/log';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { readUrlSettings, sourceSettings, type UrlSettings } from '../settings';
import { detectVirt } from './detect-virt';
import { lxdFallbackNetworkConfig } from './fallback-network';
import { devLxdFailure, LXD_API_VERSION, readDevLxd, type DevLxdCrawl } from './read-devlxd';
import { describeError } from '../../util/errors';
import { lxdMock } from './mock-answers';

export const LXD_SOCKET_PATH = '/dev/lxd/sock';
/**
 * The names LXD gives the virtio serial port of its VM agent (current and legacy): newer ds-identify's check for VMs
 * without DMI.
 */
export const LXD_VIRTIO_PORTS = ['com.canonical.lxd', 'org.linuxcontainers.lxd'];
/**
 * timeout: seconds per request; max_wait: seconds for the whole crawl; retries: how often an HTTP 500 is asked
 * again (every 0.1 s, as newer cloud-init does). cloud-init sets no time limit on the socket; kiln bounds it.
 */
export const LXD_DEFAULTS: UrlSettings = { metadataUrls: [], timeout: 10, maxWait: 30, retries: 30 };
/**
 * Config keys holding user data or vendor data, hidden from non-root readers of instance-data.json (newer cloud-init's
 * list).
 */
export const LXD_SENSITIVE_KEYS = [
  'user.meta-data',
  'user.vendor-data',
  'user.user-data',
  'cloud-init.user-data',
  'cloud-init.vendor-data',
];

/** The socket's path inside the target root: /dev/lxd/sock, or datasource.LXD.socket_path (kiln's, for tests). */
export function lxdSocketPath(settings: Record<string, unknown>): string {
  const given = settings.socket_path;
  if (given === undefined) return LXD_SOCKET_PATH;
  if (typeof given !== 'string' || !given.startsWith('/'))
    throw new SourceError('LXD', `datasource.LXD.socket_path must be an absolute path, not ${JSON.stringify(given)}`);
  return given;
}

async function isSocket(ctx: DetectContext, path: string): Promise<boolean> {
  // Not following a final symlink, as cloud-init's lstat: a link to a socket is not LXD's device.
  return (await ctx.platform.stat(path, { followLinks: false }))?.type === 'socket';
}

/** Newer ds-identify: an LXD VM's agent port under /sys/class/virtio-ports, for VMs without LXD's DMI board name. */
async function hasLxdVirtioPort(ctx: DetectContext): Promise<boolean> {
  const base = '/sys/class/virtio-ports';
  const ports = await ctx.platform.listDir(base).catch(() => [] as string[]);
  for (const port of ports) {
    const name = (await ctx.platform.readTextIfExists(`${base}/${port}/name`).catch(() => undefined))?.trim();
    if (name !== undefined && LXD_VIRTIO_PORTS.includes(name)) return true;
  }
  return false;
}

/**
 * ds-identify's dscheck_LXD: /dev/lxd/sock is a socket; or, in a VM whose lxd-agent has not made the socket yet,
 * DMI board_name 'LXD' (or LXD's virtio port) with systemd-detect-virt saying kvm or qemu. The command runs only
 * when those files point at LXD, so other machines never pay for it.
 */
export async function detectLxd(ctx: DetectContext, socketPath: string = LXD_SOCKET_PATH): Promise<boolean> {
  if (await isSocket(ctx, socketPath)) return true;
  if (ctx.dmi.board_name !== 'LXD' && !(await hasLxdVirtioPort(ctx))) return false;
  const virt = await detectVirt(ctx.platform, ctx.log);
  ctx.log.debug(
    `LXD: no socket at ${socketPath}; LXD's DMI or virtio port found, systemd-detect-virt says ${virt ?? 'nothing'}`,
  );
  return virt === 'kvm' || virt === 'qemu';
}

/** One of the raw texts as a YAML mapping (cloud-init's _raw_instance_data_to_dict); errors name the key. */
function yamlMapping(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = readYaml(text, what);
  } catch (err) {
    throw new SourceError(
      'LXD',
      err instanceof YamlError ? `invalid ${what}: ${err.message}` : `invalid ${what}: ${describeError(err)}`,
    );
  }
  if (value === null || value === undefined)
    throw new SourceError(
      'LXD',
      `invalid ${what} format: expected YAML but found: ${JSON.stringify(text.slice(0, 200))}`,
    );
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SourceError(
      'LXD',
      `invalid ${what}: expected a mapping, not ${Array.isArray(value) ? 'a list' : typeof value}`,
    );
  return value as Record<string, unknown>;
}

/** network-config v1 or v2 (bare or under `network:`), as the renderers take it. */
function networkConfigOf(cfg: Record<string, unknown>, what: string): NonNullable<InstanceData['networkConfig']> {
  const inner =
    cfg.network && typeof cfg.network === 'object' && !Array.isArray(cfg.network)
      ? (cfg.network as Record<string, unknown>)
      : cfg;
  const version = Number(inner.version);
  if (version === 1) return { format: 'v1', config: inner };
  if (version === 2) return { format: 'v2', config: inner };
  throw new SourceError('LXD', `${what}: 'version' must be 1 or 2, not ${JSON.stringify(inner.version)}`);
}

/** cloud-init's normalize_pubkey_data on meta-data `public-keys`. */
function publicKeysOf(value: unknown): string[] {
  if (!value) return [];
  if (typeof value === 'string') return value.split(/\r?\n/);
  if (Array.isArray(value)) return value.map(String);
  const keys: string[] = [];
  if (typeof value === 'object') {
    for (const list of Object.values(value as Record<string, unknown>)) {
      for (const k of typeof list === 'string' ? [list] : Array.isArray(list) ? list : []) if (k) keys.push(String(k));
    }
  }
  return keys;
}

/**
 * The crawl as InstanceData: meta-data merged with user.meta-data, the promoted keys, and the network config or LXD's
 * fallback.
 */
export async function lxdInstanceData(
  crawl: DevLxdCrawl,
  ctx: { platform: DetectContext['platform']; log: Log },
  socketPath: string,
): Promise<InstanceData> {
  const metadata = yamlMapping(crawl['meta-data'], 'meta-data');
  const userMeta = crawl.config['user.meta-data'];
  // Newer cloud-init merges user.meta-data over meta-data (22.4 meant to, but its check never let it).
  if (userMeta) Object.assign(metadata, yamlMapping(userMeta, 'user.meta-data'));
  const id = metadata['instance-id'];
  const cloudName = metadata['cloud-name'];
  const data: InstanceData = {
    // cloud-init's get_instance_id when meta-data has none.
    instanceId: id === undefined || id === null ? 'iid-datasource' : String(id),
    cloudName: typeof cloudName === 'string' && cloudName ? cloudName.toLowerCase() : 'lxd',
    platform: 'lxd',
    subplatform: `LXD socket API v. ${LXD_API_VERSION} (${socketPath})`,
    publicKeys: publicKeysOf(metadata['public-keys']),
    metadata,
    sensitiveKeys: LXD_SENSITIVE_KEYS,
  };
  const host = metadata['local-hostname'];
  if (typeof host === 'string' && host) data.localHostname = host;
  if (crawl['user-data'] !== undefined) data.userData = new Uint8Array(Buffer.from(crawl['user-data']));
  if (crawl['vendor-data'] !== undefined) data.vendorData = new Uint8Array(Buffer.from(crawl['vendor-data']));
  if (crawl['network-config'] !== undefined) {
    ctx.log.debug('LXD datasource using provided network config');
    data.networkConfig = networkConfigOf(yamlMapping(crawl['network-config'], 'network-config'), 'network-config');
  } else {
    ctx.log.debug('LXD datasource generating network config using fallback.');
    data.networkConfig = { format: 'v1', config: await lxdFallbackNetworkConfig(ctx.platform, ctx.log) };
  }
  // instance-data.json's `ds` is the raw crawl without user data and vendor data, as cloud-init writes it.
  const { 'user-data': _u, 'vendor-data': _v, ...ds } = crawl;
  data.crawledMetadata = ds as unknown as Record<string, unknown>;
  return data;
}

export const lxdSource: Datasource = {
  mock: lxdMock,
  name: 'LXD',
  kind: 'local',
  async detect(ctx: DetectContext) {
    return detectLxd(ctx, lxdSocketPath(sourceSettings(ctx.config, 'LXD')));
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const socketPath = lxdSocketPath(ctx.settings);
    const s = readUrlSettings('LXD', ctx.settings, LXD_DEFAULTS);
    // Checked first, as cloud-init's ds_detect: without the socket (an LXD VM whose agent has not started, or
    // security.devlxd off) there is nothing to connect to, and saying so is clearer than a connect error.
    const st = await ctx.platform.stat(socketPath, { followLinks: false });
    if (st?.type !== 'socket')
      throw new SourceError(
        'LXD',
        st
          ? `${socketPath} is not a socket`
          : `${socketPath} does not exist (security.devlxd off, or lxd-agent not started in a VM)`,
      );
    const budget = s.maxWait > 0 ? timeoutSignal(s.maxWait * 1000) : undefined;
    const signal = budget && ctx.signal ? AbortSignal.any([budget, ctx.signal]) : (budget ?? ctx.signal);
    const client = new HttpClient({ log: ctx.log, socketPath: ctx.platform.hostPath(socketPath) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(signal ? { signal } : {}) };
    try {
      const crawl = await readDevLxd({ client, log: ctx.log, base, retries: s.retries });
      return await lxdInstanceData(crawl, ctx, socketPath);
    } catch (err) {
      if (budget?.aborted)
        throw new SourceError('LXD', `no complete answer on ${socketPath} within max_wait ${s.maxWait} s`, {
          cause: err,
        });
      throw devLxdFailure(err, socketPath);
    } finally {
      await client.close();
    }
  },
};
