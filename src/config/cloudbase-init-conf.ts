// Reads cloudbase-init.conf with oslo.config's INI rules and types its options with cloudbase-init's names and defaults.
import { parseIni, type RawConf, type RawValue } from './ini-file';
import { ConfigError } from '../util/errors';

export type OptionType = 'str' | 'bool' | 'int' | 'float' | 'list';

export interface OptionSpec {
  type: OptionType;
  /** The default as oslo.config states it (undefined for options with no default, None in Python). */
  default: string | boolean | number | string[] | undefined;
}

const PLUGIN = 'cloudbaseinit.plugins.';
const SERVICE = 'cloudbaseinit.metadata.services.';

/** cloudbase-init's [DEFAULT] options that kiln reads, with cloudbase-init's defaults. */
export const DEFAULT_OPTIONS: Record<string, OptionSpec> = {
  username: { type: 'str', default: 'Admin' },
  groups: { type: 'list', default: ['Administrators'] },
  inject_user_password: { type: 'bool', default: true },
  first_logon_behaviour: { type: 'str', default: 'clear_text_injected_only' },
  rename_admin_user: { type: 'bool', default: false },
  user_password_length: { type: 'int', default: 20 },
  reset_service_password: { type: 'bool', default: true },
  metadata_services: {
    type: 'list',
    default: [
      `${SERVICE}httpservice.HttpService`,
      `${SERVICE}configdrive.ConfigDriveService`,
      `${SERVICE}ec2service.EC2Service`,
      `${SERVICE}maasservice.MaaSHttpService`,
      `${SERVICE}cloudstack.CloudStack`,
      `${SERVICE}opennebulaservice.OpenNebulaService`,
    ],
  },
  plugins: {
    type: 'list',
    default: [
      `${PLUGIN}common.mtu.MTUPlugin`,
      `${PLUGIN}windows.ntpclient.NTPClientPlugin`,
      `${PLUGIN}common.sethostname.SetHostNamePlugin`,
      `${PLUGIN}windows.createuser.CreateUserPlugin`,
      `${PLUGIN}common.networkconfig.NetworkConfigPlugin`,
      `${PLUGIN}windows.licensing.WindowsLicensingPlugin`,
      `${PLUGIN}common.sshpublickeys.SetUserSSHPublicKeysPlugin`,
      `${PLUGIN}windows.extendvolumes.ExtendVolumesPlugin`,
      `${PLUGIN}common.userdata.UserDataPlugin`,
      `${PLUGIN}common.setuserpassword.SetUserPasswordPlugin`,
      `${PLUGIN}windows.winrmlistener.ConfigWinRMListenerPlugin`,
      `${PLUGIN}windows.winrmcertificateauth.ConfigWinRMCertificateAuthPlugin`,
      `${PLUGIN}common.localscripts.LocalScriptsPlugin`,
    ],
  },
  allow_reboot: { type: 'bool', default: true },
  stop_service_on_exit: { type: 'bool', default: true },
  check_latest_version: { type: 'bool', default: false },
  retry_count: { type: 'int', default: 5 },
  retry_count_interval: { type: 'int', default: 4 },
  local_scripts_path: { type: 'str', default: undefined },
  mtu_use_dhcp_config: { type: 'bool', default: true },
  ntp_use_dhcp_config: { type: 'bool', default: false },
  ntp_enable_service: { type: 'bool', default: true },
  real_time_clock_utc: { type: 'bool', default: false },
  netbios_host_name_compatibility: { type: 'bool', default: true },
  activate_windows: { type: 'bool', default: false },
  set_kms_product_key: { type: 'bool', default: false },
  set_avma_product_key: { type: 'bool', default: false },
  kms_host: { type: 'str', default: undefined },
  log_licensing_info: { type: 'bool', default: true },
  winrm_enable_basic_auth: { type: 'bool', default: true },
  winrm_configure_https_listener: { type: 'bool', default: true },
  winrm_configure_http_listener: { type: 'bool', default: false },
  rdp_set_keepalive: { type: 'bool', default: true },
  bcd_boot_status_policy: { type: 'str', default: undefined },
  bcd_enable_auto_recovery: { type: 'bool', default: false },
  set_unique_boot_disk_id: { type: 'bool', default: true },
  display_idle_timeout: { type: 'int', default: 0 },
  page_file_volume_labels: { type: 'list', default: [] },
  page_file_volume_mount_points: { type: 'list', default: [] },
  san_policy: { type: 'str', default: undefined },
  trim_enabled: { type: 'bool', default: false },
  enable_automatic_updates: { type: 'bool', default: undefined },
  volumes_to_extend: { type: 'list', default: undefined },
  ephemeral_disk_volume_label: { type: 'str', default: undefined },
  ephemeral_disk_volume_mount_point: { type: 'str', default: undefined },
  ephemeral_disk_data_loss_warning_path: { type: 'str', default: undefined },
  user_data_script_timeout: { type: 'int', default: 0 },
  process_userdata: { type: 'bool', default: true },
  userdata_save_path: { type: 'str', default: undefined },
  enable_reboot_loop_guard: { type: 'bool', default: true },
  max_consecutive_reboots: { type: 'int', default: 3 },
  wait_for_sysprep: { type: 'bool', default: true },
  // Accepted for compatibility; kiln needs neither bsdtar nor mtools, and logs its own way.
  bsdtar_path: { type: 'str', default: undefined },
  mtools_path: { type: 'str', default: undefined },
  verbose: { type: 'bool', default: false },
  debug: { type: 'bool', default: false },
  log_dir: { type: 'str', default: undefined },
  log_file: { type: 'str', default: undefined },
  default_log_levels: { type: 'list', default: [] },
  logging_serial_port_settings: { type: 'str', default: undefined },
  metadata_report_provisioning_started: { type: 'bool', default: false },
  metadata_report_provisioning_completed: { type: 'bool', default: false },
  logging_level: { type: 'str', default: undefined },
  use_stdout: { type: 'bool', default: false },
};

