// Every option oslo.config accepts in cloudbase-init.conf, deprecated names and groups included, is one kiln knows:
// the complete list, written out here from cloudbase-init's cloudbaseinit/conf/*.py, oslo.log's _options.py and
// oslo.config's own, each marked with whether kiln acts on it (the rest are listed in docs/windows.md).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  DEFAULT_OPTIONS,
  SECTION_OPTIONS,
  loadCloudbaseConf,
  type CloudbaseConf,
} from '../../src/config/cloudbase-init-conf';
import { REPO } from '../helpers/repo';

type Type = 'str' | 'bool' | 'int' | 'float' | 'list';

interface Row {
  /** `section.name` as a file writes it. */
  option: string;
  type: Type;
  /** Whether kiln acts on it; false: known, logged as having no effect, listed in docs/windows.md. */
  acts: boolean;
  /** oslo.config's deprecated names (deprecated_name / deprecated_group), `section.name`. */
  old?: string[];
}

const r = (option: string, type: Type, acts: boolean, old?: string[]): Row => ({
  option,
  type,
  acts,
  ...(old ? { old } : {}),
});

/** cloudbaseinit/conf/default.py (GlobalOptions, its cli option reset_service_password included). */
const CLOUDBASE_DEFAULT: Row[] = [
  r('DEFAULT.allow_reboot', 'bool', true),
  r('DEFAULT.stop_service_on_exit', 'bool', false),
  r('DEFAULT.check_latest_version', 'bool', false),
  r('DEFAULT.retry_count', 'int', true),
  r('DEFAULT.retry_count_interval', 'float', true),
  r('DEFAULT.mtools_path', 'str', false),
  r('DEFAULT.bsdtar_path', 'str', false),
  r('DEFAULT.netbios_host_name_compatibility', 'bool', true),
  r('DEFAULT.logging_serial_port_settings', 'str', false),
  r('DEFAULT.activate_windows', 'bool', true),
  r('DEFAULT.set_kms_product_key', 'bool', true),
  r('DEFAULT.set_avma_product_key', 'bool', true),
  r('DEFAULT.kms_host', 'str', true),
  r('DEFAULT.log_licensing_info', 'bool', true),
  r('DEFAULT.winrm_enable_basic_auth', 'bool', true),
  r('DEFAULT.winrm_configure_http_listener', 'bool', true),
  r('DEFAULT.winrm_configure_https_listener', 'bool', true),
  r('DEFAULT.volumes_to_extend', 'list', true),
  r('DEFAULT.san_policy', 'str', true),
  r('DEFAULT.local_scripts_path', 'str', true),
  r('DEFAULT.mtu_use_dhcp_config', 'bool', true),
  r('DEFAULT.username', 'str', true),
  r('DEFAULT.groups', 'list', true),
  r('DEFAULT.rename_admin_user', 'bool', false),
  r('DEFAULT.heat_config_dir', 'str', true),
  r('DEFAULT.ntp_enable_service', 'bool', true),
  r('DEFAULT.ntp_use_dhcp_config', 'bool', true),
  r('DEFAULT.real_time_clock_utc', 'bool', true),
  r('DEFAULT.inject_user_password', 'bool', true),
  r('DEFAULT.first_logon_behaviour', 'str', true),
  r('DEFAULT.metadata_services', 'list', true),
  r('DEFAULT.plugins', 'list', true),
  r('DEFAULT.user_data_plugins', 'list', false),
  r('DEFAULT.cloud_config_plugins', 'list', false),
  r('DEFAULT.rdp_set_keepalive', 'bool', true),
  r('DEFAULT.bcd_boot_status_policy', 'str', true),
  r('DEFAULT.bcd_enable_auto_recovery', 'bool', true),
  r('DEFAULT.set_unique_boot_disk_id', 'bool', true),
  r('DEFAULT.display_idle_timeout', 'int', true),
  r('DEFAULT.page_file_volume_labels', 'list', true),
  r('DEFAULT.page_file_volume_mount_points', 'list', true),
  r('DEFAULT.trim_enabled', 'bool', true),
  r('DEFAULT.process_userdata', 'bool', true),
  r('DEFAULT.userdata_save_path', 'str', true),
  r('DEFAULT.enable_automatic_updates', 'bool', true),
  r('DEFAULT.metadata_report_provisioning_started', 'bool', true),
  r('DEFAULT.metadata_report_provisioning_completed', 'bool', true),
  r('DEFAULT.ephemeral_disk_volume_label', 'str', true),
  r('DEFAULT.ephemeral_disk_volume_mount_point', 'str', true),
  r('DEFAULT.ephemeral_disk_data_loss_warning_path', 'str', true),
  r('DEFAULT.user_password_length', 'int', true),
  r('DEFAULT.reset_service_password', 'bool', false),
];

