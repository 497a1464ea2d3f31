// Reads cloudbase-init.conf with oslo.config's INI rules and types its options with cloudbase-init's names and
// defaults.
import { parseIni, type RawConf, type RawValue } from './ini-file';
import { ConfigError } from '../util/errors';
import type { OptionSpec } from './option-spec';
import { OSLO_CONFIG_OPTIONS, OSLO_LOG_OPTIONS } from './oslo-options';

const PLUGIN = 'cloudbaseinit.plugins.';
const SERVICE = 'cloudbaseinit.metadata.services.';

/**
 * Every [DEFAULT] option cloudbase-init registers (cloudbaseinit/conf/default.py, oslo.log's and oslo.config's),
 * with cloudbase-init's defaults, and kiln's own (the reboot-loop guard, user_data_script_timeout). Those kiln
 * accepts but does nothing with are in NO_EFFECT_OPTIONS.
 */
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
  retry_count_interval: { type: 'float', default: 4 },
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
  heat_config_dir: { type: 'str', default: 'C:\\cfn' },
  user_data_plugins: {
    type: 'list',
    default: [
      'parthandler.PartHandlerPlugin',
      'cloudconfig.CloudConfigPlugin',
      'cloudboothook.CloudBootHookPlugin',
      'shellscript.ShellScriptPlugin',
      'multipartmixed.MultipartMixedPlugin',
      'heat.HeatPlugin',
    ].map((p) => `${PLUGIN}common.userdataplugins.${p}`),
  },
  cloud_config_plugins: { type: 'list', default: [] },
  userdata_save_path: { type: 'str', default: undefined },
  enable_reboot_loop_guard: { type: 'bool', default: true },
  max_consecutive_reboots: { type: 'int', default: 3 },
  bsdtar_path: { type: 'str', default: 'bsdtar.exe' },
  mtools_path: { type: 'str', default: undefined },
  logging_serial_port_settings: { type: 'str', default: undefined },
  metadata_report_provisioning_started: { type: 'bool', default: false },
  metadata_report_provisioning_completed: { type: 'bool', default: false },
  ...OSLO_LOG_OPTIONS,
  ...OSLO_CONFIG_OPTIONS,
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
  },
  gce: {
    metadata_base_url: { type: 'str', default: 'http://metadata.google.internal/computeMetadata/v1/' },
    https_allow_insecure: { type: 'bool', default: false },
    https_ca_bundle: { type: 'str', default: undefined },
  },
  nocloud: {
    metadata_file: { type: 'str', default: 'meta-data' },
    userdata_file: { type: 'str', default: 'user-data' },
  },
};

/**
 * Options kiln knows (no "unknown option" warning) but does nothing with, `section.name`, each with the reason
 * that is logged when a file sets one. docs/windows.md lists them.
 */
export const NO_EFFECT_OPTIONS: Readonly<Record<string, string>> = {
  'DEFAULT.reset_service_password': 'kiln runs as LocalSystem, which has no password to reset',
  'DEFAULT.stop_service_on_exit': 'the kiln service always stops when the flow ends',
  'DEFAULT.check_latest_version': 'kiln does not ask the network for newer versions',
  'DEFAULT.bsdtar_path': 'kiln reads ISO 9660 itself',
  'DEFAULT.mtools_path': 'kiln reads FAT itself',
  'DEFAULT.rename_admin_user': 'not implemented: the user is created under username',
  'DEFAULT.logging_serial_port_settings': 'not implemented: no serial port log',
  'DEFAULT.user_data_plugins': 'not implemented: every user data content type kiln knows is handled',
  'DEFAULT.cloud_config_plugins':
    "not implemented: every cloud-config key kiln knows is applied, in cloudbase-init's order",
  ...Object.fromEntries(
    Object.keys({ ...OSLO_LOG_OPTIONS, ...OSLO_CONFIG_OPTIONS })
      .filter((k) => !['debug', 'log_dir', 'log_file'].includes(k))
      .map((k) => [
        `DEFAULT.${k}`,
        k.startsWith('config_')
          ? 'kiln reads the files given by --config-file'
          : 'kiln logs its own way (only debug, log_dir and log_file apply)',
      ]),
  ),
  'config_drive.raw_hdd': 'kiln searches config_drive types × locations only',
  'config_drive.cdrom': 'kiln searches config_drive types × locations only',
  'config_drive.vfat': 'kiln searches config_drive types × locations only',
  'openstack.https_allow_insecure': 'not implemented: certificates are always checked',
  'openstack.https_ca_bundle': "not implemented: the system's CA certificates are used",
  'ec2.https_allow_insecure': 'not implemented: certificates are always checked',
  'ec2.https_ca_bundle': "not implemented: the system's CA certificates are used",
  'maas.https_allow_insecure': 'not implemented: certificates are always checked',
  'maas.https_ca_bundle': "not implemented: the system's CA certificates are used",
  'packet.https_allow_insecure': 'not implemented: certificates are always checked',
  'packet.https_ca_bundle': "not implemented: the system's CA certificates are used",
  'cloudstack.https_allow_insecure': 'not implemented: certificates are always checked',
  'cloudstack.https_ca_bundle': "not implemented: the system's CA certificates are used",
  'gce.https_allow_insecure': 'not implemented: certificates are always checked',
  'gce.https_ca_bundle': "not implemented: the system's CA certificates are used",
  'nocloud.metadata_file': "not implemented: kiln's NoCloud reads meta-data",
  'nocloud.userdata_file': "not implemented: kiln's NoCloud reads user-data",
};