/** Options of named sections kiln reads ([config_drive], [ec2], [openstack] …). */
export const SECTION_OPTIONS: Record<string, Record<string, OptionSpec>> = {
  config_drive: {
    raw_hdd: { type: 'bool', default: true },
    cdrom: { type: 'bool', default: true },
    vfat: { type: 'bool', default: true },
    types: { type: 'list', default: ['vfat', 'iso'] },
    locations: { type: 'list', default: ['cdrom', 'hdd', 'partition'] },
  },
  openstack: {
    metadata_base_url: { type: 'str', default: 'http://169.254.169.254/' },
    add_metadata_private_ip_route: { type: 'bool', default: true },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
  },
  ovf: {
    config_file_name: { type: 'str', default: 'ovf-env.xml' },
    drive_label: { type: 'str', default: 'OVF ENV' },
    ns: { type: 'str', default: 'oe' },
  },
  vmwareguestinfo: {
    vmware_rpctool_path: { type: 'str', default: '%ProgramFiles%/VMware/VMware Tools/rpctool.exe' },
  },
  ec2: {
    metadata_base_url: { type: 'str', default: 'http://169.254.169.254/' },
    add_metadata_private_ip_route: { type: 'bool', default: true },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
  },
  azure: {
    transport_cert_store_name: { type: 'str', default: 'Windows Azure Environment' },
    /** kiln's: the wireserver's URL instead of DHCP option 245 and the well-known address. */
    wireserver_url: { type: 'str', default: undefined },
  },
  maas: {
    metadata_base_url: { type: 'str', default: undefined },
    oauth_consumer_key: { type: 'str', default: '' },
    oauth_consumer_secret: { type: 'str', default: '' },
    oauth_token_key: { type: 'str', default: '' },
    oauth_token_secret: { type: 'str', default: '' },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
  },
  packet: {
    metadata_base_url: { type: 'str', default: 'https://metadata.packet.net/' },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
  },
  cloudstack: {
    metadata_base_url: { type: 'str', default: 'http://data-server/' },
    password_server_port: { type: 'int', default: 8080 },
    add_metadata_private_ip_route: { type: 'bool', default: false },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
    disk_label: { type: 'str', default: 'config-2' },
  },
  gce: {
    metadata_base_url: { type: 'str', default: 'http://metadata.google.internal/computeMetadata/v1/' },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
  },
};