/**
 * The groups of
 * cloudbaseinit/conf/{cloudconfig,openstack,ec2,maas,cloudstack,azure,ovf,packet,vmwareguestinfo,gce,nocloud}.py.
 */
const CLOUDBASE_GROUPS: Row[] = [
  r('config_drive.raw_hdd', 'bool', false, ['DEFAULT.config_drive_raw_hhd']),
  r('config_drive.cdrom', 'bool', false, ['DEFAULT.config_drive_cdrom']),
  r('config_drive.vfat', 'bool', false, ['DEFAULT.config_drive_vfat']),
  r('config_drive.types', 'list', true, ['DEFAULT.config_drive_types']),
  r('config_drive.locations', 'list', true, ['DEFAULT.config_drive_locations']),
  r('openstack.metadata_base_url', 'str', true, ['DEFAULT.metadata_base_url']),
  r('openstack.add_metadata_private_ip_route', 'bool', true, ['DEFAULT.add_metadata_private_ip_route']),
  r('openstack.https_allow_insecure', 'bool', false),
  r('openstack.https_ca_bundle', 'str', false),
  r('ec2.metadata_base_url', 'str', true, ['DEFAULT.ec2_metadata_base_url']),
  r('ec2.add_metadata_private_ip_route', 'bool', true, ['DEFAULT.ec2_add_metadata_private_ip_route']),
  r('ec2.https_allow_insecure', 'bool', false),
  r('ec2.https_ca_bundle', 'str', false),
  r('maas.metadata_base_url', 'str', true, ['DEFAULT.maas_metadata_url']),
  r('maas.oauth_consumer_key', 'str', true, ['DEFAULT.maas_oauth_consumer_key']),
  r('maas.oauth_consumer_secret', 'str', true, ['DEFAULT.maas_oauth_consumer_secret']),
  r('maas.oauth_token_key', 'str', true, ['DEFAULT.maas_oauth_token_key']),
  r('maas.oauth_token_secret', 'str', true, ['DEFAULT.maas_oauth_token_secret']),
  r('maas.https_allow_insecure', 'bool', false),
  r('maas.https_ca_bundle', 'str', false),
  r('cloudstack.metadata_base_url', 'str', true, ['DEFAULT.cloudstack_metadata_ip']),
  r('cloudstack.password_server_port', 'int', true),
  r('cloudstack.https_allow_insecure', 'bool', false),
  r('cloudstack.https_ca_bundle', 'str', false),
  r('cloudstack.add_metadata_private_ip_route', 'bool', true),
  r('azure.transport_cert_store_name', 'str', true),
  r('ovf.config_file_name', 'str', true),
  r('ovf.drive_label', 'str', true),
  r('ovf.ns', 'str', true),
  r('packet.metadata_base_url', 'str', true),
  r('packet.https_allow_insecure', 'bool', false),
  r('packet.https_ca_bundle', 'str', false),
  r('vmwareguestinfo.vmware_rpctool_path', 'str', true),
  r('gce.metadata_base_url', 'str', true),
  r('gce.https_allow_insecure', 'bool', false),
  r('gce.https_ca_bundle', 'str', false),
  r('nocloud.metadata_file', 'str', false),
  r('nocloud.userdata_file', 'str', false),
];