/**
 * The older names oslo.config still reads an option by, `section.name` as a file writes it → the option's own:
 * cloudbase-init's deprecated_name/deprecated_group (cloudbaseinit/conf/*.py) and oslo.log's `logdir`/`logfile`,
 * which cloudbase-init's own example configuration uses. Where one file sets both, the option's own name wins, and
 * between files the later file wins whichever name it uses, as in oslo.config; the old name is reported as deprecated.
 */
export const DEPRECATED_NAMES: ReadonlyArray<readonly [from: string, to: string]> = [
  ['DEFAULT.logdir', 'DEFAULT.log_dir'],
  ['DEFAULT.logfile', 'DEFAULT.log_file'],
  ['DEFAULT.log-config', 'DEFAULT.log_config_append'],
  ['DEFAULT.log_config', 'DEFAULT.log_config_append'],
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
    said.push(
      `${old.file}:${old.line}: option '${fromKey}' in [${fromSection}] is deprecated: use '${toKey}' in [${toSection}]${kept ? ' (set too, and used instead)' : ''}`,
    );
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

/** oslo.config's group names: [DEFAULT] as written, any other section in lower case ([OpenStack] is [openstack]). */
function normalizeSection(section: string): string {
  return section === 'DEFAULT' ? section : section.toLowerCase();
}

/** Options a file sets that kiln knows but does nothing with (NO_EFFECT_OPTIONS), each with why. */
function noEffect(raw: RawConf): string[] {
  const said: string[] = [];
  for (const [section, keys] of raw) {
    for (const [key, v] of keys) {
      const why = NO_EFFECT_OPTIONS[`${section}.${key}`];
      if (why !== undefined)
        said.push(`${v.file}:${v.line}: option '${key}' in [${section}] has no effect in kiln: ${why}`);
    }
  }
  return said;
}

/** cloudbase-init's configuration, typed; reads fall back to cloudbase-init's defaults. */
export class CloudbaseConf {
  constructor(
    private readonly raw: RawConf,
    /** Unknown options, for the caller to warn about. */
    readonly unknown: string[],
    /** Options set under a deprecated name, read under their own (DEPRECATED_NAMES), for the caller to warn about. */
    readonly deprecated: string[] = [],
    /** Options set that kiln knows but does nothing with (NO_EFFECT_OPTIONS), for the caller to log. */
    readonly ignored: string[] = [],
  ) {}

  private value(section: string, key: string): string | boolean | number | string[] | undefined {
    const spec = section === 'DEFAULT' ? DEFAULT_OPTIONS[key] : SECTION_OPTIONS[section]?.[key];
    const raw = this.raw.get(section)?.get(key);
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
  float(key: string, section = 'DEFAULT'): number | undefined {
    const v = this.value(section, key);
    if (v === undefined || typeof v === 'number') return v;
    throw new ConfigError(`option '${key}' in [${section}] is not a number option`);
  }
  list(key: string, section = 'DEFAULT'): string[] | undefined {
    const v = this.value(section, key);
    if (v === undefined || Array.isArray(v)) return v;
    throw new ConfigError(`option '${key}' in [${section}] is not a list option`);
  }
  // The option's value, else cloudbase-init's default for it (DEFAULT_OPTIONS, SECTION_OPTIONS): the one place those
  // defaults are written. For an option kiln knows no default for, a ConfigError naming it (a mistake in kiln).
  strValue(key: string, section = 'DEFAULT'): string {
    const v = this.str(key, section);
    if (v !== undefined) return v;
    const d = this.defaultOf(key, section);
    if (typeof d !== 'string') throw new ConfigError(`option '${key}' in [${section}] is not a string option`);
    return d;
  }
  boolValue(key: string, section = 'DEFAULT'): boolean {
    return this.bool(key, section) ?? this.noDefault(key, section);
  }
  intValue(key: string, section = 'DEFAULT'): number {
    return this.int(key, section) ?? this.noDefault(key, section);
  }
  floatValue(key: string, section = 'DEFAULT'): number {
    return this.float(key, section) ?? this.noDefault(key, section);
  }
  listValue(key: string, section = 'DEFAULT'): string[] {
    return this.list(key, section) ?? this.noDefault(key, section);
  }
  private defaultOf(key: string, section: string): string | boolean | number | string[] {
    const d = (section === 'DEFAULT' ? DEFAULT_OPTIONS[key] : SECTION_OPTIONS[section]?.[key])?.default;
    return d ?? this.noDefault(key, section);
  }
  private noDefault(key: string, section: string): never {
    throw new ConfigError(`option '${key}' in [${section}] has no default in kiln's option table`);
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
  const deprecated: string[] = [];
  for (const f of files) {
    // Each file on its own first: a deprecated name yields to the own name in the same file, not to an earlier file's.
    const one: RawConf = new Map();
    for (const [section, keys] of parseIni(f.text, f.path)) {
      const into = one.get(normalizeSection(section)) ?? new Map<string, RawValue>();
      one.set(normalizeSection(section), into);
      for (const [key, v] of keys) into.set(key, v);
    }
    deprecated.push(...renameDeprecated(one));
    for (const [section, keys] of one) {
      const into = raw.get(section) ?? new Map<string, RawValue>();
      raw.set(section, into);
      for (const [key, v] of keys) into.set(key, v);
    }
  }
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
  return new CloudbaseConf(raw, unknown, deprecated, noEffect(raw));
}