/**
 * The older names oslo.config still reads an option by, `section.name` as a file writes it → the option's own:
 * cloudbase-init's deprecated_name/deprecated_group (cloudbaseinit/conf/*.py) and oslo.log's `logdir`/`logfile`,
 * which cloudbase-init's own example configuration uses. Where a file sets both, the option's own name wins, as in
 * oslo.config, and either way the old name is reported as deprecated.
 */
export const DEPRECATED_NAMES: ReadonlyArray<readonly [from: string, to: string]> = [
  ['DEFAULT.logdir', 'DEFAULT.log_dir'],
  ['DEFAULT.logfile', 'DEFAULT.log_file'],
  ['DEFAULT.config_drive_raw_hhd', 'config_drive.raw_hdd'],
  ['DEFAULT.config_drive_cdrom', 'config_drive.cdrom'],
  ['DEFAULT.config_drive_vfat', 'config_drive.vfat'],
  ['DEFAULT.config_drive_types', 'config_drive.types'],
  ['DEFAULT.config_drive_locations', 'config_drive.locations'],
  ['DEFAULT.metadata_base_url', 'openstack.metadata_base_url'],
  ['DEFAULT.add_metadata_private_ip_route', 'openstack.add_metadata_private_ip_route'],
  ['DEFAULT.ec2_metadata_base_url', 'ec2.metadata_base_url'],
  ['DEFAULT.ec2_add_metadata_private_ip_route', 'ec2.add_metadata_private_ip_route'],
  ['DEFAULT.cloudstack_metadata_ip', 'cloudstack.metadata_base_url'],
  ['DEFAULT.maas_metadata_url', 'maas.metadata_base_url'],
  ['DEFAULT.maas_oauth_consumer_key', 'maas.oauth_consumer_key'],
  ['DEFAULT.maas_oauth_consumer_secret', 'maas.oauth_consumer_secret'],
  ['DEFAULT.maas_oauth_token_key', 'maas.oauth_token_key'],
  ['DEFAULT.maas_oauth_token_secret', 'maas.oauth_token_secret'],
];

/** Moves every value set under a deprecated name to the option's own name (unless that is set too); says what moved. */
function renameDeprecated(raw: RawConf): string[] {
  const said: string[] = [];
  for (const [from, to] of DEPRECATED_NAMES) {
    const [fromSection, fromKey] = from.split('.') as [string, string];
    const [toSection, toKey] = to.split('.') as [string, string];
    const old = raw.get(fromSection)?.get(fromKey);
    if (old === undefined) continue;
    raw.get(fromSection)?.delete(fromKey);
    const target = raw.get(toSection) ?? new Map<string, RawValue>();
    raw.set(toSection, target);
    const kept = target.has(toKey);
    if (!kept) target.set(toKey, old);
    said.push(`${old.file}:${old.line}: option '${fromKey}' in [${fromSection}] is deprecated: use '${toKey}' in [${toSection}]${kept ? ' (set too, and used instead)' : ''}`);
  }
  return said;
}

const TRUE = new Set(['true', '1', 'yes', 'on', 't', 'y']);
const FALSE = new Set(['false', '0', 'no', 'off', 'f', 'n']);