/** oslo.log's register_options (dashed names as a file writes them), then what older oslo.log releases had. */
const OSLO_LOG: Row[] = [
  r('DEFAULT.debug', 'bool', true),
  r('DEFAULT.log_config_append', 'str', false, ['DEFAULT.log-config', 'DEFAULT.log_config']),
  r('DEFAULT.log_date_format', 'str', false),
  r('DEFAULT.log_file', 'str', true, ['DEFAULT.logfile']),
  r('DEFAULT.log_dir', 'str', true, ['DEFAULT.logdir']),
  r('DEFAULT.use_syslog', 'bool', false),
  r('DEFAULT.use_journal', 'bool', false),
  r('DEFAULT.syslog_log_facility', 'str', false),
  r('DEFAULT.use_json', 'bool', false),
  r('DEFAULT.use_stderr', 'bool', false),
  r('DEFAULT.log_color', 'bool', false),
  r('DEFAULT.log_rotate_interval', 'int', false),
  r('DEFAULT.log_rotate_interval_type', 'str', false),
  r('DEFAULT.max_logfile_count', 'int', false),
  r('DEFAULT.max_logfile_size_mb', 'int', false),
  r('DEFAULT.log_rotation_type', 'str', false),
  r('DEFAULT.logging_context_format_string', 'str', false),
  r('DEFAULT.logging_default_format_string', 'str', false),
  r('DEFAULT.logging_debug_format_suffix', 'str', false),
  r('DEFAULT.logging_exception_prefix', 'str', false),
  r('DEFAULT.logging_user_identity_format', 'str', false),
  r('DEFAULT.default_log_levels', 'list', false),
  r('DEFAULT.publish_errors', 'bool', false),
  r('DEFAULT.instance_format', 'str', false),
  r('DEFAULT.instance_uuid_format', 'str', false),
  r('DEFAULT.rate_limit_interval', 'int', false),
  r('DEFAULT.rate_limit_burst', 'int', false),
  r('DEFAULT.rate_limit_except_level', 'str', false),
  r('DEFAULT.fatal_deprecations', 'bool', false),
  r('DEFAULT.verbose', 'bool', false),
  r('DEFAULT.log_format', 'str', false),
  r('DEFAULT.use_syslog_rfc_format', 'bool', false),
  r('DEFAULT.watch_log_file', 'bool', false),
  r('DEFAULT.use_eventlog', 'bool', false),
];

/** oslo.config's own. */
const OSLO_CONFIG: Row[] = [
  r('DEFAULT.config_file', 'list', false),
  r('DEFAULT.config_dir', 'list', false),
  r('DEFAULT.config_source', 'list', false),
];

const ALL = [...CLOUDBASE_DEFAULT, ...CLOUDBASE_GROUPS, ...OSLO_LOG, ...OSLO_CONFIG];

/** kiln's own options, beside cloudbase-init's: the reboot-loop guard, the script timeout, the wireserver's URL. */
const KILN_ONLY = [
  'DEFAULT.enable_reboot_loop_guard',
  'DEFAULT.max_consecutive_reboots',
  'DEFAULT.user_data_script_timeout',
  'azure.wireserver_url',
];

const SAMPLE: Record<Type, { text: string; value: unknown }> = {
  str: { text: 'some text', value: 'some text' },
  bool: { text: 'yes', value: true },
  int: { text: '7', value: 7 },
  float: { text: '2.5', value: 2.5 },
  list: { text: 'a, b', value: ['a', 'b'] },
};

function split(option: string): [section: string, key: string] {
  const dot = option.indexOf('.');
  return [option.slice(0, dot), option.slice(dot + 1)];
}

function read(conf: CloudbaseConf, option: string, type: Type): unknown {
  const [section, key] = split(option);
  return conf[type](key, section);
}

function load(option: string, text: string): CloudbaseConf {
  const [section, key] = split(option);
  return loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: `[${section}]\n${key} = ${text}\n` }]);
}

