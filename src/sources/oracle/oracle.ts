// Oracle (OCI): the /opc/ instance metadata service, v2 with its Bearer header first and v1 as fallback; detected by
// the DMI asset tag.
import { HttpClient, HttpError, type HttpRequest, type HttpResponse } from '../../util/http';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { withEphemeralNetwork } from '../ephemeral-lease';
import { parseJson, parseJsonObject } from '../json-document';
import { SourceError, sourceErrorOfHttp } from '../source-error';
import { boolSetting, readUrlSettings, type UrlSettings } from '../settings';
import { isTransient, waitForEndpoint } from '../wait-for-url';
import { oracleNetworkFormat } from './network-format';
import { describeError } from '../../util/errors';
import { oracleMock } from './mock-answers';

/** cloud-init's CHASSIS_ASSET_TAG: bare metal and VM shapes both carry it. */
export const ORACLE_ASSET_TAG = 'OracleCloud.com';
/** IPv4 as in 22.4, and the IPv6 address newer cloud-init also tries (OCI added an IPv6 IMDS). */
export const ORACLE_DEFAULTS: UrlSettings = {
  metadataUrls: ['http://169.254.169.254', 'http://[fd00:c1::a9fe:a9fe]'],
  timeout: 5,
  maxWait: 30,
  retries: 2,
};
/** The header v2 demands (it answers 401 without it); v1 takes none. */
export const ORACLE_V2_HEADERS: Readonly<Record<string, string>> = { Authorization: 'Bearer Oracle' };
/**
 * cloud-init 25.1's network_config_sources for Oracle: the system config's `network` before the source (with the
 * iSCSI config inside it), the initramfs files last (22.4 put the system config last, below the initramfs).
 */
export const ORACLE_NETWORK_ORDER: Array<'cmdline' | 'initramfs' | 'system_cfg' | 'ds'> = [
  'cmdline',
  'system_cfg',
  'ds',
  'initramfs',
];

/**
 * What the network step needs to build Oracle's network config (net/convert-oracle.ts), as cloud-init builds it at
 * render time.
 */
export interface OracleNetworkData {
  /** /opc/vN/vnics/, the primary first; absent when it was not fetched or could not be. */
  vnics?: unknown[];
  /** datasource.Oracle.configure_secondary_nics (cloud-init's default: false). */
  configureSecondaryNics: boolean;
}

export function looksLikeOracle(dmi: Record<string, string>): boolean {
  return (dmi.chassis_asset_tag ?? '') === ORACLE_ASSET_TAG;
}

/**
 * Whether the initramfs configured the network (klibc's /run/net-*.conf, as on iSCSI-root bare metal): any such
 * file counts, as cloud-init's KlibcOracleNetworkConfigSource lowers the usual applicability test.
 */
export async function hasKlibcNetworkFiles(ctx: DetectContext): Promise<boolean> {
  const names = await ctx.platform.listDir('/run').catch(() => [] as string[]);
  return names.some((n) => /^net6?-.+\.conf$/.test(n));
}

type Opc = { version: 1 | 2; instance: Record<string, unknown> };

function opcUrl(base: string, version: 1 | 2, path: string): string {
  return `${base}/opc/v${version}/${path}/`;
}

async function fetchOpc(
  client: HttpClient,
  base: HttpRequest,
  url: string,
  version: 1 | 2,
  path: string,
  retries: number,
  signal?: AbortSignal,
): Promise<HttpResponse> {
  const res = await client.fetch(opcUrl(url, version, path), {
    ...base,
    ...(signal ? { signal } : {}),
    retries,
    ...(version === 2 ? { headers: { ...ORACLE_V2_HEADERS } } : {}),
  });
  return res;
}

/** A document that will not change on a retry: refused as final, so waitForEndpoint stops asking. */
function refuseForGood(reason: string, cause?: unknown): SourceError {
  return Object.assign(new SourceError('Oracle', reason, cause === undefined ? undefined : { cause }), { final: true });
}

/** v2 first; any failure of v2 (a 404 where only v1 exists, a refusal, a timeout) tries v1, as cloud-init does. */
async function readInstance(
  client: HttpClient,
  base: HttpRequest,
  url: string,
  retries: number,
  signal: AbortSignal,
  ctx: CrawlContext,
): Promise<Opc> {
  let v2err: unknown;
  try {
    return {
      version: 2,
      instance: parseJsonObject(refuseForGood, await fetchOpc(client, base, url, 2, 'instance', retries, signal)),
    };
  } catch (err) {
    if (signal.aborted) throw err;
    v2err = err;
  }
  ctx.log.debug(`Oracle: ${opcUrl(url, 2, 'instance')} failed (${describeError(v2err)}); trying v1`);
  try {
    return {
      version: 1,
      instance: parseJsonObject(refuseForGood, await fetchOpc(client, base, url, 1, 'instance', retries, signal)),
    };
  } catch (v1err) {
    // Worth another round when either answer may change (5xx, timeout); else the v2 reason is the one to show.
    if (isTransient(v1err) && !isTransient(v2err)) throw v1err;
    throw v2err;
  }
}

/**
 * cloud-init's check of an already working network before a temporary lease (EphemeralDHCPv4's
 * connectivity_url_data): true when any URL's v2 instance document answers within TIMEOUT_MS. On iSCSI root
 * the initramfs configured the NIC, and a lease released with an address flush would cut the root disk off.
 */
async function imdsAlreadyReachable(
  client: HttpClient,
  urls: string[],
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const attempts = urls.map((url) =>
    client.fetch(opcUrl(url, 2, 'instance'), {
      timeoutMs,
      headers: { ...ORACLE_V2_HEADERS },
      ...(signal ? { signal } : {}),
    }),
  );
  return Promise.any(attempts).then(
    () => true,
    () => false,
  );
}

