// CloudStack: EC2-style metadata and user data from the virtual router (found by DNS, DHCP lease or gateway) under
// latest/, and the VM password from its password server on port 8080 (the crawl's tail Exoscale shares); also
// cloudbase-init's CloudStack service.
import { lookup } from 'node:dns/promises';
import { HttpClient, HttpError, type HttpRequest } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { cloudStackDomainName } from './cloudstack-domain';
import { findCloudStackRouter, type ResolveHost } from './cloudstack-router';
import { crawlMetadataTree } from './metadata-crawler';
import { fetchVmPassword, passwordCloudConfig, type PasswordServerOptions } from './password-server';
import { normalizePublicKeys } from './public-keys';
import { readUrlSettings, type UrlSettings } from './settings';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { waitForEndpoint } from './wait-for-url';
import { describeError } from '../util/errors';

/** cloud-init's url_max_wait 120 s and url_timeout 50 s; the base URL comes from the router, not from here. */
export const CLOUDSTACK_DEFAULTS: UrlSettings = { metadataUrls: [], timeout: 50, maxWait: 120, retries: 0 };
export const PASSWORD_SERVER_PORT = 8080;

/** ds-identify's dscheck_CloudStack: the DMI product name starts with CloudStack. */
function onCloudStack(ctx: DetectContext): boolean {
  return (ctx.dmi.product_name ?? '').startsWith('CloudStack');
}

/** getaddrinfo('data-server') as cloud-init asks it, bounded: a resolver that never answers must not hold the boot. */
const resolveHost: ResolveHost = async (name) => {
  const timer = new Promise<undefined>((r) => setTimeout(() => r(undefined), 5000).unref());
  return Promise.race([lookup(name, { family: 4 }).then((a) => a.address), timer]);
};

function portSetting(settings: Record<string, unknown>): number {
  const v = settings.password_server_port ?? PASSWORD_SERVER_PORT;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 65535)
    throw new SourceError('CloudStack', `password_server_port must be a port number, not ${JSON.stringify(v)}`);
  return n;
}

/**
 * The metadata base URLs to try, in order: cloudbase-init's metadata_base_url then its adapters' DHCP servers, a test's
 * base URL, or cloud-init's virtual router.
 */
async function candidateUrls(ctx: CrawlContext): Promise<string[]> {
  if (ctx.baseUrl) return [ctx.baseUrl.replace(/\/+$/, '')];
  const s = ctx.settings;
  if (typeof s.metadata_base_url === 'string') {
    const dhcp = Array.isArray(s.dhcp_servers)
      ? s.dhcp_servers.filter((d): d is string => typeof d === 'string' && d !== '')
      : [];
    return [s.metadata_base_url.replace(/\/+$/, ''), ...dhcp.map((d) => `http://${d}`)];
  }
  const router = await findCloudStackRouter(ctx.platform, resolveHost, ctx.log);
  if (!router)
    throw new SourceError(
      'CloudStack',
      'no virtual router found: no data-server DNS entry, no DHCP server in the networkd or dhclient leases, and no default gateway',
    );
  ctx.log.debug(`CloudStack: virtual router ${router.address} (${router.via})`);
  return [`http://${router.address.includes(':') ? `[${router.address}]` : router.address}`];
}

