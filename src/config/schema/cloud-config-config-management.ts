// The cloud-config keys of configuration-management agents (ansible, chef, puppet, salt_minion, mcollective),
// as cloud-init 25.1's schema judges them.
import { anyObject, bool, closedObject, int, oneOf, str, stringEnum, strings } from './schema-builders';

const nonNegative = { type: 'number', minimum: 0 } as const;

const ansible = closedObject({
  install_method: stringEnum('distro', 'pip'),
  run_user: str,
  ansible_config: str,
  setup_controller: closedObject({
    repositories: {
      type: 'array',
      items: { required: ['path', 'source'], ...closedObject({ path: str, source: str }) },
    },
    run_ansible: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          playbook_name: str,
          playbook_dir: str,
          become_password_file: str,
          connection_password_file: str,
          list_hosts: bool,
          syntax_check: bool,
          timeout: nonNegative,
          vault_id: str,
          vault_password_file: str,
          background: nonNegative,
          check: bool,
          diff: bool,
          module_path: str,
          poll: nonNegative,
          args: str,
          extra_vars: str,
          forks: nonNegative,
          inventory: str,
          scp_extra_args: str,
          sftp_extra_args: str,
          private_key: str,
          connection: str,
          module_name: str,
          sleep: str,
          tags: str,
          skip_tags: str,
        },
      },
    },
  }),
  galaxy: {
    required: ['actions'],
    ...closedObject({
      actions: { type: 'array', items: { type: 'array', items: { type: 'string', pattern: '^.*$' } } },
    }),
  },
  package_name: str,
  pull: {
    required: ['url', 'playbook_name'],
    ...closedObject({
      accept_host_key: bool,
      clean: bool,
      full: bool,
      diff: bool,
      ssh_common_args: str,
      scp_extra_args: str,
      sftp_extra_args: str,
      private_key: str,
      checkout: str,
      module_path: str,
      timeout: str,
      url: str,
      connection: str,
      vault_id: str,
      vault_password_file: str,
      verify_commit: bool,
      inventory: str,
      module_name: str,
      sleep: str,
      tags: str,
      skip_tags: str,
      playbook_name: str,
    }),
  },
});

const chef = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    directories: { type: 'array', items: str, minItems: 1, uniqueItems: true },
    config_path: str,
    validation_cert: str,
    validation_key: str,
    firstboot_path: str,
    exec: bool,
    client_key: str,
    encrypted_data_bag_secret: str,
    environment: str,
    file_backup_path: str,
    file_cache_path: str,
    json_attribs: str,
    log_level: str,
    log_location: str,
    node_name: str,
    omnibus_url: str,
    omnibus_url_retries: int,
    omnibus_version: str,
    pid_file: str,
    server_url: str,
    show_time: bool,
    ssl_verify_mode: str,
    validation_name: str,
    force_install: bool,
    initial_attributes: { type: 'object', items: str },
    install_type: stringEnum('packages', 'gems', 'omnibus'),
    run_list: strings,
    chef_license: stringEnum('accept', 'accept-silent', 'accept-no-persist'),
  },
} as const;

const puppet = closedObject({
  install: bool,
  version: str,
  install_type: stringEnum('packages', 'aio'),
  collection: str,
  aio_install_url: str,
  cleanup: bool,
  conf_file: str,
  ssl_dir: str,
  csr_attributes_path: str,
  package_name: str,
  exec: bool,
  exec_args: strings,
  start_service: bool,
  conf: closedObject({ main: anyObject, server: anyObject, agent: anyObject, user: anyObject, ca_cert: str }),
  csr_attributes: closedObject({ custom_attributes: anyObject, extension_requests: anyObject }),
});

const saltMinion = closedObject({
  pkg_name: str,
  service_name: str,
  config_dir: str,
  conf: anyObject,
  grains: anyObject,
  public_key: str,
  private_key: str,
  pki_dir: str,
});

const mcollective = closedObject({
  conf: {
    type: 'object',
    additionalProperties: false,
    properties: { 'public-cert': str, 'private-cert': str },
    patternProperties: { '^.+$': oneOf(bool, int, str) },
  },
});

export const CONFIG_MANAGEMENT_KEYS = { ansible, chef, puppet, salt_minion: saltMinion, mcollective } as const;
