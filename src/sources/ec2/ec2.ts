// Ec2: the AWS instance metadata service, IMDSv2 tokens first (IMDSv1 fallback unless turned off), IPv4 and IPv6
// endpoints.
import { HttpClient, HttpError, type HttpRequest } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { withEphemeralNetwork } from '../ephemeral-lease';
import { crawlMetadataTree, ec2PublicKeys } from '../metadata-crawler';
import { EC2_LOCAL_CLOUDS, ec2StrictMode, identifyEc2Platform, looksLikeEc2, type Ec2CloudName } from './ec2-platform';
import { boolSetting, readUrlSettings, type UrlSettings } from '../settings';
import { waitForEndpoint } from '../wait-for-url';
import { ec2NetworkFormat } from './network-format';
import { imdsMock } from './mock-answers';

export const EC2_DEFAULTS: UrlSettings = {
  metadataUrls: ['http://169.254.169.254', 'http://[fd00:ec2::254]'],
  timeout: 10,
  maxWait: 120,
  retries: 10,
};
/** Newest first; the minimum version every IMDS serves comes last (cloud-init's extended + min versions). */
export const EC2_VERSIONS = ['2021-03-23', '2018-09-24', '2016-09-02', '2009-04-04'];
export const TOKEN_TTL_HEADER = 'X-aws-ec2-metadata-token-ttl-seconds';
export const TOKEN_HEADER = 'X-aws-ec2-metadata-token';
const TOKEN_TTL_SECONDS = '21600';

export { looksLikeEc2 };

/** The token headers of an IMDSv2-like service (AWS's, or AliYun's with its own names). */
export interface TokenHeaders {
  /** Sent with every request once a token is held. */
  header: string;
  /** Sent with the PUT that asks for a token. */
  ttlHeader: string;
}

export const AWS_TOKEN_HEADERS: TokenHeaders = { header: TOKEN_HEADER, ttlHeader: TOKEN_TTL_HEADER };

/** Holds the endpoint and token; adds the token to every request and fetches a new one after a 401. */
class ImdsSession {
  token: string | undefined;
  constructor(
    private readonly client: HttpClient,
    readonly url: string,
    private readonly base: HttpRequest,
    private readonly retries: number,
    private readonly source: string,
    private readonly headers: TokenHeaders,
  ) {}

  async fetchToken(signal?: AbortSignal): Promise<string> {
    const res = await this.client.fetch(`${this.url}/latest/api/token`, {
      ...this.base,
      ...(signal ? { signal } : {}),
      method: 'PUT',
      headers: { [this.headers.ttlHeader]: TOKEN_TTL_SECONDS },
      maxBytes: 4096,
    });
    const token = res.text().trim();
    if (!token) throw new SourceError(this.source, `${this.url}/latest/api/token answered with an empty token`);
    return token;
  }

  /** GET PATH (below the endpoint) as text; undefined for 404. */
  async get(path: string, signal?: AbortSignal): Promise<string | undefined> {
    const bytes = await this.getBytes(path, signal);
    return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
  }

  /** GET PATH as bytes (user data may be gzip); undefined for 404. */
  async getBytes(path: string, signal?: AbortSignal): Promise<Uint8Array | undefined> {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = this.token ? { [this.headers.header]: this.token } : {};
      const res = await this.client.fetch(`${this.url}/${path}`, {
        ...this.base,
        ...(signal ? { signal } : {}),
        headers,
        retries: this.retries,
        acceptStatuses: [404, 401],
        secretHeaders: [this.headers.header],
      });
      if (res.status === 404) return undefined;
      if (res.status === 401) {
        if (!this.token || attempt > 0)
          throw new HttpError(
            `${this.url}/${path}`,
            'status',
            'HTTP 401: the metadata service refused the request (IMDSv2 token required or rejected)',
            401,
          );
        this.token = await this.fetchToken(signal);
        continue;
      }
      return res.body;
    }
  }
}

/**
 * How one EC2-style metadata service is spoken to: Ec2's or a lookalike's (AliYun) versions, tokens and identity
 * document.
 */
export interface ImdsDialect {
  source: string;
  /** Newest first; the first whose meta-data/instance-id answers is crawled, the last is the probe. */
  versions: string[];
  /** Token headers when the service hands out tokens; undefined: IMDSv1 only. */
  token?: TokenHeaders;
  /** With a token: whether tokenless requests may follow a refused token request. */
  v1Fallback: boolean;
  /** Read dynamic/instance-identity/document (AWS). */
  identity: boolean;
}

