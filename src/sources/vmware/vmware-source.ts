// VMware: cloud-init's DataSourceVMware: metadata, user data and vendor data from the VM's guestinfo keys (or
// VMX_GUESTINFO_* variables).
import { readYaml, YamlError } from '../../config/read-yaml';
import type { Log } from '../../util/log';
import type { CrawlContext, Datasource, DetectContext, InstanceData } from '../datasource';
import { SourceError } from '../source-error';
import { sourceSettings } from '../settings';
import { decodeGuestinfo, guestinfoText } from './guestinfo-decode';
import {
  GUESTINFO_CLEARED,
  GuestinfoToolFailed,
  guestinfoKey,
  guestinfoTools,
  type GuestinfoTool,
} from './guestinfo-tool';
import { vmwareSetup } from './vmware-setup';
import { vmwareImcNetworkFormat } from './imc-network-format';
import { describeError } from '../../util/errors';

const NAME = 'VMware';
const DATA_KEYS = ['metadata', 'userdata', 'vendordata'] as const;
type DataKey = (typeof DATA_KEYS)[number];
/** Seconds one tool call may take before it counts as failed (kiln's bound; cloud-init waits forever). */
const DEFAULT_TIMEOUT_S = 5;

/** cloud-init's is_vmware_platform: the DMI product name says VMware (kiln also takes the system vendor). */
export function isVmwarePlatform(dmi: Record<string, string>): boolean {
  return /vmware/i.test(dmi.product_name ?? '') || /^vmware/i.test(dmi.sys_vendor ?? '');
}

/** `VMX_GUESTINFO_METADATA` for 'metadata', as cloud-init names the variables of its envvar transport. */
export const envKey = (key: string): string => `vmx.${guestinfoKey(key)}`.toUpperCase().replace(/\./g, '_');

/** A value as cloud-init's get_none_if_empty_val reads it: trailing whitespace dropped, '' and '---' are nothing. */
function present(v: string | undefined): string | undefined {
  const t = v?.replace(/\s+$/, '');
  return t === undefined || t === '' || t === GUESTINFO_CLEARED ? undefined : t;
}

function timeoutMs(settings: Record<string, unknown>): number {
  const v = settings.timeout;
  if (v === undefined || v === null) return DEFAULT_TIMEOUT_S * 1000;
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
    throw new SourceError(
      NAME,
      `datasource.VMware.timeout must be a positive number of seconds, not ${JSON.stringify(v)}`,
    );
  return n * 1000;
}

type Raw = Partial<Record<DataKey, Uint8Array>>;

function fromEnv(env: NodeJS.ProcessEnv, log: Log): Raw | undefined {
  if (!env.VMX_GUESTINFO) return undefined;
  const raw: Raw = {};
  for (const key of DATA_KEYS) {
    const value = present(env[envKey(key)]);
    if (value !== undefined)
      raw[key] = decodeGuestinfo(envKey(key), present(env[envKey(`${key}.encoding`)]), value, log);
  }
  return Object.keys(raw).length > 0 ? raw : undefined;
}

async function fromTool(tool: GuestinfoTool, log: Log): Promise<Raw> {
  const raw: Raw = {};
  for (const key of DATA_KEYS) {
    const value = await tool.get(key);
    if (value !== undefined)
      raw[key] = decodeGuestinfo(guestinfoKey(key), await tool.get(`${key}.encoding`), value, log);
  }
  return raw;
}

/** JSON first, then YAML, as cloud-init's load_json_or_yaml; must give a mapping. Empty text is {}. */
function jsonOrYaml(where: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not JSON: read as YAML, as cloud-init's load_json_or_yaml does.
    try {
      value = readYaml(text, where);
    } catch (err) {
      throw new SourceError(NAME, err instanceof YamlError ? err.message : `${where}: ${describeError(err)}`);
    }
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SourceError(NAME, `${where} must be a mapping, not ${Array.isArray(value) ? 'a list' : typeof value}`);
  return value as Record<string, unknown>;
}

