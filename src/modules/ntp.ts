// cc_ntp: picks an NTP client (chrony, systemd-timesyncd, ntp, ntpdate, openntpd) per distro, writes its config,
// installs and reloads it.
import { configModule } from './support/config-module';
import { OwnParser, readConfigValue } from './support/config-readers';
import { pyRepr } from '../config/schema/python-repr';
import { isRecord } from './support/config-shapes';
import { readSystemTemplate, renderTemplateText } from './support/cloud-template';
import { whichInTarget } from './support/distro-facts';
import { installPackages } from './support/install-packages';
import { ModuleError, type Module, type ModuleContext } from './module';
import { pyStr } from '../util/python-str';
import { manageService } from './support/service-control';
import { describeError } from '../util/errors';

export interface NtpClientConfig {
  check_exe: string;
  confpath: string;
  packages: string[];
  service_name: string;
  template_name?: string;
  template?: string | null;
}

const BASE_CLIENTS: Record<string, NtpClientConfig> = {
  chrony: {
    check_exe: 'chronyd',
    confpath: '/etc/chrony.conf',
    packages: ['chrony'],
    service_name: 'chrony',
    template_name: 'chrony.conf.{distro}',
    template: null,
  },
  ntp: {
    check_exe: 'ntpd',
    confpath: '/etc/ntp.conf',
    packages: ['ntp'],
    service_name: 'ntp',
    template_name: 'ntp.conf.{distro}',
    template: null,
  },
  ntpdate: {
    check_exe: 'ntpdate',
    confpath: '/etc/ntp.conf',
    packages: ['ntpdate'],
    service_name: 'ntpdate',
    template_name: 'ntp.conf.{distro}',
    template: null,
  },
  openntpd: {
    check_exe: 'ntpd',
    confpath: '/etc/ntpd.conf',
    packages: [],
    service_name: 'ntpd',
    template_name: 'ntpd.conf.{distro}',
    template: null,
  },
  'systemd-timesyncd': {
    check_exe: '/lib/systemd/systemd-timesyncd',
    confpath: '/etc/systemd/timesyncd.conf.d/cloud-init.conf',
    packages: [],
    service_name: 'systemd-timesyncd',
    template_name: 'timesyncd.conf',
    template: null,
  },
};

const RHEL_CLIENTS: Record<string, Partial<NtpClientConfig>> = {
  ntp: { service_name: 'ntpd' },
  chrony: { service_name: 'chronyd' },
};
const SUSE_CLIENTS: Record<string, Partial<NtpClientConfig>> = {
  chrony: { service_name: 'chronyd' },
  ntp: { confpath: '/etc/ntp.conf', service_name: 'ntpd' },
  'systemd-timesyncd': { check_exe: '/usr/lib/systemd/systemd-timesyncd' },
};
const AZURE_CLIENTS: Record<string, Partial<NtpClientConfig>> = {
  chrony: { service_name: 'chronyd' },
  'systemd-timesyncd': {
    check_exe: '/usr/lib/systemd/systemd-timesyncd',
    confpath: '/etc/systemd/timesyncd.conf',
  },
};

/**
 * Per-distro changes to the base client table: 25.1's DISTRO_CLIENT_CONFIG, by the distro names kiln detects (its
 * freebsd and openbsd entries left out: kiln runs no BSD target). fedora and arch are kiln's own (chronyd and ntpd
 * are those distros' units; docs/modules.md, Known differences).
 */