export interface ImdsCrawl {
  url: string;
  version: string;
  meta: Record<string, unknown>;
  userData: Uint8Array | undefined;
  identity: Record<string, unknown> | undefined;
  tokened: boolean;
}

/**
 * Waits for the first of S's endpoints to answer (with a token first when the dialect has tokens), picks the
 * newest version it serves, and crawls meta-data, user-data and (AWS) the identity document. Call it inside
 * the ephemeral network; HttpErrors are the caller's to turn into SourceErrors.
 */
export async function crawlImds(
  ctx: CrawlContext,
  s: UrlSettings,
  client: HttpClient,
  base: HttpRequest,
  dialect: ImdsDialect,
): Promise<ImdsCrawl> {
  const { source, versions } = dialect;
  const probeVersion = versions.at(-1) as string;
  const { value: session } = await waitForEndpoint(
    source,
    s,
    async (url, signal) => {
      const session = new ImdsSession(client, url, base, s.retries, source, dialect.token ?? AWS_TOKEN_HEADERS);
      if (dialect.token) {
        try {
          session.token = await session.fetchToken(signal);
          return session;
        } catch (err) {
          // 403/404/405 mean IMDSv2 is off or unsupported: IMDSv1 may still answer (cloud-init does the same).
          const refused =
            err instanceof HttpError && err.kind === 'status' && [400, 403, 404, 405].includes(err.status ?? 0);
          if (!refused) throw err;
          if (!dialect.v1Fallback)
            throw Object.assign(
              new SourceError(
                source,
                `${url} refused an IMDSv2 token (HTTP ${(err as HttpError).status}) and imdsv1_fallback is off`,
              ),
              { final: true },
            );
          ctx.log.debug(`${source}: ${url} gave no token (HTTP ${(err as HttpError).status}); trying IMDSv1`);
        }
      }
      const probe = await session.get(`${probeVersion}/meta-data/instance-id`, signal);
      if (probe === undefined) throw new SourceError(source, `${url} has no ${probeVersion}/meta-data/instance-id`);
      return session;
    },
    ctx.log,
    ctx.signal,
  );
  let version: string | undefined;
  for (const v of versions) {
    if ((await session.get(`${v}/meta-data/instance-id`)) !== undefined) {
      version = v;
      break;
    }
  }
  if (!version)
    throw new SourceError(source, `${session.url} serves none of the metadata versions ${versions.join(', ')}`);
  ctx.log.debug(`${source}: metadata version ${version} at ${session.url} (${session.token ? 'IMDSv2' : 'IMDSv1'})`);
  const meta = await crawlMetadataTree(source, (p) => session.get(`${version}/${p}`), 'meta-data/');
  const userData = await session.getBytes(`${version}/user-data`);
  let identity: Record<string, unknown> | undefined;
  const doc = dialect.identity
    ? await session.get(`${version}/dynamic/instance-identity/document`).catch(() => undefined)
    : undefined;
  if (doc) {
    try {
      identity = JSON.parse(doc) as Record<string, unknown>;
    } catch {
      // JSON.parse fails only on text that is not JSON, which the warning says
      ctx.log.warn(`${source}: ${version}/dynamic/instance-identity/document is not JSON; ignored`);
    }
  }
  return { url: session.url, version, meta, userData, identity, tokened: session.token !== undefined };
}

