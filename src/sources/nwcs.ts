// NWCS: one JSON metadata document at 169.254.169.254/api/v1/metadata, read in init-local inside a temporary DHCP
// lease; detected from the DMI system vendor (cloud-init's DataSourceNWCS).
import { macsToNames, readSysClassNet } from '../net/sys-class-net';
import { HttpClient, HttpError } from '../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { withEphemeralNetwork } from './ephemeral-lease';
import { normalizePublicKeys } from './public-keys';
import { wholeUrlSettings, type UrlSettings } from './settings';
import { parseJsonObject } from './json-document';
import { SourceError, sourceErrorOfHttp } from './source-error';
import { waitForEndpoint } from './wait-for-url';
import { readMockText, type HttpMockService, type MockAnswer } from './mock-service';

const BASE = 'http://169.254.169.254';
export const NWCS_METADATA_PATH = '/api/v1/metadata';
/** cloud-init's: 5 s per request, 5 s apart, 30 retries; kiln bounds the whole wait with max_wait as well. */
export const NWCS_DEFAULTS: UrlSettings = { metadataUrls: [BASE], timeout: 5, maxWait: 180, retries: 30 };

/** ds-identify's dscheck_NWCS: the DMI system vendor. */
function onNwcs(ctx: DetectContext): boolean {
  return ctx.dmi.sys_vendor === 'NWCS';
}

/** The metadata URL: cloud-init's `metadata_url` (the whole URL), else kiln's base URLs with the path added. */
function metadataUrls(ctx: CrawlContext): UrlSettings {
  return wholeUrlSettings('NWCS', ctx.settings, NWCS_DEFAULTS, NWCS_METADATA_PATH, ctx.baseUrl);
}

const MOCK_DOC = '/api/v1/metadata';

/**
 * `devel serve-metadata --kind nwcs`: the folder holds `api/v1/metadata` (JSON). It is served as `application/json`;
 * `api/v1/metadata/KEY[/KEY…]` answers with that part of it (scalars as text, the rest as JSON; 404 when absent).
 * Anything else falls to the tree.
 */
const nwcsMock: HttpMockService = {
  kind: 'nwcs',
  transport: 'http',
  answers: () => ({
    readOnly: async ({ files, path }): Promise<MockAnswer | undefined> => {
      if (path !== MOCK_DOC && path !== `${MOCK_DOC}/` && !path.startsWith(`${MOCK_DOC}/`)) return undefined;
      const text = await readMockText(files, 'api/v1/metadata');
      if (text === undefined) return undefined;
      if (path === MOCK_DOC || path === `${MOCK_DOC}/`)
        return { status: 200, body: text, headers: { 'content-type': 'application/json' } };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // The client gets a 500 saying which file of the mock folder is broken.
        return { status: 500, body: "the mock's api/v1/metadata is not JSON\n" };
      }
      for (const key of path
        .slice(MOCK_DOC.length + 1)
        .split('/')
        .filter(Boolean)
        .map(decodeURIComponent)) {
        if (value && typeof value === 'object' && !Array.isArray(value) && key in value)
          value = (value as Record<string, unknown>)[key];
        else return { status: 404, body: 'not found\n' };
      }
      if (value === null || typeof value !== 'object')
        return { status: 200, body: value === null ? '' : String(value) };
      return { status: 200, body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
    },
  }),
};

export const nwcsSource: Datasource = {
  mock: nwcsMock,
  name: 'NWCS',
  kind: 'network',
  async detect(ctx: DetectContext) {
    return onNwcs(ctx);
  },
  // cloud-init runs NWCS in init-local only (DEP_FILESYSTEM), inside an EphemeralDHCPv4 on the fallback NIC.
  async localEvidence(ctx: DetectContext) {
    return onNwcs(ctx);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    if (!onNwcs(ctx)) throw new SourceError('NWCS', `the DMI system vendor is '${ctx.dmi.sys_vendor ?? ''}', not NWCS`);
    const s = metadataUrls(ctx);
    const url = s.metadataUrls[0] as string;
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    try {
      // As EphemeralDHCPv4 with its connectivity URL: no lease when the metadata service answers already.
      let network = ctx.network;
      if (network) {
        const reachable = await client
          .fetch(`${url}/instance-id`, { timeoutMs: 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) })
          .then(
            () => true,
            () => false,
          );
        if (reachable) network = undefined;
      }
      const { value: md } = await withEphemeralNetwork(network, () =>
        waitForEndpoint(
          'NWCS',
          s,
          async (u, signal) => {
            const res = await client.fetch(u, { timeoutMs: s.timeout * 1000, signal, maxBytes: 1024 * 1024 });
            return parseJsonObject('NWCS', res);
          },
          ctx.log,
          ctx.signal,
        ),
      );
      const macs = macsToNames(await readSysClassNet(ctx.platform).catch(() => []));
      return nwcsInstanceData(md, url, macs);
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('NWCS', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

/**
 * cloud-init's _get_data and network_config: instance-id, public-keys, network and hostname are required;
 * userdata and vendordata are strings; each NIC of the (v1) network config is renamed to the interface that
 * has its MAC here (MACS: MAC → name), since the service's names need not be this system's.
 */
export function nwcsInstanceData(
  md: Record<string, unknown>,
  url: string,
  macs: Map<string, string> = new Map(),
): InstanceData {
  for (const key of ['instance-id', 'public-keys', 'network', 'hostname']) {
    if (!(key in md)) throw new SourceError('NWCS', `${url} has no '${key}'`);
  }
  const iid = md['instance-id'];
  if (iid === null || iid === undefined || String(iid).trim() === '')
    throw new SourceError('NWCS', `${url} has an empty instance-id`);
  const network = md.network;
  const config = network && typeof network === 'object' ? (network as Record<string, unknown>).config : undefined;
  if (!Array.isArray(config) || config.length === 0)
    throw new SourceError(
      'NWCS',
      `${url}: network.config is missing or empty (cloud-init: "Unable to get metadata from server")`,
    );
  const renamed = structuredClone(network) as { config: Array<Record<string, unknown>> };
  for (const nic of renamed.config) {
    const here = typeof nic.mac_address === 'string' ? macs.get(nic.mac_address.toLowerCase()) : undefined;
    if (here) nic.name = here;
  }
  const data: InstanceData = {
    instanceId: String(iid),
    cloudName: 'nwcs',
    platform: 'nwcs',
    subplatform: `metadata (${url})`,
    localHostname: String(md.hostname),
    publicKeys: normalizePublicKeys(md['public-keys']),
    metadata: {
      'instance-id': iid,
      'public-keys': md['public-keys'],
      network: md.network,
      'local-hostname': md.hostname,
    },
    networkConfig: { format: 'v1', config: renamed },
  };
  if (typeof md.userdata === 'string' && md.userdata) data.userData = new Uint8Array(Buffer.from(md.userdata, 'utf8'));
  if (typeof md.vendordata === 'string' && md.vendordata)
    data.vendorData = new Uint8Array(Buffer.from(md.vendordata, 'utf8'));
  return data;
}
