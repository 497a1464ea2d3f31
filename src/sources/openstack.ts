// OpenStack over HTTP: the metadata service at 169.254.169.254/openstack/ with version discovery; detected from DMI.
import { HttpClient, type HttpRequest } from '../util/http';
import type { CrawlContext, Datasource, DetectContext } from './datasource';
import { SourceError } from './source-error';
import { withEphemeralNetwork } from './ephemeral-lease';
import { crawlMetadataTree } from './metadata-crawler';
import { chooseOpenStackVersion, openStackInstanceData, readOpenStackTree } from './openstack-tree';
import { readUrlSettings, type UrlSettings } from './settings';
import { waitForEndpoint } from './wait-for-url';
import { dsmodeOf } from './source-description';
import { describeError } from '../util/errors';

export const OPENSTACK_PRODUCT_NAMES = ['OpenStack Nova', 'OpenStack Compute'];
/**
 * cloud-init's VALID_DMI_ASSET_TAGS: the product names themselves (LP: #1669875) and the OpenStack clouds that say so
 * only in the asset tag.
 */
export const OPENSTACK_ASSET_TAGS = [
  ...OPENSTACK_PRODUCT_NAMES,
  'HUAWEICLOUD',
  'OpenTelekomCloud',
  'Samsung Cloud Platform',
  'SAP CCloud VM',
];
export const OPENSTACK_DEFAULTS: UrlSettings = {
  metadataUrls: ['http://169.254.169.254'],
  timeout: 10,
  maxWait: 60,
  retries: 5,
};

/** cloud-init's detect_openstack: the DMI product name or chassis asset tag, or PID 1's environment in a container. */
async function looksLikeOpenStack(ctx: DetectContext): Promise<boolean> {
  const product = ctx.dmi.product_name ?? '';
  const tag = ctx.dmi.chassis_asset_tag ?? '';
  if (OPENSTACK_PRODUCT_NAMES.includes(product) || OPENSTACK_ASSET_TAGS.includes(tag)) return true;
  // In a container the host's DMI is hidden; PID 1's environment may carry it (as ds-identify checks).
  const env = await ctx.platform.readTextIfExists('/proc/1/environ').catch(() => undefined);
  return env?.split('\0').some((kv) => OPENSTACK_PRODUCT_NAMES.some((p) => kv === `product_name=${p}`)) ?? false;
}

export const openStackSource: Datasource = {
  // Its EC2-compatible tree has EC2's '0=name' key folders; /openstack/ lists its versions bare.
  mock: { kind: 'openstack', transport: 'http', keyNamedFolders: true, bareListing: 'openstack' },
  name: 'OpenStack',
  kind: 'network',
  /** cloud-init's class per stage (its *Local class registers with the filesystem dependency only). */
  classNames: { local: 'OpenStackLocal', network: 'OpenStack' },
  /** The dsmode and the metadata version read (kiln reads the openstack/ tree: 2). */
  describe: (data, cls) => `${cls} [${dsmodeOf(data)},ver=2]`,
  detect: looksLikeOpenStack,
  // OpenStackLocal runs on the same local facts as detection.
  localEvidence: looksLikeOpenStack,
  async crawl(ctx: CrawlContext) {
    const s = readUrlSettings('OpenStack', ctx.settings, OPENSTACK_DEFAULTS, ctx.baseUrl);
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    try {
      return await withEphemeralNetwork(ctx.network, async () => {
        const { url, value: versions } = await waitForEndpoint(
          'OpenStack',
          s,
          async (u, signal) =>
            (await client.fetch(`${u}/openstack/`, { ...base, signal }))
              .text()
              .split('\n')
              .map((l) => l.trim().replace(/\/$/, ''))
              .filter(Boolean),
          ctx.log,
          ctx.signal,
        );
        const version = chooseOpenStackVersion(versions);
        const read = async (path: string) => {
          const res = await client
            .fetch(`${url}/${path}`, { ...base, retries: s.retries, acceptStatuses: [404] })
            .catch((err: unknown) => {
              throw new SourceError('OpenStack', `reading ${path} from ${url} failed: ${describeError(err)}`, {
                cause: err,
              });
            });
          return res.status === 404 ? undefined : res.body;
        };
        const tree = await readOpenStackTree('OpenStack', read, version);
        try {
          const get = async (p: string) => {
            const r = await client.fetch(`${url}/latest/${p}`, { ...base, acceptStatuses: [404] });
            return r.status === 404 ? undefined : r.text();
          };
          const ec2 = await crawlMetadataTree('OpenStack', get, 'meta-data/', { maxRequests: 300, maxDepth: 8 });
          if (Object.keys(ec2).length) tree.ec2Metadata = ec2;
        } catch (err) {
          ctx.log.debug(`OpenStack: no EC2-compatible metadata at ${url}/latest/meta-data/ (${describeError(err)})`);
        }
        return openStackInstanceData('OpenStack', tree, `metadata (${url})`);
      });
    } finally {
      await client.close();
    }
  },
};
