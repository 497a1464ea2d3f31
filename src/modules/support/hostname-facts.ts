// The hostname and FQDN a module should apply: from cloud-config, else the datasource, else the system
// (util.get_hostname_fqdn).
import type { CloudConfigValue } from '../../config/schema/cloud-config-types';
import type { ModuleContext } from '../module';
import { readConfigValue } from './config-readers';

export interface HostnameFqdn {
  hostname: string;
  fqdn: string;
  /** True only when the name is 'localhost' that came from the system as a default, not from anyone's config. */
  isDefault: boolean;
}

/** The hostname and fqdn keys as a typed module gets them (HOSTNAME_READERS). */
export interface HostnameConfig {
  readonly hostname?: CloudConfigValue<'hostname'>;
  readonly fqdn?: CloudConfigValue<'fqdn'>;
}

/** A hostname as get_hostname_fqdn reads it (see HOSTNAME_READERS). */
function hostnameSetting(value: unknown): unknown {
  if (value === null) return undefined;
  return typeof value === 'object' ? value : readConfigValue('str', value);
}

/**
 * How util.get_hostname_fqdn reads hostname and fqdn: fqdn by str() (null is 'None'), hostname by
 * get_cfg_option_str, so a number is its digits (upstream calls .find on it when no fqdn is given and fails; kiln
 * reads it the same either way). A null hostname is as if absent (kiln's reading: upstream fails on it without an
 * fqdn and names the host 'None' with one; see docs/modules.md's known differences); a list
 * or a mapping stays as it is, for the schema to refuse, as upstream's .find does.
 */
export const HOSTNAME_READERS = {
  hostname: hostnameSetting,
  fqdn: 'str',
} as const;

/**
 * What set_hostname and update_hostname both read: each flag by get_cfg_option_bool ('yes' is true, null false),
 * hostname and fqdn as get_hostname_fqdn reads them.
 */
export const SET_HOSTNAME_READERS = {
  preserve_hostname: 'bool',
  prefer_fqdn_over_hostname: 'bool',
  create_hostname_file: 'bool',
  ...HOSTNAME_READERS,
} as const;

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** The running system's hostname: the kernel's when visible in the target, else its /etc/hostname, else ''. */
async function systemHostname(ctx: ModuleContext): Promise<string> {
  const kernel = (await ctx.platform.readTextIfExists('/proc/sys/kernel/hostname'))?.trim();
  if (kernel) return kernel;
  const file = (await ctx.platform.readTextIfExists('/etc/hostname'))
    ?.split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('#'));
  return file ?? '';
}

/** The FQDN /etc/hosts gives for HOSTNAME (util.get_fqdn_from_hosts): the first name on a line that lists it. */
async function fqdnFromHosts(ctx: ModuleContext, hostname: string): Promise<string | undefined> {
  const text = await ctx.platform.readTextIfExists('/etc/hosts');
  if (!text || !hostname) return undefined;
  for (const raw of text.split('\n')) {
    const line = raw.split('#')[0]?.trim() ?? '';
    const toks = line.split(/\s+/).filter(Boolean);
    if (toks.length < 2) continue;
    if (toks.slice(1).includes(hostname)) return toks[1];
  }
  return undefined;
}

/** The datasource's hostname (DataSource.get_hostname), short or qualified. */
export async function datasourceHostname(
  ctx: ModuleContext,
  fqdn: boolean,
): Promise<{ hostname: string; isDefault: boolean }> {
  const lhost = ctx.instance?.localHostname ?? localHostnameFromMetadata(ctx);
  let toks: string[];
  let isDefault = false;
  let domain = 'localdomain';
  if (!lhost) {
    const hostname = await systemHostname(ctx);
    if (hostname === 'localhost') isDefault = true;
    const hostsFqdn = await fqdnFromHosts(ctx, hostname);
    if (hostsFqdn && hostsFqdn.indexOf('.') > 0) toks = hostsFqdn.split('.');
    else if (hostname && hostname.indexOf('.') > 0) toks = hostname.split('.');
    else if (hostname) toks = [hostname, domain];
    else toks = ['localhost', domain];
  } else if (IPV4.test(lhost)) {
    toks = [`ip-${lhost.replace(/\./g, '-')}`];
  } else {
    toks = lhost.split('.');
  }
  const host = toks[0] as string;
  if (toks.length > 1) domain = toks.slice(1).join('.');
  else domain = '';
  // A source may give the FQDN a domain the host name lacks (CloudStack's DHCP domain name, 25.1).
  if (fqdn && !domain && ctx.instance?.fqdnDomain) domain = ctx.instance.fqdnDomain;
  return { hostname: fqdn && domain ? `${host}.${domain}` : host, isDefault };
}

function localHostnameFromMetadata(ctx: ModuleContext): string | undefined {
  const v = ctx.instance?.metadata?.['local-hostname'];
  return typeof v === 'string' && v ? v : undefined;
}

export async function hostnameAndFqdn(ctx: ModuleContext, cfg: HostnameConfig): Promise<HostnameFqdn> {
  const cfgHostname = cfg.hostname;
  const cfgFqdn = cfg.fqdn;
  if (cfgFqdn !== undefined) {
    return { fqdn: cfgFqdn, hostname: cfgHostname ?? (cfgFqdn.split('.')[0] as string), isDefault: false };
  }
  if (cfgHostname !== undefined && cfgHostname.indexOf('.') > 0) {
    return { fqdn: cfgHostname, hostname: cfgHostname.slice(0, cfgHostname.indexOf('.')), isDefault: false };
  }
  const fqdn = (await datasourceHostname(ctx, true)).hostname;
  if (cfgHostname !== undefined) return { hostname: cfgHostname, fqdn, isDefault: false };
  const short = await datasourceHostname(ctx, false);
  return { hostname: short.hostname, fqdn, isDefault: short.isDefault };
}

/** Distro._select_hostname: the FQDN when prefer_fqdn_over_hostname (or the family's default) says so. */
export function preferFqdn(
  ctx: ModuleContext,
  cfg: { readonly prefer_fqdn_over_hostname?: CloudConfigValue<'prefer_fqdn_over_hostname'> },
): boolean {
  if (cfg.prefer_fqdn_over_hostname !== undefined) return cfg.prefer_fqdn_over_hostname;
  // rhel, photon, mariner and freebsd default to the FQDN in cloud-init.
  return ctx.distro.family === 'redhat' || ['photon', 'mariner'].includes(ctx.distro.name);
}

/**
 * Distro._select_hostname: the name written and applied, the FQDN when preferred (and there is one), else the short
 * name, else (an empty short name, as `hostname: ''` gives) the FQDN.
 */
export function selectHostname(
  ctx: ModuleContext,
  cfg: { readonly prefer_fqdn_over_hostname?: CloudConfigValue<'prefer_fqdn_over_hostname'> },
  hostname: string,
  fqdn: string,
): string {
  if (preferFqdn(ctx, cfg) && fqdn) return fqdn;
  return hostname || fqdn;
}

/**
 * Whether the distro's hostname FILE may be written: newer cloud-init's `create_hostname_file: false` updates an
 * existing file but never creates one (the running hostname is still set).
 */
export async function mayWriteHostnameFile(
  ctx: ModuleContext,
  cfg: { readonly create_hostname_file?: CloudConfigValue<'create_hostname_file'> },
  file: string,
): Promise<boolean> {
  if (cfg.create_hostname_file ?? true) return true;
  if ((await ctx.platform.readTextIfExists(file)) !== undefined) return true;
  ctx.log.info('create_hostname_file is False; hostname file not created');
  return false;
}