export const oracleSource: Datasource = {
  mock: oracleMock,
  name: 'Oracle',
  kind: 'network',
  networkFormat: oracleNetworkFormat,
  async detect(ctx) {
    return looksLikeOracle(ctx.dmi);
  },
  // cloud-init runs Oracle in init-local inside a temporary DHCP lease: the asset tag is the local evidence.
  async localEvidence(ctx) {
    return looksLikeOracle(ctx.dmi);
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const s = readUrlSettings('Oracle', ctx.settings, ORACLE_DEFAULTS, ctx.baseUrl);
    const secondary = boolSetting(ctx.settings, 'configure_secondary_nics', false);
    const iscsi = await hasKlibcNetworkFiles(ctx);
    // The primary NIC comes from the vnics unless the initramfs config (iSCSI root) describes it.
    const wantVnics = !iscsi || secondary;
    const client = new HttpClient({ log: ctx.log, ...(ctx.env ? { env: ctx.env } : {}) });
    const base: HttpRequest = { timeoutMs: s.timeout * 1000, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    try {
      let network = ctx.network;
      if (
        network &&
        (iscsi || (await imdsAlreadyReachable(client, s.metadataUrls, Math.min(s.timeout * 1000, 2000), ctx.signal)))
      ) {
        ctx.log.debug(
          `Oracle: ${iscsi ? 'the initramfs configured the network (iSCSI root)' : 'the metadata service already answers'}; no temporary lease`,
        );
        network = undefined;
      }
      return await withEphemeralNetwork(network, async () => {
        const { url, value: opc } = await waitForEndpoint(
          'Oracle',
          s,
          (u, signal) => readInstance(client, base, u, s.retries, signal, ctx),
          ctx.log,
          ctx.signal,
        );
        let vnics: unknown[] | undefined;
        if (wantVnics) {
          try {
            const v = parseJson(refuseForGood, await fetchOpc(client, base, url, opc.version, 'vnics', s.retries));
            if (Array.isArray(v) && v.length > 0) vnics = v;
            else
              ctx.log.warn(
                `Oracle: ${opcUrl(url, opc.version, 'vnics')} holds no VNIC list; network config falls back`,
              );
          } catch (err) {
            // As cloud-init: the instance is still found; only the IMDS network config is missing.
            ctx.log.warn(`Oracle: failed to fetch the IMDS network configuration: ${describeError(err)}`);
          }
        }
        return oracleInstanceData(opc, `${url}/opc/v${opc.version}/`, {
          ...(vnics ? { vnics } : {}),
          configureSecondaryNics: secondary,
        });
      });
    } catch (err) {
      if (err instanceof HttpError) throw sourceErrorOfHttp('Oracle', err);
      throw err;
    } finally {
      await client.close();
    }
  },
};

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

/**
 * cloud-init's metadata for Oracle (availability-zone, instance-id, launch-index, local-hostname, name, public_keys);
 * `ds` is the raw instance.
 */
export function oracleInstanceData(opc: Opc, metadataAddress: string, network: OracleNetworkData): InstanceData {
  const data = opc.instance;
  const where = `${metadataAddress}instance/`;
  const id = str(data.id);
  if (!id) throw new SourceError('Oracle', `${where} has no 'id'`);
  const meta: Record<string, unknown> = {
    'availability-zone': data.ociAdName ?? null,
    'instance-id': id,
    'launch-index': 0,
    'local-hostname': data.hostname ?? null,
    name: data.displayName ?? null,
  };
  let userData: Uint8Array | undefined;
  const m = data.metadata;
  if (m && typeof m === 'object' && !Array.isArray(m)) {
    const md = m as Record<string, unknown>;
    const ud = md.user_data;
    // Decoded leniently, as Python's b64decode skips characters outside the alphabet.
    if (typeof ud === 'string' && ud !== '') userData = Buffer.from(ud, 'base64');
    meta.public_keys = md.ssh_authorized_keys ?? null;
  }
  const out: InstanceData = {
    instanceId: id,
    cloudName: 'oracle',
    platform: 'oracle',
    subplatform: `metadata (${metadataAddress})`,
    publicKeys: publicKeys(meta.public_keys),
    metadata: meta,
    // cloud-init's _crawled_metadata: instance-data.json's `ds` is the instance document alone (no meta_data).
    crawledMetadata: { ...data },
    networkConfig: { format: 'oracle', config: network, order: ORACLE_NETWORK_ORDER },
  };
  const host = str(data.hostname);
  if (host) out.localHostname = host;
  const ad = str(data.ociAdName);
  if (ad) out.availabilityZone = ad;
  if (userData && userData.length > 0) out.userData = userData;
  return out;
}

/**
 * cloud-init's normalize_pubkey_data: a string is split into lines (Python's splitlines), a list is taken as is, a
 * mapping's values flattened.
 */
function publicKeys(v: unknown): string[] {
  if (!v) return [];
  if (typeof v === 'string') {
    const lines = v.split(/\r\n|\n|\r/);
    if (lines.at(-1) === '') lines.pop();
    return lines;
  }
  if (Array.isArray(v)) return v.filter((k): k is string => typeof k === 'string');
  if (typeof v === 'object') {
    return Object.values(v as Record<string, unknown>)
      .flatMap((list) => (typeof list === 'string' ? [list] : Array.isArray(list) ? list : []))
      .filter((k): k is string => typeof k === 'string' && k !== '');
  }
  return [];
}