export const cloudStackSource: Datasource = {
  mock: { kind: 'cloudstack', transport: 'http', passwordServer: true },
  name: 'CloudStack',
  kind: 'network',
  async detect(ctx: DetectContext) {
    return onCloudStack(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const cloudbase = typeof ctx.settings.metadata_base_url === 'string';
    const s = readUrlSettings('CloudStack', ctx.settings, CLOUDSTACK_DEFAULTS);
    const port = portSetting(ctx.settings);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    try {
      const urls = await candidateUrls(ctx);
      let url: string | undefined;
      if (cloudbase) {
        // cloudbase-init's _test_api: latest/meta-data/service-offering on each candidate in turn, no waiting.
        for (const u of urls) {
          const ok = await client.fetch(`${u}/latest/meta-data/service-offering`, base).then(
            () => true,
            (err: unknown) => {
              ctx.log.debug(`CloudStack: ${u} does not answer: ${describeError(err)}`);
              return false;
            },
          );
          if (ok) {
            url = u;
            break;
          }
        }
        if (!url) throw new SourceError('CloudStack', `no CloudStack metadata service answered at ${urls.join(', ')}`);
      } else {
        // cloud-init's wait_for_metadata_service: latest/meta-data/instance-id within max_wait.
        const probe = (u: string, signal: AbortSignal) =>
          client.fetch(`${u}/latest/meta-data/instance-id`, { ...base, signal });
        url = (await waitForEndpoint('CloudStack', { ...s, metadataUrls: urls }, probe, ctx.log, ctx.signal)).url;
      }
      const crawled = await crawlCloudStackStyle(
        `${url}/latest/`,
        { ...base, retries: 3 },
        {
          source: 'CloudStack',
          url: `http://${new URL(url).hostname}:${port}/`,
          client,
          log: ctx.log,
          // cloud-init's wget: 3 tries of 20 s; cloudbase-init: 10 s, retry_count tries.
          timeoutMs: cloudbase ? 10_000 : 20_000,
          retries: cloudbase ? s.retries : 2,
          flavour: cloudbase ? 'cloudbase-init' : 'cloud-init',
          ...(ctx.signal ? { signal: ctx.signal } : {}),
        },
      );
      const data = cloudStackStyleInstanceData(crawled, {
        source: 'CloudStack',
        cloudName: 'cloudstack',
        subplatform: `metadata (${url}/)`,
        instanceIdAt: `${url}/latest/meta-data/instance-id`,
      });
      // 25.1's get_hostname: a host name without a domain takes the DHCP lease's in its FQDN.
      const domain = await cloudStackDomainName(ctx.platform, ctx.log);
      if (domain) data.fqdnDomain = domain;
      return data;
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('CloudStack', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/**
 * What the crawl reads once the service answers: CloudStack's, and Exoscale's (the same EC2-style tree and password
 * server).
 */
export interface CloudStackStyleCrawl {
  meta: Record<string, unknown>;
  userData: Uint8Array | undefined;
  password: string | undefined;
}

/**
 * The crawl once the metadata service answered, as cloud-init's CloudStack and Exoscale do it: user data below
 * TREE_URL (ec2.get_instance_userdata: a 404 is none), the meta-data tree, then the VM's password from the
 * password server PASSWORD names; a password server that fails is a warning and no password, not a failed crawl.
 */
export async function crawlCloudStackStyle(
  treeUrl: string,
  request: HttpRequest,
  password: PasswordServerOptions,
): Promise<CloudStackStyleCrawl> {
  const { source, client, log } = password;
  const get = async (path: string) => {
    const res = await client.fetch(`${treeUrl}${path}`, { ...request, acceptStatuses: [404] });
    return res.status === 404 ? undefined : res;
  };
  const userData = (await get('user-data'))?.body;
  const meta = await crawlMetadataTree(source, async (p) => (await get(p))?.text(), 'meta-data/');
  try {
    return { meta, userData, password: await fetchVmPassword(password) };
  } catch (err) {
    if (!(err instanceof SourceError)) throw err;
    log.warn(`${source}: no password from the password server: ${err.message}`);
    return { meta, userData, password: undefined };
  }
}

/**
 * How a CloudStack-style source names itself in its instance data, and where its instance id was read (for the error
 * when there is none).
 */
export interface CloudStackStyleNames {
  source: string;
  /** cloud-init's cloud_name and platform: 'cloudstack', 'exoscale'. */
  cloudName: string;
  subplatform: string;
  instanceIdAt: string;
}

/**
 * The crawl as cloud-init's DataSourceCloudStack (and DataSourceExoscale) keeps it: the metadata tree as crawled, the
 * password as cloud-config.
 */
export function cloudStackStyleInstanceData(crawled: CloudStackStyleCrawl, names: CloudStackStyleNames): InstanceData {
  const { meta, userData, password } = crawled;
  const id = meta['instance-id'];
  if (typeof id !== 'string' || !id.trim())
    throw new SourceError(names.source, `${names.instanceIdAt} is missing or empty`);
  const data: InstanceData = {
    instanceId: id,
    cloudName: names.cloudName,
    platform: names.cloudName,
    subplatform: names.subplatform,
    publicKeys: normalizePublicKeys(meta['public-keys']),
    metadata: meta,
  };
  const host = meta['local-hostname'];
  if (typeof host === 'string' && host.trim()) data.localHostname = host.trim();
  const az = meta['availability-zone'];
  if (typeof az === 'string' && az) data.availabilityZone = az;
  if (userData && userData.length > 0) data.userData = userData;
  if (password) {
    data.adminPassword = password;
    data.sourceConfig = passwordCloudConfig(password);
  }
  return data;
}
