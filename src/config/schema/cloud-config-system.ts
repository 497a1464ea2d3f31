// The cloud-config keys of the system itself: commands and files, host names, locale and time, network
// services, certificates, logging, power, vendor data and the cloud-provider agents, as cloud-init 25.1's schema
// judges them (rpi as newer upstream, whose keys kiln's modules read; rh_subscription also takes 25.3's names).
import {
  anyArray,
  anyObject,
  arrayOf,
  bool,
  changed,
  closedObject,
  deprecated,
  enumOf,
  int,
  mapOf,
  nonEmptyArrayOf,
  nonEmptyStrings,
  nul,
  oneOf,
  renamed,
  str,
  stringEnum,
  strings,
} from './schema-builders';

const uniqueStrings = { type: 'array', items: str, uniqueItems: true } as const;

const writeFile = {
  type: 'object',
  required: ['path'],
  additionalProperties: false,
  properties: {
    path: str,
    content: str,
    source: {
      ...closedObject({ uri: str, headers: { type: 'object', additionalProperties: str } }),
      required: ['uri'],
    },
    owner: str,
    permissions: str,
    encoding: stringEnum('gz', 'gzip', 'gz+base64', 'gzip+base64', 'gz+b64', 'gzip+b64', 'b64', 'base64', 'text/plain'),
    append: bool,
    defer: bool,
  },
} as const;

const caCerts = {
  ...closedObject({
    'remove-defaults': renamed(bool, '22.3', 'remove_defaults'),
    remove_defaults: bool,
    trusted: nonEmptyStrings,
  }),
  minProperties: 1,
} as const;

/** ubuntu_pro's `config` keys that name proxies (http or https URLs, or null). */
export const UBUNTU_PRO_PROXY_KEYS = [
  'http_proxy',
  'https_proxy',
  'global_apt_http_proxy',
  'global_apt_https_proxy',
  'ua_apt_http_proxy',
  'ua_apt_https_proxy',
] as const;

const ubuntuPro = closedObject({
  enable: strings,
  enable_beta: strings,
  token: str,
  features: closedObject({ disable_auto_attach: bool }),
  config: {
    type: 'object',
    additionalProperties: true,
    properties: Object.fromEntries(UBUNTU_PRO_PROXY_KEYS.map((k) => [k, { type: ['string', 'null'] }])) as Record<
      string,
      { readonly type: readonly ['string', 'null'] }
    >,
  },
});

/**
 * rh_subscription as cloud-init 25.1 judges it: the dashed names are its keys, not deprecated (upstream renamed
 * them in 25.3). The 25.3 names are accepted too, as kiln's module reads both (the new name wins when both are
 * given), so a config written for a newer cloud-init still passes.
 */
const rhKeys = {
  'activation-key': str,
  'auto-attach': bool,
  'service-level': str,
  'add-pool': strings,
  'enable-repo': strings,
  'disable-repo': strings,
  'rhsm-baseurl': str,
  'server-hostname': str,
};
const rhSubscription = closedObject({
  username: str,
  password: str,
  org: oneOf(str, deprecated(int, '24.2', 'Use of type integer for this value is deprecated. Use a string instead.')),
  release_version: str,
  ...rhKeys,
  ...Object.fromEntries(Object.entries(rhKeys).map(([key, node]) => [key.replace('-', '_'), node])),
});

/** Where a stage's output goes: a file spec, [stdout, stderr] specs, or a mapping of the two. */
const outputTarget = oneOf(
  str,
  { type: 'array', items: { type: ['string'] }, minItems: 2, maxItems: 2 },
  closedObject({ output: str, error: str }),
);

/** A reporting handler, told apart by its `type`. */
const reporter = {
  type: 'object',
  oneOf: [
    {
      additionalProperties: false,
      required: ['type'],
      properties: { type: stringEnum('log'), level: stringEnum('DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL') },
    },
    { additionalProperties: false, required: ['type'], properties: { type: stringEnum('print') } },
    {
      additionalProperties: false,
      required: ['type', 'endpoint'],
      properties: {
        type: stringEnum('webhook'),
        endpoint: str,
        consumer_key: str,
        token_key: str,
        token_secret: str,
        consumer_secret: str,
        timeout: { type: 'number', minimum: 0 },
        retries: { type: 'integer', minimum: 0 },
      },
    },
    {
      additionalProperties: false,
      required: ['type'],
      properties: { type: stringEnum('hyperv'), kvp_file_path: str, event_types: strings },
    },
  ],
} as const;