const DISTRO_CLIENTS: Record<string, Record<string, Partial<NtpClientConfig>>> = {
  alpine: {
    chrony: { confpath: '/etc/chrony/chrony.conf', service_name: 'chronyd' },
    ntp: { confpath: '/etc/ntp.conf', packages: [], service_name: 'ntpd' },
  },
  aosc: {
    'systemd-timesyncd': {
      check_exe: '/usr/lib/systemd/systemd-timesyncd',
      confpath: '/etc/systemd/timesyncd.conf',
    },
  },
  azurelinux: AZURE_CLIENTS,
  mariner: AZURE_CLIENTS,
  centos: { ntp: { service_name: 'ntpd' }, chrony: { service_name: 'chronyd' } },
  cos: { chrony: { service_name: 'chronyd', confpath: '/etc/chrony/chrony.conf' } },
  debian: { chrony: { confpath: '/etc/chrony/chrony.conf' } },
  ubuntu: { chrony: { confpath: '/etc/chrony/chrony.conf' } },
  openmandriva: {
    chrony: { service_name: 'chronyd' },
    ntp: { confpath: '/etc/ntp.conf', service_name: 'ntpd' },
    'systemd-timesyncd': { check_exe: '/lib/systemd/systemd-timesyncd' },
  },
  opensuse: SUSE_CLIENTS,
  'opensuse-microos': SUSE_CLIENTS,
  'opensuse-tumbleweed': SUSE_CLIENTS,
  'opensuse-leap': SUSE_CLIENTS,
  photon: {
    chrony: { service_name: 'chronyd' },
    ntp: { service_name: 'ntpd', confpath: '/etc/ntp.conf' },
    'systemd-timesyncd': {
      check_exe: '/usr/lib/systemd/systemd-timesyncd',
      confpath: '/etc/systemd/timesyncd.conf',
    },
  },
  rhel: RHEL_CLIENTS,
  almalinux: RHEL_CLIENTS,
  cloudlinux: RHEL_CLIENTS,
  rocky: RHEL_CLIENTS,
  sles: SUSE_CLIENTS,
  sle_hpc: SUSE_CLIENTS,
  'sle-micro': SUSE_CLIENTS,
  fedora: { ntp: { service_name: 'ntpd' }, chrony: { service_name: 'chronyd' } },
  arch: { chrony: { service_name: 'chronyd' }, ntp: { service_name: 'ntpd' } },
};

export function clientConfigsFor(distro: string): Record<string, NtpClientConfig> {
  const extra = DISTRO_CLIENTS[distro] ?? {};
  const out: Record<string, NtpClientConfig> = {};
  for (const [name, base] of Object.entries(BASE_CLIENTS)) out[name] = { ...base, ...(extra[name] ?? {}) };
  return out;
}

function preferredClients(family: string): string[] {
  return family === 'alpine' ? ['chrony', 'ntp'] : ['chrony', 'systemd-timesyncd', 'ntp', 'ntpdate'];
}

/**
 * cloud-init's select_ntp_client: the configured one, else the first installed preferred one, else the first preferred.
 */
export async function selectNtpClient(
  ctx: ModuleContext,
  systemInfo: { readonly [key: string]: unknown } | undefined,
  requested: string | undefined,
): Promise<NtpClientConfig | undefined> {
  const table = clientConfigsFor(ctx.distro.name);
  if (requested && requested !== 'auto') return table[requested];
  const fromSystem = typeof systemInfo?.ntp_client === 'string' ? systemInfo.ntp_client : 'auto';
  if (fromSystem !== 'auto') return table[fromSystem];
  const preferred = preferredClients(ctx.distro.family);
  for (const name of preferred) {
    const c = table[name];
    if (c && (await whichInTarget(ctx.platform, c.check_exe))) return c;
  }
  return table[preferred[0] as string];
}

/** cloud-init's generate_server_names: 0..3.<distro>.pool.ntp.org (sles uses opensuse, alpine none). */
export function defaultPoolNames(distro: string): string[] {
  const pool = distro === 'sles' ? 'opensuse' : distro === 'alpine' || distro === 'eurolinux' ? '' : distro;
  return [0, 1, 2, 3].map((i) => [String(i), pool, 'pool.ntp.org'].filter(Boolean).join('.'));
}

