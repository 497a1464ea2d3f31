// The cloud-config schema `cloud-init schema` checks: top-level keys of the modules and their value types.

/** A subset of JSON Schema: enough for cloud-config's shapes, small enough to read. */
export interface SchemaNode {
  type?: SchemaType | SchemaType[];
  enum?: unknown[];
  items?: SchemaNode;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  /** Keys an object must have (upstream's `required`): a missing one is an error at the object's own key. */
  required?: string[];
  anyOf?: SchemaNode[];
  /** Shown next to errors: the module that reads the key. */
  module?: string;
  deprecated?: string;
}

export type SchemaType = 'string' | 'boolean' | 'integer' | 'number' | 'array' | 'object' | 'null';

const str: SchemaNode = { type: 'string' };
const bool: SchemaNode = { type: 'boolean' };
const strList: SchemaNode = { type: 'array', items: str };
const strOrList: SchemaNode = { anyOf: [str, strList] };
const command: SchemaNode = { anyOf: [str, strList] };
const commandList: SchemaNode = { type: 'array', items: command };
const obj: SchemaNode = { type: 'object' };
const freq: SchemaNode = { type: 'string', enum: ['always', 'once', 'once-per-instance', 'instance', 'per-instance', 'per-once', 'per-always'] };
const moduleList: SchemaNode = { type: 'array', items: { anyOf: [str, { type: 'array' }, obj] } };

const userObject: SchemaNode = {
  type: 'object',
  properties: {
    name: str, gecos: str, homedir: str, primary_group: str, groups: { anyOf: [str, strList, obj] }, lock_passwd: bool, passwd: str, hashed_passwd: str, plain_text_passwd: str,
    shell: str, sudo: { anyOf: [str, strList, bool, { type: 'null' }] }, ssh_authorized_keys: strList, ssh_import_id: strList, system: bool, no_create_home: bool, no_user_group: bool,
    uid: { anyOf: [{ type: 'integer' }, str] }, expiredate: str, inactive: { anyOf: [str, { type: 'integer' }] }, create_groups: bool, selinux_user: str, doas: strList, snapuser: str, known: bool, ssh_redirect_user: bool,
  },
  additionalProperties: false,
};
/** A user by name, or a mapping that names it (`name`) or a snap user (`snapuser`): upstream's users_groups.user. */
const user: SchemaNode = { anyOf: [str, { ...userObject, required: ['name'] }, { ...userObject, required: ['snapuser'] }] };

const writeFile: SchemaNode = {
  type: 'object',
  properties: { path: str, content: str, source: { type: 'object', properties: { uri: str, headers: { type: 'object', additionalProperties: str } }, required: ['uri'], additionalProperties: false }, owner: str, permissions: { anyOf: [str, { type: 'integer' }] }, encoding: { type: 'string', enum: ['gz', 'gzip', 'gz+base64', 'gzip+base64', 'gz+b64', 'gzip+b64', 'b64', 'base64', 'text/plain'] }, append: bool, defer: bool },
  required: ['path'],
  additionalProperties: false,
};

/** A chpasswd.users entry: a name and a password (hashed or text), or a name and type RANDOM for a generated one. */
const chpasswdUser: SchemaNode = {
  anyOf: [
    // The password form first: an entry that is neither is told it lacks a password.
    { type: 'object', properties: { name: str, type: { type: 'string', enum: ['hash', 'text'] }, password: str }, required: ['name', 'password'], additionalProperties: false },
    { type: 'object', properties: { name: str, type: { type: 'string', enum: ['RANDOM'] } }, required: ['name', 'type'], additionalProperties: false },
  ],
};

const int: SchemaNode = { type: 'integer' };
const num: SchemaNode = { type: 'number' };