/** cc_raspberry_pi (upstream after 25.1, a kiln module): the Pi's interfaces and USB gadget mode. */
const rpi = closedObject({
  interfaces: closedObject({
    spi: bool,
    i2c: bool,
    onewire: bool,
    serial: oneOf(bool, closedObject({ console: bool, hardware: bool })),
  }),
  enable_usb_gadget: bool,
});

export const SYSTEM_KEYS = {
  // bootcmd, runcmd, write_files
  bootcmd: { type: 'array', items: oneOf(strings, str), minItems: 1 },
  runcmd: { type: 'array', items: oneOf(strings, str, nul), minItems: 1 },
  write_files: nonEmptyArrayOf(writeFile),
  // set_hostname, update_hostname, update_etc_hosts
  preserve_hostname: bool,
  hostname: str,
  fqdn: str,
  prefer_fqdn_over_hostname: bool,
  create_hostname_file: bool,
  manage_etc_hosts: oneOf(
    enumOf(true, false, 'localhost'),
    changed(enumOf('template'), '22.3', 'Use of **template** is deprecated, use ``true`` instead.'),
  ),
  // locale, timezone, keyboard, byobu
  locale: oneOf(bool, str),
  locale_configfile: str,
  timezone: str,
  keyboard: { ...closedObject({ layout: str, model: str, variant: str, options: str }), required: ['layout'] },
  byobu_by_default: stringEnum(
    'enable-system',
    'enable-user',
    'disable-system',
    'disable-user',
    'enable',
    'disable',
    'user',
    'system',
  ),
  // ntp, resolv_conf, fan, install_hotplug, disable_ec2_metadata
  ntp: {
    type: ['null', 'object'],
    additionalProperties: false,
    properties: {
      pools: uniqueStrings,
      servers: uniqueStrings,
      peers: uniqueStrings,
      allow: uniqueStrings,
      ntp_client: str,
      enabled: bool,
      config: {
        ...closedObject({ confpath: str, check_exe: str, packages: uniqueStrings, service_name: str, template: str }),
        minProperties: 1,
      },
    },
  },
  manage_resolv_conf: bool,
  resolv_conf: closedObject({
    nameservers: anyArray,
    searchdomains: anyArray,
    domain: str,
    sortlist: anyArray,
    options: anyObject,
  }),
  fan: { ...closedObject({ config: str, config_path: str }), required: ['config'] },
  updates: closedObject({
    network: {
      ...closedObject({ when: arrayOf(stringEnum('boot-new-instance', 'boot-legacy', 'boot', 'hotplug')) }),
      required: ['when'],
    },
  }),
  disable_ec2_metadata: bool,
  // ca_certs, seed_random, rsyslog, grub_dpkg
  ca_certs: caCerts,
  'ca-certs': renamed(caCerts, '22.3', 'ca_certs'),
  random_seed: closedObject({
    file: str,
    data: str,
    encoding: stringEnum('raw', 'base64', 'b64', 'gzip', 'gz'),
    command: strings,
    command_required: bool,
  }),
  rsyslog: closedObject({
    config_dir: str,
    config_filename: str,
    configs: arrayOf(oneOf(str, { required: ['content'], ...closedObject({ filename: str, content: str }) })),
    remotes: anyObject,
    service_reload_command: oneOf(enumOf('auto'), strings),
    install_rsyslog: bool,
    check_exe: str,
    packages: uniqueStrings,
  }),
  grub_dpkg: closedObject({
    enabled: bool,
    'grub-pc/install_devices': str,
    'grub-pc/install_devices_empty': oneOf(bool, changed(str, '22.3', 'Use a boolean value instead.')),
    'grub-efi/install_devices': str,
  }),
  'grub-dpkg': renamed(anyObject, '22.2', 'grub_dpkg'),
  // phone_home, power_state_change, final_message, scripts_vendor
  phone_home: {
    ...closedObject({
      url: str,
      post: oneOf(
        enumOf('all'),
        arrayOf(stringEnum('pub_key_rsa', 'pub_key_ecdsa', 'pub_key_ed25519', 'instance_id', 'hostname', 'fqdn')),
      ),
      tries: int,
    }),
    required: ['url'],
  },
  power_state: {
    ...closedObject({
      delay: oneOf(
        { type: 'integer', minimum: 0 },
        changed(
          { type: 'string', pattern: '^\\+?[0-9]+$' },
          '22.3',
          'Use of type string for this value is deprecated. Use ``now`` or integer type.',
        ),
        enumOf('now'),
      ),
      mode: stringEnum('poweroff', 'reboot', 'halt'),
      message: str,
      timeout: int,
      condition: oneOf(str, bool, anyArray),
    }),
    required: ['mode'],
  },
  final_message: str,
  vendor_data: closedObject({
    enabled: oneOf(
      bool,
      deprecated(str, '22.3', 'Use of type string for this value is deprecated. Use a boolean instead.'),
    ),
    prefix: { type: ['array', 'string'], items: { type: ['string', 'integer'] } },
  }),
  // lxd, wireguard, ubuntu_drivers, ubuntu_pro, ubuntu_autoinstall, landscape, spacewalk, rh_subscription, raspberry_pi
  lxd: {
    type: 'object',
    minProperties: 1,
    additionalProperties: false,
    properties: {
      init: closedObject({
        network_address: str,
        network_port: int,
        storage_backend: stringEnum('zfs', 'dir', 'lvm', 'btrfs'),
        storage_create_device: str,
        storage_create_loop: int,
        storage_pool: str,
        trust_password: str,
      }),
      bridge: {
        ...closedObject({
          mode: stringEnum('none', 'existing', 'new'),
          name: str,
          mtu: { type: 'integer', minimum: -1 },
          ipv4_address: str,
          ipv4_netmask: int,
          ipv4_dhcp_first: str,
          ipv4_dhcp_last: str,
          ipv4_dhcp_leases: int,
          ipv4_nat: bool,
          ipv6_address: str,
          ipv6_netmask: int,
          ipv6_nat: bool,
          domain: str,
        }),
        required: ['mode'],
      },
      preseed: str,
    },
  },
  wireguard: {
    type: ['null', 'object'],
    properties: {
      interfaces: nonEmptyArrayOf(closedObject({ name: str, config_path: str, content: str })),
      readinessprobe: uniqueStrings,
    },
    required: ['interfaces'],
    minProperties: 1,
    additionalProperties: false,
  },
  drivers: closedObject({
    nvidia: { ...closedObject({ 'license-accepted': bool, version: str }), required: ['license-accepted'] },
  }),
  ubuntu_pro: ubuntuPro,
  ubuntu_advantage: renamed(ubuntuPro, '24.1', 'ubuntu_pro'),
  autoinstall: { type: 'object', properties: { version: int }, required: ['version'] },
  landscape: {
    ...closedObject({
      client: {
        type: 'object',
        additionalProperties: true,
        required: ['account_name', 'computer_title'],
        properties: {
          url: str,
          ping_url: str,
          data_path: str,
          log_level: stringEnum('debug', 'info', 'warning', 'error', 'critical'),
          computer_title: str,
          account_name: str,
          registration_key: str,
          tags: { type: 'string', pattern: '^[-_0-9a-zA-Z]+(,[-_0-9a-zA-Z]+)*$' },
          http_proxy: str,
          https_proxy: str,
        },
      },
    }),
    required: ['client'],
  },
  spacewalk: closedObject({ server: str, proxy: str, activation_key: str }),
  rh_subscription: rhSubscription,
  rpi,
  // the stages' own settings: output, reporting
  output: closedObject({ all: outputTarget, init: outputTarget, config: outputTarget, final: outputTarget }),
  reporting: mapOf('^.+$', reporter),
} as const;
