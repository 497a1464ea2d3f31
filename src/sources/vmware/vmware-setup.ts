// VMware's init-stage setup (cloud-init's DataSourceVMware.setup): waits for the addresses metadata asks for, merges
// the host info into the metadata and publishes local-ipv4/local-ipv6 to guestinfo.
import type { InstanceData, SetupContext } from '../datasource';
import { guestinfoKey, guestinfoTools } from './guestinfo-tool';
import { readHostInfo, type HostInfo } from './host-info';
import { describeError } from '../../util/errors';
import { mergeMissing } from '../merge-many-dict';

/** How long the wait for an address (metadata's wait-on-network) may last; cloud-init waits forever. */
export const WAIT_ON_NETWORK_LIMIT_MS = 300_000;
const POLL_MS = 1000;

/** cloud-init's translate_bool: a boolean as is; true, 1, on, yes (any case) as true; anything else false. */
function translateBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  return ['true', '1', 'on', 'yes'].includes(
    String(v ?? '')
      .trim()
      .toLowerCase(),
  );
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Whether INFO has the addresses WANT asks for (any usable IPv4, any usable IPv6). */
function ready(info: HostInfo, want: { v4: boolean; v6: boolean }): boolean {
  const { 'by-ipv4': v4, 'by-ipv6': v6 } = info.network.interfaces;
  return (!want.v4 || Object.keys(v4).length > 0) && (!want.v6 || Object.keys(v6).length > 0);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * cloud-init's setup(): the host info (waiting, as metadata's `wait-on-network: {ipv4, ipv6}` asks, until
 * such an address is up, at most LIMIT_MS), its local-ipv4/local-ipv6 published with `info-set
 * guestinfo.local-ipv4 …` through the rpctool, and merged into the metadata (the metadata's own keys win).
 */
export async function vmwareSetup(
  ctx: SetupContext,
  data: InstanceData,
  limitMs = WAIT_ON_NETWORK_LIMIT_MS,
): Promise<InstanceData> {
  const md = data.metadata;
  const w = isMapping(md['wait-on-network']) ? md['wait-on-network'] : {};
  const want = { v4: translateBool(w.ipv4), v6: translateBool(w.ipv6) };
  const deadline = Date.now() + limitMs;
  let info = await readHostInfo(ctx.platform, ctx.log);
  while (!ready(info, want) && !ctx.signal?.aborted) {
    if (Date.now() >= deadline) {
      ctx.log.warn(
        `VMware: gave up waiting on the network after ${Math.round(limitMs / 1000)} s (wait-on-network ipv4=${want.v4}, ipv6=${want.v6}); going on without those addresses`,
      );
      break;
    }
    ctx.log.debug(`waiting on network: wait4=${want.v4}, wait6=${want.v6}`);
    await sleep(POLL_MS, ctx.signal);
    info = await readHostInfo(ctx.platform, ctx.log);
  }
  ctx.log.info(`got host-info: ${JSON.stringify(info)}`);
  await advertise(ctx, info);
  const metadata = mergeMissing(md, info as unknown as Record<string, unknown>);
  const out: InstanceData = { ...data, metadata };
  const host = metadata['local-hostname'];
  if (!out.localHostname && typeof host === 'string' && host) out.localHostname = host;
  return out;
}

/** advertise_local_ip_addrs: each default address set as guestinfo.local-ipv4 / local-ipv6; a failure is logged. */
async function advertise(ctx: SetupContext, info: HostInfo): Promise<void> {
  const pairs = (['local-ipv4', 'local-ipv6'] as const).flatMap((k) => (info[k] ? [[k, info[k]] as const] : []));
  if (pairs.length === 0) return;
  const [tool] = await guestinfoTools(ctx.platform, 30_000);
  for (const [key, value] of pairs) {
    if (!tool) {
      ctx.log.warn(
        `VMware: failed to set ${guestinfoKey(key)} to ${value}: neither vmware-rpctool nor vmtoolsd is installed`,
      );
      continue;
    }
    try {
      await tool.set(key, value);
      ctx.log.info(`advertised local ${key === 'local-ipv4' ? 'ipv4' : 'ipv6'} address ${value} in guestinfo`);
    } catch (err) {
      ctx.log.warn(`VMware: failed to set ${guestinfoKey(key)} to ${value}: ${describeError(err)}`);
    }
  }
}