/**
 * cloud-init's process_metadata: `network` (a mapping, or text encoded by `network.encoding`) moved under
 * `network.config`.
 */
function processMetadata(where: string, md: Record<string, unknown>, log: Log): Record<string, unknown> {
  const { network, 'network.encoding': encoding, ...rest } = md;
  if (!network) return rest;
  if (typeof network === 'object' && !Array.isArray(network)) return { ...rest, network: { config: network } };
  if (typeof network !== 'string')
    throw new SourceError(
      NAME,
      `${where}: network must be a mapping or encoded text, not ${Array.isArray(network) ? 'a list' : typeof network}`,
    );
  const netWhere = `${where} network`;
  const text = guestinfoText(
    netWhere,
    decodeGuestinfo(netWhere, typeof encoding === 'string' ? encoding : undefined, network, log),
  );
  return { ...rest, network: { config: jsonOrYaml(netWhere, text) } };
}

function networkConfigOf(where: string, md: Record<string, unknown>): InstanceData['networkConfig'] {
  const net = md.network as { config?: Record<string, unknown> } | undefined;
  if (!net?.config) return undefined;
  let cfg = net.config;
  if (cfg.network && typeof cfg.network === 'object' && !Array.isArray(cfg.network))
    cfg = cfg.network as Record<string, unknown>;
  const version = Number(cfg.version);
  if (version === 1) return { format: 'v1', config: cfg };
  if (version === 2) return { format: 'v2', config: cfg };
  throw new SourceError(NAME, `${where} network: 'version' must be 1 or 2, not ${JSON.stringify(cfg.version ?? null)}`);
}

/** cloud-init's normalize_pubkey_data over the first of its four key names that metadata has. */
export function vmwarePublicKeys(md: Record<string, unknown>): string[] {
  const name = ['public-keys-data', 'public_keys_data', 'public-keys', 'public_keys'].find((k) => k in md);
  const data = name ? md[name] : undefined;
  if (!data) return [];
  if (typeof data === 'string') return data.split(/\r?\n/).filter((l) => l.trim() !== '');
  if (Array.isArray(data)) return data.filter((k): k is string => typeof k === 'string' && k !== '');
  if (typeof data === 'object') {
    return Object.values(data)
      .flatMap((v) => (typeof v === 'string' ? [v] : Array.isArray(v) ? v : []))
      .filter((k): k is string => typeof k === 'string' && k !== '');
  }
  return [];
}

/** `redact` (or the older `cleanup-guestinfo`): the guestinfo keys to clear once read. */
function keysToRedact(md: Record<string, unknown>): string[] {
  const v = 'redact' in md ? md.redact : md['cleanup-guestinfo'];
  if (!v) return [];
  // cloud-init wraps a single value in a list; only names (strings, numbers) can be guestinfo keys.
  return (Array.isArray(v) ? v : [v])
    .filter((k): k is string | number => typeof k === 'string' || typeof k === 'number')
    .map(String);
}

/** Reads guestinfo with vmware-rpctool, falling back to vmtoolsd when the first tool fails (newer cloud-init). */
async function readGuestinfo(ctx: DetectContext, ms: number): Promise<{ raw: Raw; tool: GuestinfoTool }> {
  const tools = await guestinfoTools(ctx.platform, ms);
  if (tools.length === 0)
    throw new SourceError(
      NAME,
      'neither vmware-rpctool nor vmtoolsd is installed in the target (open-vm-tools), so guestinfo cannot be read',
    );
  const failures: string[] = [];
  for (const tool of tools) {
    try {
      return { raw: await fromTool(tool, ctx.log), tool };
    } catch (err) {
      if (!(err instanceof GuestinfoToolFailed)) throw err;
      ctx.log.warn(`VMware: ${err.message}`);
      failures.push(err.message);
    }
  }
  throw new SourceError(NAME, failures.join('; '));
}

