// The cloud-config schema: every top-level key cloud-init 25.1 knows, each with its module's rules; any other
// top-level key is an error, as upstream's `additionalProperties: false` at the top makes it.
import { CONFIG_MANAGEMENT_KEYS } from './cloud-config-config-management';
import { PACKAGE_KEYS } from './cloud-config-packages';
import { STORAGE_KEYS } from './cloud-config-storage';
import { SYSTEM_KEYS } from './cloud-config-system';
import { USERS_AND_ACCESS_KEYS } from './cloud-config-users';
import {
  anyObject,
  closedObject,
  enumOf,
  int,
  nonEmptyArrayOf,
  oneOf,
  str,
  deprecated,
  stringEnum,
  arrayOf,
} from './schema-builders';

/** The module names a stage's module list takes (each in cloud-init's dashed and underscored spelling). */
const MODULE_NAMES = [
  'ansible',
  'apk_configure',
  'apt_configure',
  'apt_pipelining',
  'bootcmd',
  'byobu',
  'ca_certs',
  'chef',
  'disable_ec2_metadata',
  'disk_setup',
  'fan',
  'final_message',
  'growpart',
  'grub_dpkg',
  'install_hotplug',
  'keyboard',
  'keys_to_console',
  'landscape',
  'locale',
  'lxd',
  'mcollective',
  'mounts',
  'ntp',
  'package_update_upgrade_install',
  'phone_home',
  'power_state_change',
  'puppet',
  'reset_rmc',
  'resizefs',
  'resolv_conf',
  'rh_subscription',
  'rsyslog',
  'runcmd',
  'salt_minion',
  'scripts_per_boot',
  'scripts_per_instance',
  'scripts_per_once',
  'scripts_user',
  'scripts_vendor',
  'seed_random',
  'set_hostname',
  'set_passwords',
  'snap',
  'spacewalk',
  'ssh',
  'ssh_authkey_fingerprints',
  'ssh_import_id',
  'timezone',
  'ubuntu_advantage',
  'ubuntu_autoinstall',
  'ubuntu_drivers',
  'ubuntu_pro',
  'update_etc_hosts',
  'update_hostname',
  'users_groups',
  'wireguard',
  'write_files',
  'write_files_deferred',
  'yum_add_repo',
  'zypper_add_repo',
] as const;
/** Each name also in its dashed spelling, except ubuntu_pro (25.1's list has no ubuntu-pro). */
const moduleName = enumOf(
  ...MODULE_NAMES.flatMap((m) => (m.includes('_') && m !== 'ubuntu_pro' ? [m.replace(/_/g, '-'), m] : [m])),
);

/** A stage's module list: a module's name, or a list naming it and its frequency (not checked further, as upstream). */
const moduleList = { type: 'array', items: oneOf(moduleName, { type: 'array' }) } as const;

/** merge_how: a merger string, or the mergers as a list of named settings. */
const mergeRules = oneOf(
  str,
  nonEmptyArrayOf({
    ...closedObject({
      name: stringEnum('list', 'dict', 'str'),
      settings: arrayOf(
        stringEnum(
          'allow_delete',
          'no_replace',
          'replace',
          'append',
          'prepend',
          'recurse_dict',
          'recurse_list',
          'recurse_array',
          'recurse_str',
        ),
      ),
    }),
    required: ['name', 'settings'],
  }),
);

const BASE_KEYS = {
  cloud_init_modules: moduleList,
  cloud_config_modules: moduleList,
  cloud_final_modules: moduleList,
  'launch-index': int,
  merge_how: mergeRules,
  merge_type: mergeRules,
  system_info: deprecated(
    anyObject,
    '24.2',
    'System and/or distro specific settings. This is not intended to be overridden by user-data or vendor-data.',
  ),
  // Known to upstream's schema without rules of their own.
  migrate: {},
  version: {},
} as const;

export const CLOUD_CONFIG_SCHEMA = {
  type: 'object',
  properties: {
    ...BASE_KEYS,
    ...USERS_AND_ACCESS_KEYS,
    ...PACKAGE_KEYS,
    ...STORAGE_KEYS,
    ...CONFIG_MANAGEMENT_KEYS,
    ...SYSTEM_KEYS,
  },
  additionalProperties: false,
} as const;