export const ec2Source: Datasource = {
  mock: imdsMock('ec2', AWS_TOKEN_HEADERS, 'with IMDSv2'),
  name: 'Ec2',
  kind: 'network',
  /** cloud-init's class per stage (its *Local class registers with the filesystem dependency only). */
  classNames: { local: 'Ec2Local', network: 'Ec2' },
  /** 25.1: only the Xen, ENA and Intel VF NICs EC2 gives an instance go to the hotplug hook. */
  hotplugUdevRules: 'ENV{ID_NET_DRIVER}=="vif|ena|ixgbevf", GOTO="cloudinit_hook"\nGOTO="cloudinit_end"\n',
  networkFormat: ec2NetworkFormat,
  async detect(ctx: DetectContext) {
    // AWS and the clouds cloud-init knows by their DMI (Brightbox, ZStack, e24cloud, Outscale, Tilaa) are found.
    if (identifyEc2Platform(ctx.dmi) !== 'unknown') return true;
    // cloud-init's strict_id (false or warn) lets Ec2 be tried on clouds that imitate it without identifying
    // themselves.
    const mode = ec2StrictMode(ctx);
    if (mode === 'warn')
      ctx.log.warn(
        'Ec2: this platform does not identify itself as an EC2-compatible cloud; trying the EC2 metadata service because strict_id is warn',
      );
    return mode !== 'true';
  },
  // Ec2Local: only on AWS and Outscale as DMI shows them (cloud-init's DataSourceEc2Local); strict_id or a URL is no
  // local evidence.
  async localEvidence(ctx: DetectContext) {
    return EC2_LOCAL_CLOUDS.includes(identifyEc2Platform(ctx.dmi));
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const s = readUrlSettings('Ec2', ctx.settings, EC2_DEFAULTS, ctx.baseUrl);
    const v1Fallback = boolSetting(ctx.settings, 'imdsv1_fallback', true);
    // cloud-init asks for IMDSv2 tokens and the identity document on AWS only; the lookalikes speak IMDSv1.
    const cloud = identifyEc2Platform(ctx.dmi);
    const aws = cloud === 'aws';
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    try {
      // Ec2Local brings IPv6 up too (IMDS answers at fd00:ec2::254), and goes on with it when DHCPv4 fails.
      return await withEphemeralNetwork(
        ctx.network,
        async () => {
          const { meta, userData, identity, url, version } = await crawlImds(ctx, s, client, base, {
            source: 'Ec2',
            versions: EC2_VERSIONS,
            ...(aws ? { token: AWS_TOKEN_HEADERS } : {}),
            v1Fallback,
            identity: aws,
          });
          const data = ec2InstanceData(meta, userData, identity, url, version, cloud);
          // cloud-init's apply_full_imds_network_config (default true): false configures the fallback NIC only.
          if (data.networkConfig && !boolSetting(ctx.settings, 'apply_full_imds_network_config', true))
            data.networkConfig.full = false;
          return data;
        },
        { ipv6: true },
      );
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('Ec2', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/** The crawl as cloud-init's Ec2 (and its AliYun subclass, CLOUD 'aliyun') keeps it. */
export function ec2InstanceData(
  meta: Record<string, unknown>,
  userData: Uint8Array | undefined,
  identity: Record<string, unknown> | undefined,
  url: string,
  version: string,
  cloud: Ec2CloudName | 'aliyun',
  source = 'Ec2',
): InstanceData {
  const id = meta['instance-id'];
  if (typeof id !== 'string' || !id.trim())
    throw new SourceError(source, `${url}/${version}/meta-data/instance-id is empty`);
  const placement = (meta.placement ?? {}) as Record<string, unknown>;
  const az = typeof placement['availability-zone'] === 'string' ? placement['availability-zone'] : undefined;
  const regionFromDoc = typeof identity?.region === 'string' ? identity.region : undefined;
  // Elsewhere than AWS cloud-init takes the zone minus its last character as the region.
  const region =
    cloud === 'aws'
      ? (regionFromDoc ?? (typeof placement.region === 'string' ? placement.region : az?.replace(/[a-z]$/, '')))
      : az?.slice(0, -1) || undefined;
  const data: InstanceData = {
    instanceId: id.trim(),
    cloudName: cloud,
    platform: 'ec2',
    subplatform: `metadata (${url})`,
    publicKeys: ec2PublicKeys(meta),
    metadata: meta,
    // As 22.4's Ec2 crawl: ds holds the crawled meta-data, dynamic and the API version (user data left out).
    crawledMetadata: {
      _metadata_api_version: version,
      'meta-data': meta,
      ...(identity ? { dynamic: { 'instance-identity': { document: identity } } } : {}),
    },
  };
  const host = meta['local-hostname'];
  if (typeof host === 'string' && host.trim()) data.localHostname = host.trim();
  if (az) data.availabilityZone = az;
  if (region) data.region = region;
  if (userData !== undefined && userData.length > 0) data.userData = userData;
  const net = meta.network;
  if (net && typeof net === 'object') data.networkConfig = { format: 'ec2', config: net };
  return data;
}