for (const row of ALL) {
  test(`${row.option} (${row.type}) is known, typed, and ${row.acts ? 'acted on' : 'logged as having no effect'}`, () => {
    const conf = load(row.option, SAMPLE[row.type].text);
    assert.deepEqual(conf.unknown, []);
    assert.deepEqual(read(conf, row.option, row.type), SAMPLE[row.type].value);
    const [section, key] = split(row.option);
    const noted = conf.ignored.filter((n) => n.includes(`option '${key}' in [${section}] has no effect`));
    assert.equal(noted.length, row.acts ? 0 : 1, conf.ignored.join('\n'));
  });
  for (const old of row.old ?? []) {
    test(`${old} is read as ${row.option}, with a deprecation warning`, () => {
      const conf = load(old, SAMPLE[row.type].text);
      assert.deepEqual(conf.unknown, []);
      assert.deepEqual(read(conf, row.option, row.type), SAMPLE[row.type].value);
      const [oldSection, oldKey] = split(old);
      assert.ok(
        conf.deprecated.some((d) => d.includes(`option '${oldKey}' in [${oldSection}] is deprecated`)),
        conf.deprecated.join('\n'),
      );
    });
  }
}

test('kiln knows no option but these and its own: the list above is complete both ways', () => {
  const known = [
    ...Object.keys(DEFAULT_OPTIONS).map((k) => `DEFAULT.${k}`),
    ...Object.entries(SECTION_OPTIONS).flatMap(([s, keys]) => Object.keys(keys).map((k) => `${s}.${k}`)),
  ].sort();
  assert.deepEqual(known, [...ALL.map((row) => row.option), ...KILN_ONLY].sort());
});

test('docs/windows.md lists every option kiln knows but does not act on, and no other', () => {
  const doc = readFileSync(join(REPO, 'docs', 'windows.md'), 'utf8');
  const para = /Known options that have no effect in kiln[^\n]*\n((?:.+\n)+)/.exec(doc);
  assert.ok(para, 'docs/windows.md has the paragraph "Known options that have no effect in kiln"');
  const listed = [...(para[1] as string).matchAll(/`\[([A-Za-z0-9_]+)\] ([a-z0-9_]+)`/g)]
    .map((m) => `${m[1]}.${m[2]}`)
    .sort();
  assert.deepEqual(
    listed,
    ALL.filter((row) => !row.acts)
      .map((row) => row.option)
      .sort(),
  );
});

test('section names are read in lower case, as oslo.config does; [DEFAULT] only as written', () => {
  const conf = loadCloudbaseConf([
    { path: 'c.conf', text: '[OpenStack]\nmetadata_base_url = http://127.0.0.1:1/\n[Config_Drive]\ntypes = iso\n' },
  ]);
  assert.equal(conf.str('metadata_base_url', 'openstack'), 'http://127.0.0.1:1/');
  assert.deepEqual(conf.list('types', 'config_drive'), ['iso']);
  assert.deepEqual(conf.unknown, []);
});

test('between files the later one wins, whichever name it sets the option by; within a file the own name wins', () => {
  const conf = loadCloudbaseConf([
    { path: 'a.conf', text: '[DEFAULT]\nlog_file = first.log\nlogdir = C:\\a\n' },
    { path: 'b.conf', text: '[DEFAULT]\nlogfile = second.log\n[DEFAULT]\nlog_dir = C:\\b\nlogdir = C:\\ignored\n' },
  ]);
  assert.equal(conf.str('log_file'), 'second.log');
  assert.equal(conf.str('log_dir'), 'C:\\b');
});

test("retry_count_interval takes a fraction of a second, as cloudbase-init's FloatOpt", () => {
  assert.equal(load('DEFAULT.retry_count_interval', '0.5').float('retry_count_interval'), 0.5);
  assert.throws(
    () => load('DEFAULT.retry_count_interval', 'soon'),
    /cloudbase-init\.conf:2: option 'retry_count_interval' wants a number/,
  );
});