/** cc_puppet's keys (22.4 schema; `conf` sections are puppet.conf sections of settings, `ca_cert` a PEM). */
const puppet: SchemaNode = {
  type: 'object',
  properties: {
    install: bool, version: str, install_type: { type: 'string', enum: ['packages', 'aio'] }, collection: str, aio_install_url: str, cleanup: bool,
    conf_file: str, ssl_dir: str, csr_attributes_path: str, package_name: str, exec: bool, exec_args: strList, start_service: bool,
    conf: { type: 'object', properties: { agent: obj, ca_cert: str, main: obj, server: obj, user: obj }, additionalProperties: false },
    csr_attributes: { type: 'object', properties: { custom_attributes: obj, extension_requests: obj }, additionalProperties: false },
  },
  additionalProperties: false,
  module: 'puppet',
};

/** cc_chef's keys (22.4 schema: the module also reads exec_arguments, version, ruby_version, delete_validation_post_exec, which the schema does not list). */
const chef: SchemaNode = {
  type: 'object',
  properties: {
    directories: strList, validation_cert: str, validation_key: str, firstboot_path: str, client_key: str, encrypted_data_bag_secret: str,
    environment: str, file_backup_path: str, file_cache_path: str, json_attribs: str, log_level: str, log_location: str, node_name: str,
    omnibus_url: str, omnibus_url_retries: int, omnibus_version: str, pid_file: str, server_url: str, show_time: bool, ssl_verify_mode: str,
    validation_name: str, force_install: bool, exec: bool,
    initial_attributes: obj, install_type: { type: 'string', enum: ['packages', 'gems', 'omnibus'] }, run_list: strList, chef_license: str,
  },
  additionalProperties: false,
  module: 'chef',
};

/** cc_salt_minion's keys. */
const saltMinion: SchemaNode = {
  type: 'object',
  properties: { pkg_name: str, service_name: str, config_dir: str, conf: obj, grains: obj, public_key: str, private_key: str, pki_dir: str },
  additionalProperties: false,
  module: 'salt_minion',
};

/** cc_mcollective's keys: `conf` values are server.cfg values (the module also takes a mapping as a section; the schema does not). */
const mcollective: SchemaNode = {
  type: 'object',
  properties: { conf: { type: 'object', properties: { 'public-cert': str, 'private-cert': str }, additionalProperties: { anyOf: [bool, int, str] } } },
  additionalProperties: false,
  module: 'mcollective',
};

/** cc_ansible's keys (22.4's schema; the module is new in 22.3). */
const ansiblePull: SchemaNode = {
  type: 'object',
  properties: {
    accept_host_key: bool, clean: bool, full: bool, diff: bool, ssh_common_args: str, scp_extra_args: str, sftp_extra_args: str, private_key: str,
    checkout: str, module_path: str, timeout: str, url: str, connection: str, vault_id: str, vault_password_file: str, module_name: str, sleep: str,
    tags: str, skip_tags: str, playbook_name: str,
  },
  required: ['url', 'playbook_name'],
  additionalProperties: false,
};
const ansible: SchemaNode = {
  type: 'object',
  properties: {
    install_method: { type: 'string', enum: ['distro', 'pip'] }, run_user: str, ansible_config: str, package_name: str,
    setup_controller: {
      type: 'object',
      properties: {
        repositories: { type: 'array', items: { type: 'object', properties: { path: str, source: str }, required: ['path', 'source'], additionalProperties: false } },
        run_ansible: { type: 'array', items: { type: 'object', properties: {
          playbook_name: str, playbook_dir: str, become_password_file: str, connection_password_file: str, list_hosts: bool, syntax_check: bool, timeout: num, vault_id: str,
          vault_password_file: str, background: num, check: bool, diff: bool, module_path: str, poll: num, args: str, extra_vars: str, forks: num, inventory: str,
          scp_extra_args: str, sftp_extra_args: str, private_key: str, connection: str, module_name: str, sleep: str, tags: str, skip_tags: str,
        } } },
      },
      additionalProperties: false,
    },
    galaxy: { type: 'object', properties: { actions: { type: 'array', items: strList } }, required: ['actions'], additionalProperties: false },
    pull: ansiblePull,
  },
  additionalProperties: false,
  module: 'ansible',
};