/** kiln's own minimal config when the target carries no cloud-init template for the client. */
export function fallbackNtpConfig(
  client: NtpClientConfig,
  servers: string[],
  pools: string[],
  { allow = [], peers = [] }: { allow?: string[]; peers?: string[] } = {},
): string {
  if (client.service_name === 'systemd-timesyncd') return `[Time]\nNTP=${[...servers, ...pools].join(' ')}\n`;
  const lines = ['# Written by kiln (cloud-init ntp module): no template found for this client in the target'];
  for (const p of pools) lines.push(`pool ${p} iburst`);
  for (const s of servers) lines.push(`server ${s} iburst`);
  for (const p of peers) lines.push(`peer ${p}`);
  if (client.check_exe === 'chronyd') for (const a of allow) lines.push(`allow ${a}`);
  if (client.check_exe === 'chronyd') lines.push('driftfile /var/lib/chrony/chrony.drift', 'makestep 1.0 3', 'rtcsync');
  else
    lines.push(
      'driftfile /var/lib/ntp/ntp.drift',
      'restrict -4 default kod notrap nomodify nopeer noquery limited',
      'restrict 127.0.0.1',
    );
  return `${lines.join('\n')}\n`;
}

/** A host list (servers, pools, allow, peers) as the template prints it: each item its str(); null is none. */
function hostList(what: string): (v: unknown) => unknown {
  return (v) => {
    if (v === null) return undefined;
    if (!Array.isArray(v)) throw new ModuleError('ntp', `'${what}' must be a list of host names`);
    return v.map((h) => pyStr(h));
  };
}

/** Python's str() of a config value, as supplemental_schema_validation's "Found (…)" prints it. */
function foundText(v: unknown): string {
  return typeof v === 'object' && v !== null && !(v instanceof Date) ? pyRepr(v) : pyStr(v);
}

/**
 * supplemental_schema_validation of the merged client config C: the required keys, a template, each value's type (keys
 * in sorted order), in its words. Its message starts with a literal backslash-n (25.1 formats it from a raw string).
 */
function validateClientConfig(c: ClientConfigSetting): asserts c is ClientConfigSetting & NtpClientConfig {
  const errors: string[] = [];
  const missing = (['check_exe', 'confpath', 'packages', 'service_name'] as const).filter((k) => !(k in c)).sort();
  if (missing.length) errors.push(`Missing required ntp:config keys: ${missing.join(', ')}`);
  else if (!c.template && !c.template_name)
    errors.push('Either ntp:config:template or ntp:config:template_name values are required');
  for (const [k, v] of Object.entries(c).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const keypath = `ntp:config:${k}`;
    if (k === 'confpath') {
      if (!v || typeof v !== 'string') errors.push(`Expected a config file path ${keypath}. Found (${foundText(v)})`);
    } else if (k === 'packages') {
      if (!Array.isArray(v))
        errors.push(`Expected a list of required package names for ${keypath}. Found (${foundText(v)})`);
    } else if (k === 'template' || k === 'template_name') {
      if (v !== null && v !== undefined && typeof v !== 'string')
        errors.push(`Expected a string type for ${keypath}. Found (${foundText(v)})`);
    } else if (typeof v !== 'string') errors.push(`Expected a string type for ${keypath}. Found (${foundText(v)})`);
  }
  if (errors.length) throw new ModuleError('ntp', `Invalid ntp configuration:\\n${errors.join('\n')}`);
}

/** ntp.config as handle merges it over the client's defaults: a mapping, its values checked once merged. */
type ClientConfigSetting = { readonly [key: string]: unknown };

/** The ntp key as the module works with it. */
interface NtpSetting {
  enabled?: boolean;
  ntp_client?: string;
  config?: ClientConfigSetting;
  servers?: string[];
  pools?: string[];
  allow?: string[];
  peers?: string[];
}

/**
 * ntp as handle reads it: null is {} (install the client with defaults), another non-mapping fails in its words;
 * enabled by is_false; ntp.config a mapping merged as it is (anything else adds nothing), template_name included,
 * which 25.1's schema does not know but its handle merges and renders from (so the schema does not judge this key).
 */