export const vmwareSource: Datasource = {
  name: NAME,
  kind: 'local',
  /** Never in the source's own data: cloud-init's `devel net-convert -k vmware-imc` reads a cust.cfg with it. */
  networkFormat: vmwareImcNetworkFormat,
  /** 25.1's own __str__ (22.4 had none): the data access method, envvar, guestinfo or imc. */
  describe: (data, cls) => `${cls} [seed=${/^(\w+) \(/.exec(data.subplatform)?.[1] ?? 'None'}]`,
  /**
   * ds-identify's dscheck_VMware: VMX_GUESTINFO variables, else VMware DMI, a tool, and data in one of the three keys.
   */
  async detect(ctx) {
    if (ctx.env?.VMX_GUESTINFO && DATA_KEYS.some((k) => present(ctx.env?.[envKey(k)]) !== undefined)) return true;
    if (!isVmwarePlatform(ctx.dmi)) return false;
    const tools = await guestinfoTools(ctx.platform, timeoutMs(sourceSettings(ctx.config, NAME)));
    for (const tool of tools) {
      try {
        for (const key of DATA_KEYS) if ((await tool.get(key)) !== undefined) return true;
        return false;
      } catch (err) {
        ctx.log.debug(`VMware: ${describeError(err)}`);
      }
    }
    return false;
  },
  async crawl(ctx: CrawlContext): Promise<InstanceData> {
    const ms = timeoutMs(ctx.settings);
    let raw = fromEnv(ctx.env ?? {}, ctx.log);
    let method: 'envvar' | 'guestinfo' = 'envvar';
    let tool: GuestinfoTool | undefined;
    if (!raw) {
      if (!isVmwarePlatform(ctx.dmi))
        throw new SourceError(
          NAME,
          `not a VMware platform (DMI product_name '${ctx.dmi.product_name ?? ''}') and no VMX_GUESTINFO variables`,
        );
      ({ raw, tool } = await readGuestinfo(ctx, ms));
      method = 'guestinfo';
    }
    const mdKey = method === 'envvar' ? envKey('metadata') : guestinfoKey('metadata');
    if (!raw.metadata && !raw.userdata && !raw.vendordata)
      throw new SourceError(
        NAME,
        `${guestinfoKey('metadata')}, ${guestinfoKey('userdata')} and ${guestinfoKey('vendordata')} are all unset or empty`,
      );
    const metadata = processMetadata(
      mdKey,
      raw.metadata ? jsonOrYaml(mdKey, guestinfoText(mdKey, raw.metadata)) : {},
      ctx.log,
    );
    // cloud-init clears the keys metadata names once read, so the secrets in them leave the VM's config.
    if (tool) {
      for (const key of keysToRedact(metadata)) {
        try {
          ctx.log.info(`VMware: clearing ${guestinfoKey(key)}`);
          await tool.set(key, GUESTINFO_CLEARED);
          await tool.set(`${key}.encoding`, '');
        } catch (err) {
          ctx.log.warn(`VMware: failed to clear ${guestinfoKey(key)}: ${describeError(err)}`);
        }
      }
    }
    const given = metadata['instance-id'];
    const instanceId =
      typeof given === 'string' || typeof given === 'number' ? String(given) : ctx.dmi.product_uuid?.toLowerCase();
    if (!instanceId)
      throw new SourceError(NAME, `${mdKey} has no instance-id and DMI has no product_uuid to use instead`);
    if (given === undefined) metadata['instance-id'] = instanceId;
    const data: InstanceData = {
      instanceId,
      cloudName: 'vmware',
      platform: 'vmware',
      subplatform: `${method} (${mdKey})`,
      publicKeys: vmwarePublicKeys(metadata),
      metadata,
    };
    const host = metadata['local-hostname'];
    if (typeof host === 'string' && host) data.localHostname = host;
    if (raw.userdata) data.userData = raw.userdata;
    if (raw.vendordata) data.vendorData = raw.vendordata;
    const nc = networkConfigOf(mdKey, metadata);
    if (nc) data.networkConfig = nc;
    return data;
  },
  // The init stage: the host's addresses into the metadata, local-ipv4/local-ipv6 published to guestinfo.
  async setup(ctx, data) {
    return vmwareSetup(ctx, data);
  },
};