const snapCommand: SchemaNode = { anyOf: [str, strList] };
/** cc_snap's keys: assertions and commands, each a list or a mapping whose keys order them. */
const snap: SchemaNode = {
  type: 'object',
  properties: {
    assertions: { anyOf: [strList, { type: 'object', additionalProperties: str }] },
    commands: { anyOf: [{ type: 'array', items: snapCommand }, { type: 'object', additionalProperties: snapCommand }] },
  },
  additionalProperties: false,
  module: 'snap',
};

/** cc_lxd's keys (22.4 schema). */
const lxd: SchemaNode = {
  type: 'object',
  properties: {
    init: {
      type: 'object',
      properties: {
        network_address: str, network_port: int, storage_backend: { type: 'string', enum: ['zfs', 'dir', 'lvm', 'btrfs'] }, storage_create_device: str,
        storage_create_loop: int, storage_pool: str, trust_password: str,
      },
      additionalProperties: false,
    },
    bridge: {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['none', 'existing', 'new'] }, name: str, mtu: int, ipv4_address: str, ipv4_netmask: int, ipv4_dhcp_first: str, ipv4_dhcp_last: str,
        ipv4_dhcp_leases: int, ipv4_nat: bool, ipv6_address: str, ipv6_netmask: int, ipv6_nat: bool, domain: str,
      },
      required: ['mode'],
      additionalProperties: false,
    },
    preseed: str,
  },
  additionalProperties: false,
  module: 'lxd',
};

/** cc_wireguard's keys. */
const wireguard: SchemaNode = {
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      properties: {
        interfaces: { type: 'array', items: { type: 'object', properties: { name: str, config_path: str, content: str }, additionalProperties: false } },
        readinessprobe: strList,
      },
      required: ['interfaces'],
      additionalProperties: false,
    },
  ],
  module: 'wireguard',
};

/** cc_ubuntu_drivers' keys. */
const drivers: SchemaNode = {
  type: 'object',
  properties: { nvidia: { type: 'object', properties: { 'license-accepted': bool, version: str }, required: ['license-accepted'], additionalProperties: false } },
  additionalProperties: false,
  module: 'ubuntu_drivers',
};

/** cc_ubuntu_pro's keys (newest upstream; `config` takes other pro settings too, its proxies are URLs or null to unset). */
const proxy: SchemaNode = { anyOf: [str, { type: 'null' }] };
const ubuntuPro: SchemaNode = {
  type: 'object',
  properties: {
    token: str, enable: strList, enable_beta: strList,
    features: { type: 'object', properties: { disable_auto_attach: bool }, additionalProperties: false },
    config: {
      type: 'object',
      properties: { http_proxy: proxy, https_proxy: proxy, global_apt_http_proxy: proxy, global_apt_https_proxy: proxy, ua_apt_http_proxy: proxy, ua_apt_https_proxy: proxy },
      additionalProperties: true,
    },
  },
  additionalProperties: false,
  module: 'ubuntu_pro',
};

/** cc_rh_subscription's keys (newest upstream: the dashed names are deprecated since 25.3 and still read). */
const rhSubscription: SchemaNode = {
  type: 'object',
  properties: {
    username: str, password: str, org: { anyOf: [str, int] }, release_version: str,
    activation_key: str, auto_attach: bool, service_level: str, add_pool: strList, enable_repo: strList, disable_repo: strList, rhsm_baseurl: str, server_hostname: str,
    'activation-key': { ...str, deprecated: 'use activation_key' }, 'auto-attach': { ...bool, deprecated: 'use auto_attach' }, 'service-level': { ...str, deprecated: 'use service_level' },
    'add-pool': { ...strList, deprecated: 'use add_pool' }, 'enable-repo': { ...strList, deprecated: 'use enable_repo' }, 'disable-repo': { ...strList, deprecated: 'use disable_repo' },
    'rhsm-baseurl': { ...str, deprecated: 'use rhsm_baseurl' }, 'server-hostname': { ...str, deprecated: 'use server_hostname' },
  },
  additionalProperties: false,
  module: 'rh_subscription',
};

/** cc_raspberry_pi's keys (upstream 25.x). */
const rpi: SchemaNode = {
  type: 'object',
  properties: {
    interfaces: {
      type: 'object',
      properties: { spi: bool, i2c: bool, onewire: bool, serial: { anyOf: [bool, { type: 'object', properties: { console: bool, hardware: bool }, additionalProperties: false }] } },
      additionalProperties: false,
    },
    enable_usb_gadget: bool,
  },
  additionalProperties: false,
  module: 'raspberry_pi',
};