function ntpSetting(raw: unknown): NtpSetting {
  if (raw === null) return {};
  if (!isRecord(raw))
    throw new ModuleError(
      'ntp',
      `'ntp' key existed in config, but not a dictionary type, is a ${Array.isArray(raw) ? 'list' : typeof raw} instead`,
    );
  return readConfigValue(
    {
      enabled: 'not-false',
      ntp_client: (v: unknown) => (typeof v === 'string' ? v : v ? foundText(v) : undefined),
      // template_name included: 25.1's schema omits it, but its handle merges it and looks the template up by it.
      config: (c: unknown) => (isRecord(c) ? c : undefined),
      servers: hostList('ntp:servers'),
      pools: hostList('ntp:pools'),
      allow: hostList('ntp:allow'),
      peers: hostList('ntp:peers'),
    },
    raw,
  ) as NtpSetting;
}

export const ntpModule: Module = configModule({
  name: 'ntp',
  stage: 'config',
  frequency: 'once-per-instance',
  // 25.1's meta distros by the names kiln detects (lower-case: OpenCloudOS, TencentOS), its BSDs left out.
  distros: [
    'almalinux',
    'alpine',
    'aosc',
    'azurelinux',
    'centos',
    'cloudlinux',
    'cos',
    'debian',
    'eurolinux',
    'fedora',
    'mariner',
    'miraclelinux',
    'openeuler',
    'opencloudos',
    'openmandriva',
    'opensuse',
    'opensuse-microos',
    'opensuse-tumbleweed',
    'opensuse-leap',
    'photon',
    'rhel',
    'rocky',
    'sle_hpc',
    'sle-micro',
    'sles',
    'tencentos',
    'ubuntu',
    'virtuozzo',
  ],
  activateBy: ['ntp'],
  // system_info names the distro's preferred client (ntp_client) and the templates folder.
  configKeys: { ntp: new OwnParser(ntpSetting), system_info: 'as-is' },
  async run(ctx, cfg): Promise<void> {
    const raw = cfg.ntp;
    if (raw === undefined) {
      ctx.log.debug('Skipping module named ntp, not present or disabled by cfg');
      return;
    }
    if (raw?.enabled === false) {
      ctx.log.debug('Skipping module named ntp, disabled by cfg');
      return;
    }
    const selected = await selectNtpClient(ctx, cfg.system_info, raw?.ntp_client);
    const client: ClientConfigSetting = { ...selected, ...raw?.config };
    validateClientConfig(client);
    const { platform } = ctx;
    // rename_ntp_conf: an existing config is kept as <path>.dist.
    if (await platform.exists(client.confpath)) {
      await platform.writeFile(`${client.confpath}.dist`, await platform.readFile(client.confpath));
      await platform.remove(client.confpath);
    }
    let servers = [...(raw?.servers ?? [])];
    let pools = [...(raw?.pools ?? [])];
    // 25.1's templates loop over allow and peers too (chrony's `allow`, `peer`), so both are always given.
    const allow = [...(raw?.allow ?? [])];
    const peers = [...(raw?.peers ?? [])];
    const distro = ctx.distro.name;
    if (!(servers.length === 0 && pools.length === 0 && distro === 'cos')) {
      if (servers.length === 0 && distro === 'alpine' && client.service_name === 'ntpd')
        servers = defaultPoolNames(distro);
      else if (servers.length === 0 && pools.length === 0) pools = defaultPoolNames(distro);
      let template = typeof client.template === 'string' && client.template ? client.template : undefined;
      if (template === undefined) {
        const name = (client.template_name ?? '').replaceAll('{distro}', distro);
        template = await readSystemTemplate(platform, { system_info: cfg.system_info }, name);
        if (template === undefined) {
          ctx.log.debug(`No template ${name} in the target; writing kiln's own ${client.confpath}`);
          template = fallbackNtpConfig(client, servers, pools, { allow, peers });
        }
      }
      await platform.writeFile(client.confpath, renderTemplateText(template, { servers, pools, allow, peers }), {
        mode: 0o644,
      });
    }
    if (!(await whichInTarget(platform, client.check_exe))) await installPackages(ctx, 'ntp', client.packages);
    try {
      await manageService(ctx, 'reload', client.service_name);
    } catch (err) {
      throw new ModuleError('ntp', `Failed to reload/start ntp service: ${describeError(err)}`, { cause: err });
    }
  },
});