function convert(raw: RawValue, key: string, spec: OptionSpec): string | boolean | number | string[] {
  const where = `${raw.file}:${raw.line}: option '${key}'`;
  switch (spec.type) {
    case 'str':
      return raw.value;
    case 'bool': {
      const v = raw.value.toLowerCase();
      if (TRUE.has(v)) return true;
      if (FALSE.has(v)) return false;
      throw new ConfigError(`${where} wants a boolean (true/false, yes/no, on/off, 1/0), got '${raw.value}'`);
    }
    case 'int': {
      if (!/^[-+]?\d+$/.test(raw.value)) throw new ConfigError(`${where} wants an integer, got '${raw.value}'`);
      return Number.parseInt(raw.value, 10);
    }
    case 'float': {
      const n = Number(raw.value);
      if (raw.value === '' || Number.isNaN(n)) throw new ConfigError(`${where} wants a number, got '${raw.value}'`);
      return n;
    }
    case 'list':
      return raw.value
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter((s) => s !== '');
  }
}

/** cloudbase-init's configuration, typed; reads fall back to cloudbase-init's defaults. */
export class CloudbaseConf {
  constructor(
    private readonly raw: RawConf,
    /** Unknown options, for the caller to warn about. */
    readonly unknown: string[],
    /** Options set under a deprecated name, read under their own (DEPRECATED_NAMES), for the caller to warn about. */
    readonly deprecated: string[] = [],
  ) {}

  private value(section: string, key: string): string | boolean | number | string[] | undefined {
    const spec = section === 'DEFAULT' ? DEFAULT_OPTIONS[key] : SECTION_OPTIONS[section]?.[key];
    const raw = this.raw.get(section)?.get(key) ?? (section !== 'DEFAULT' ? undefined : undefined);
    if (!spec) return raw?.value;
    return raw ? convert(raw, key, spec) : spec.default;
  }

  str(key: string, section = 'DEFAULT'): string | undefined {
    const v = this.value(section, key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw new ConfigError(`option '${key}' in [${section}] is not a string option`);
    return v === '' ? undefined : v;
  }
  bool(key: string, section = 'DEFAULT'): boolean | undefined {
    const v = this.value(section, key);
    if (v === undefined || typeof v === 'boolean') return v;
    throw new ConfigError(`option '${key}' in [${section}] is not a boolean option`);
  }
  int(key: string, section = 'DEFAULT'): number | undefined {
    const v = this.value(section, key);
    if (v === undefined || typeof v === 'number') return v;
    throw new ConfigError(`option '${key}' in [${section}] is not an integer option`);
  }
  list(key: string, section = 'DEFAULT'): string[] | undefined {
    const v = this.value(section, key);
    if (v === undefined || Array.isArray(v)) return v;
    throw new ConfigError(`option '${key}' in [${section}] is not a list option`);
  }
  /** Whether the option was set in a file (rather than defaulted). */
  isSet(key: string, section = 'DEFAULT'): boolean {
    return this.raw.get(section)?.has(key) ?? false;
  }
  /** Overrides one option (command-line flags such as --noreset_service_password). */
  set(key: string, value: string, section = 'DEFAULT'): void {
    if (!this.raw.has(section)) this.raw.set(section, new Map());
    this.raw.get(section)?.set(key, { value, file: 'command line', line: 0 });
  }
  /** Every section → key → text, for plugins and dumps. */
  toRecord(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [section, keys] of this.raw) {
      out[section] = {};
      for (const [k, v] of keys) (out[section] as Record<string, string>)[k] = v.value;
    }
    return out;
  }
}

/** Parses and type-checks the given files (later files override earlier ones); conversion errors throw ConfigError. */
export function loadCloudbaseConf(files: Array<{ path: string; text: string }>): CloudbaseConf {
  const raw: RawConf = new Map([['DEFAULT', new Map()]]);
  for (const f of files) parseIni(f.text, f.path, raw);
  const deprecated = renameDeprecated(raw);
  const unknown: string[] = [];
  for (const [section, keys] of raw) {
    const known = section === 'DEFAULT' ? DEFAULT_OPTIONS : SECTION_OPTIONS[section];
    for (const [key, v] of keys) {
      const spec = known?.[key];
      if (!spec) {
        if (known) unknown.push(`${v.file}:${v.line}: unknown option '${key}' in [${section}] (ignored)`);
        continue;
      }
      convert(v, key, spec);
    }
  }
  return new CloudbaseConf(raw, unknown, deprecated);
}