export const CLOUD_CONFIG_SCHEMA: SchemaNode = {
  type: 'object',
  additionalProperties: true,
  properties: {
    bootcmd: { ...commandList, module: 'bootcmd' },
    runcmd: { ...commandList, module: 'runcmd' },
    write_files: { type: 'array', items: writeFile, module: 'write_files' },
    users: { anyOf: [str, { type: 'array', items: user }, obj], module: 'users_groups' },
    groups: { anyOf: [str, { type: 'array', items: { anyOf: [str, obj] } }, obj], module: 'users_groups' },
    user: { ...user, module: 'users_groups' },
    hostname: { ...str, module: 'set_hostname' },
    fqdn: { ...str, module: 'set_hostname' },
    prefer_fqdn_over_hostname: { ...bool, module: 'set_hostname' },
    preserve_hostname: { ...bool, module: 'set_hostname' },
    create_hostname_file: { ...bool, module: 'set_hostname' },
    manage_etc_hosts: { anyOf: [bool, { type: 'string', enum: ['template', 'localhost'] }], module: 'update_etc_hosts' },
    ssh_authorized_keys: { ...strList, module: 'ssh' },
    ssh_keys: { ...obj, module: 'ssh' },
    ssh_deletekeys: { ...bool, module: 'ssh' },
    ssh_genkeytypes: { ...strList, module: 'ssh' },
    ssh_pwauth: { anyOf: [bool, str], module: 'set_passwords' },
    disable_root: { ...bool, module: 'ssh' },
    disable_root_opts: { ...str, module: 'ssh' },
    chpasswd: { type: 'object', properties: { expire: bool, users: { type: 'array', items: chpasswdUser }, list: { anyOf: [str, strList] } }, additionalProperties: false, module: 'set_passwords' },
    password: { ...str, module: 'set_passwords' },
    packages: { type: 'array', items: { anyOf: [str, { type: 'array' }, { type: 'object', properties: { apt: { type: 'array', items: { anyOf: [str, strList] } }, snap: { type: 'array', items: { anyOf: [str, strList] } } }, additionalProperties: false }] }, module: 'package_update_upgrade_install' },
    package_update: { ...bool, module: 'package_update_upgrade_install' },
    package_upgrade: { ...bool, module: 'package_update_upgrade_install' },
    package_reboot_if_required: { ...bool, module: 'package_update_upgrade_install' },
    apt: { ...obj, module: 'apt_configure' },
    apt_pipelining: { anyOf: [bool, str, { type: 'integer' }], module: 'apt_pipelining' },
    grub_dpkg: {
      type: 'object',
      properties: { enabled: bool, 'grub-pc/install_devices': str, 'grub-pc/install_devices_empty': { anyOf: [bool, str] }, 'grub-efi/install_devices': str },
      additionalProperties: false,
      module: 'grub_dpkg',
    },
    'grub-dpkg': { ...obj, module: 'grub_dpkg', deprecated: 'use grub_dpkg' },
    timezone: { ...str, module: 'timezone' },
    locale: { anyOf: [bool, str], module: 'locale' },
    locale_configfile: { ...str, module: 'locale' },
    byobu_by_default: { type: 'string', enum: ['enable-system', 'enable-user', 'disable-system', 'disable-user', 'enable', 'disable', 'user', 'system'], module: 'byobu' },
    fan: { type: 'object', properties: { config: str, config_path: str }, required: ['config'], additionalProperties: false, module: 'fan' },
    landscape: { type: 'object', properties: { client: obj }, required: ['client'], additionalProperties: false, module: 'landscape' },
    spacewalk: { type: 'object', properties: { server: str, proxy: str, activation_key: str }, additionalProperties: false, module: 'spacewalk' },
    autoinstall: { type: 'object', properties: { version: { type: 'integer' } }, required: ['version'], module: 'ubuntu_autoinstall' },
    keyboard: { type: 'object', properties: { layout: str, model: str, variant: str, options: str }, required: ['layout'], additionalProperties: false, module: 'keyboard' },
    ntp: { anyOf: [{ type: 'null' }, obj], module: 'ntp' },
    mounts: { type: 'array', items: { type: 'array', items: { anyOf: [str, { type: 'null' }] } }, module: 'mounts' },
    mount_default_fields: { type: 'array', items: { anyOf: [str, { type: 'null' }] }, module: 'mounts' },
    swap: { ...obj, module: 'mounts' },
    growpart: { ...obj, module: 'growpart' },
    resize_rootfs: { anyOf: [bool, { type: 'string', enum: ['noblock'] }], module: 'resizefs' },
    disk_setup: { ...obj, module: 'disk_setup' },
    fs_setup: { type: 'array', items: obj, module: 'disk_setup' },
    ca_certs: { ...obj, module: 'ca_certs' },
    ca_certificates: { ...obj, module: 'ca_certs', deprecated: 'use ca_certs' },
    random_seed: { ...obj, module: 'seed_random' },
    rsyslog: {
      anyOf: [
        {
          type: 'object',
          properties: { config_dir: str, config_filename: str, configs: { type: 'array', items: { anyOf: [str, { type: 'object', properties: { filename: str, content: str }, required: ['content'], additionalProperties: false }] } }, remotes: obj, service_reload_command: strOrList, install_rsyslog: bool, packages: strList, check_exe: str },
          additionalProperties: false,
        },
        { type: 'array' },
      ],
      module: 'rsyslog',
    },
    ssh_import_id: { ...strList, module: 'ssh_import_id' },
    phone_home: { type: 'object', properties: { url: str, post: { anyOf: [{ type: 'string', enum: ['all'] }, strList] }, tries: { type: 'integer' } }, required: ['url'], additionalProperties: false, module: 'phone_home' },
    final_message: { ...str, module: 'final_message' },
    power_state: {
      type: 'object',
      properties: { mode: { type: 'string', enum: ['poweroff', 'reboot', 'halt'] }, delay: { anyOf: [{ type: 'integer' }, str] }, message: str, timeout: { type: 'number' }, condition: { anyOf: [bool, str, strList] } },
      required: ['mode'],
      additionalProperties: false,
      module: 'power_state_change',
    },
    updates: {
      type: 'object',
      properties: {
        network: { type: 'object', properties: { when: { type: 'array', items: { type: 'string', enum: ['boot-new-instance', 'boot-legacy', 'boot', 'hotplug'] } } }, required: ['when'], additionalProperties: false },
      },
      additionalProperties: false,
      module: 'install_hotplug',
    },
    disable_ec2_metadata: { ...bool, module: 'disable_ec2_metadata' },
    no_ssh_fingerprints: { ...bool, module: 'ssh_authkey_fingerprints' },
    authkey_hash: { ...str, module: 'ssh_authkey_fingerprints' },
    ssh: { type: 'object', properties: { emit_keys_to_console: bool }, required: ['emit_keys_to_console'], module: 'keys_to_console' },
    vendor_data: { type: 'object', properties: { enabled: { anyOf: [bool, str] }, prefix: { anyOf: [str, strList] } }, additionalProperties: false },
    merge_how: { anyOf: [str, { type: 'array', items: obj }] },
    manual_cache_clean: bool,
    cloud_init_modules: moduleList,
    cloud_config_modules: moduleList,
    cloud_final_modules: moduleList,
    unverified_modules: strList,
    datasource_list: strOrList,
    output: obj,
    network: obj,
    frequency: freq,
    puppet,
    chef,
    salt_minion: saltMinion,
    mcollective,
    ansible,
    snap,
    lxd,
    wireguard,
    drivers,
    ubuntu_pro: ubuntuPro,
    ubuntu_advantage: { ...ubuntuPro, deprecated: 'use ubuntu_pro' },
    'ubuntu-advantage': { ...ubuntuPro, deprecated: 'use ubuntu_pro' },
    rh_subscription: rhSubscription,
    rpi,
  },
};
