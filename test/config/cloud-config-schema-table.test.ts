// Each module's valid and invalid cloud-config, judged as cloud-init 25.1.4's schema judges them: the verdict
// and the paths of the errors (or, for a deprecated form, of the deprecations). The expectations are what
// 25.1.4's validate_cloudconfig_schema (strict) returned for each row; every rule kind is among them: types,
// enums, required, additionalProperties, patternProperties, minItems/maxItems, minProperties, uniqueItems,
// minimum, pattern, anyOf, oneOf, unknown top-level keys, deprecated and changed forms.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCloudConfig } from '../../src/config/validate-cloud-config';

type Verdict = 'valid' | 'invalid' | 'deprecated';

const ROWS: Array<[module: string, yaml: string, verdict: Verdict, paths: string[]]> = [
  ["apt_configure", "apt: {}", "invalid", ["apt"]],
  ["apt_configure", "apt: {preserve_sources_list: 1}", "invalid", ["apt.preserve_sources_list"]],
  ["apt_configure", "apt: {preserve_sources_list: true, primary: [{arches: [default], uri: \"http://deb.debian.org/debian\"}]}", "valid", []],
  ["apt_configure", "apt: {primary: []}", "invalid", ["apt.primary"]],
  ["apt_configure", "apt: {primary: [{uri: x}]}", "invalid", ["apt.primary.0"]],
  ["apt_configure", "apt: {sources: {my.list: {}}}", "invalid", ["apt.sources.my.list"]],
  ["apt_configure", "apt: {disable_suites: [a, a]}", "invalid", ["apt.disable_suites"]],
  ["apt_configure", "apt: {debconf_selections: {}}", "invalid", ["apt.debconf_selections"]],
  ["apt_pipelining", "apt_pipelining: os", "valid", []],
  ["apt_pipelining", "apt_pipelining: none", "deprecated", ["apt_pipelining"]],
  ["apt_pipelining", "apt_pipelining: sometimes", "invalid", ["apt_pipelining"]],
  ["apt_pipelining", "apt_pipelining: 3", "valid", []],
  ["apk_configure", "apk_repos: {alpine_repo: {base_url: x}}", "invalid", ["apk_repos.alpine_repo"]],
  ["apk_configure", "apk_repos: {alpine_repo: {version: v3.20}}", "valid", []],
  ["bootcmd", "bootcmd: []", "invalid", ["bootcmd"]],
  ["bootcmd", "bootcmd: [echo, [ls, -l]]", "valid", []],
  ["bootcmd", "bootcmd: [null]", "invalid", ["bootcmd.0"]],
  ["byobu", "byobu_by_default: user", "valid", []],
  ["byobu", "byobu_by_default: never", "invalid", ["byobu_by_default"]],
  ["ca_certs", "ca_certs: {}", "invalid", ["ca_certs"]],
  ["ca_certs", "ca_certs: {trusted: []}", "invalid", ["ca_certs.trusted"]],
  ["ca_certs", "ca_certs: {remove-defaults: true}", "deprecated", ["ca_certs.remove-defaults"]],
  ["ca_certs", "ca-certs: {trusted: [pem]}", "deprecated", ["ca-certs"]],
  ["chef", "chef: {}", "invalid", ["chef"]],
  ["chef", "chef: {install_type: omnibus, chef_license: accept}", "valid", []],
  ["chef", "chef: {chef_license: yes}", "invalid", ["chef.chef_license"]],
  ["disable_ec2_metadata", "disable_ec2_metadata: 1", "invalid", ["disable_ec2_metadata"]],
  ["disk_setup", "disk_setup: {/dev/sdb: {table_type: gpt, layout: [50, [50, 82]]}}", "valid", []],
  ["disk_setup", "disk_setup: {/dev/sdb: {layout: [[50]]}}", "invalid", ["disk_setup./dev/sdb.layout.0"]],
  ["disk_setup", "fs_setup: [{partition: auto, filesystem: ext4}]", "valid", []],
  ["disk_setup", "fs_setup: [{partition: 1}]", "invalid", ["fs_setup.0.partition"]],
  ["disk_setup", "device_aliases: {data: /dev/sdb, bad: 1}", "invalid", ["device_aliases.bad"]],
  ["fan", "fan: {config: x}", "valid", []],
  ["fan", "fan: {}", "invalid", ["fan"]],
  ["final_message", "final_message: [a]", "invalid", ["final_message"]],
  ["growpart", "growpart: {mode: off}", "deprecated", ["growpart.mode"]],
  ["growpart", "growpart: {mode: false}", "deprecated", ["growpart.mode"]],
  ["growpart", "growpart: {mode: auto, devices: [/], extra: 1}", "invalid", ["growpart"]],
  ["grub_dpkg", "grub_dpkg: {enabled: true, grub-pc/install_devices_empty: \"true\"}", "deprecated", ["grub_dpkg.grub-pc/install_devices_empty"]],
  ["grub_dpkg", "grub-dpkg: {enabled: true}", "deprecated", ["grub-dpkg"]],
  ["install_hotplug", "updates: {network: {when: [boot, hotplug]}}", "valid", []],
  ["install_hotplug", "updates: {network: {when: [sometimes]}}", "invalid", ["updates.network.when.0"]],
  ["keyboard", "keyboard: {layout: us}", "valid", []],
  ["keyboard", "keyboard: {model: pc105}", "invalid", ["keyboard"]],
  ["keys_to_console", "ssh: {emit_keys_to_console: false}", "valid", []],
  ["keys_to_console", "ssh: {}", "invalid", ["ssh"]],
  ["keys_to_console", "ssh_key_console_blacklist: [a, a]", "invalid", ["ssh_key_console_blacklist"]],
  ["landscape", "landscape: {client: {account_name: a, computer_title: t, tags: \"a,b\"}}", "valid", []],
  ["landscape", "landscape: {client: {account_name: a, computer_title: t, tags: \"a b\"}}", "invalid", ["landscape.client.tags"]],
  ["locale", "locale: en_US.UTF-8", "valid", []],
  ["locale", "locale: 5", "invalid", ["locale"]],
  ["lxd", "lxd: {}", "invalid", ["lxd"]],
  ["lxd", "lxd: {init: {storage_backend: zfs}, bridge: {mode: new, mtu: -2}}", "invalid", ["lxd.bridge.mtu"]],
  ["mcollective", "mcollective: {conf: {loglevel: debug, public-cert: c}}", "valid", []],
  ["mcollective", "mcollective: {conf: {loglevel: [a]}}", "invalid", ["mcollective.conf.loglevel"]],
  ["mounts", "mounts: []", "invalid", ["mounts"]],
  ["mounts", "mounts: [[/dev/sdb, /mnt]]", "valid", []],
  ["mounts", "mounts: [[]]", "invalid", ["mounts.0"]],
  ["mounts", "mount_default_fields: [a, b]", "invalid", ["mount_default_fields"]],
  ["mounts", "swap: {size: auto, maxsize: 1.5G}", "valid", []],
  ["mounts", "swap: {size: lots}", "invalid", ["swap.size"]],
  ["ntp", "ntp: {invalidkey: 1}", "invalid", ["ntp"]],
  ["ntp", "ntp: null", "valid", []],
  ["ntp", "ntp: {servers: [a, a]}", "invalid", ["ntp.servers"]],
  ["ntp", "ntp: {enabled: true, config: {}}", "invalid", ["ntp.config"]],
  ["ntp", "ntp: {pools: [0.pool.ntp.org], ntp_client: chrony}", "valid", []],
  ["package_update_upgrade_install", "packages: []", "invalid", ["packages"]],
  ["package_update_upgrade_install", "packages: [a, [b, \"1.0\"], {apt: [c], snap: [d]}]", "valid", []],
  ["package_update_upgrade_install", "packages: [[a]]", "invalid", ["packages.0"]],
  ["package_update_upgrade_install", "apt_update: true", "deprecated", ["apt_update"]],
  ["phone_home", "phone_home: {url: \"http://x\", post: [instance_id]}", "valid", []],
  ["phone_home", "phone_home: {url: \"http://x\", post: [bogus]}", "invalid", ["phone_home.post.0"]],
  ["power_state_change", "power_state: {mode: reboot, delay: now}", "valid", []],
  ["power_state_change", "power_state: {mode: reboot, delay: \"+5\"}", "deprecated", ["power_state.delay"]],
  ["power_state_change", "power_state: {mode: reboot, delay: -1}", "invalid", ["power_state.delay"]],
  ["power_state_change", "power_state: {mode: reboot, timeout: 1.5}", "invalid", ["power_state.timeout"]],
  ["puppet", "puppet: {install_type: aio, conf: {agent: {server: x}}}", "valid", []],
  ["puppet", "puppet: {conf: {agents: {}}}", "invalid", ["puppet.conf"]],
  ["resizefs", "resize_rootfs: noblock", "valid", []],
  ["resizefs", "resize_rootfs: later", "invalid", ["resize_rootfs"]],
  ["resolv_conf", "manage_resolv_conf: asdf", "invalid", ["manage_resolv_conf"]],
  ["resolv_conf", "resolv_conf: {nameservers: [8.8.8.8], options: {rotate: true}}", "valid", []],
  ["resolv_conf", "resolv_conf: {nameserver: [x]}", "invalid", ["resolv_conf"]],
  ["rh_subscription", "rh_subscription: {org: 5}", "deprecated", ["rh_subscription.org"]],
  ["rh_subscription", "rh_subscription: {org: acme}", "valid", []],
  ["rsyslog", "rsyslog: {configs: [\"*.* @@host\"], service_reload_command: auto}", "valid", []],
  ["rsyslog", "rsyslog: [a]", "invalid", ["rsyslog"]],
  ["rsyslog", "rsyslog: {service_reload_command: restart}", "invalid", ["rsyslog.service_reload_command"]],
  ["runcmd", "runcmd: []", "invalid", ["runcmd"]],
  ["runcmd", "runcmd: [ls, [ls, -l], null]", "valid", []],
  ["runcmd", "runcmd: ls", "invalid", ["runcmd"]],
  ["runcmd", "runcmd: [1]", "invalid", ["runcmd.0"]],
  ["salt_minion", "salt_minion: {conf: {master: x}}", "valid", []],
  ["salt_minion", "salt_minion: {master: x}", "invalid", ["salt_minion"]],
  ["scripts_vendor", "vendor_data: {prefix: [timeout, 30]}", "valid", []],
  ["scripts_vendor", "vendor_data: {enabled: \"false\"}", "deprecated", ["vendor_data.enabled"]],
  ["scripts_vendor", "vendor_data: {enabled: 1}", "invalid", ["vendor_data.enabled"]],
  ["seed_random", "random_seed: {encoding: bad}", "invalid", ["random_seed.encoding"]],
  ["seed_random", "random_seed: {data: x, encoding: b64, command: [a]}", "valid", []],
  ["set_hostname", "hostname: 5", "invalid", ["hostname"]],
  ["set_hostname", "preserve_hostname: true\nfqdn: a.b", "valid", []],
  ["set_passwords", "chpasswd: {list: \"a:b\"}", "deprecated", ["chpasswd.list"]],
  ["set_passwords", "chpasswd: {users: [{name: a}]}", "invalid", ["chpasswd.users.0"]],
  ["set_passwords", "chpasswd: {users: [{name: a, type: RANDOM}]}", "valid", []],
  ["set_passwords", "ssh_pwauth: unchanged", "deprecated", ["ssh_pwauth"]],
  ["set_passwords", "ssh_pwauth: 1", "invalid", ["ssh_pwauth"]],
  ["set_passwords", "chpasswd: {list: [nocolon]}", "invalid", ["chpasswd.list.0"]],
  ["snap", "snap: {}", "invalid", ["snap"]],
  ["snap", "snap: {assertions: []}", "invalid", ["snap.assertions"]],
  ["snap", "snap: {commands: {\"00\": [snap, install, vlc]}}", "valid", []],
  ["spacewalk", "spacewalk: {server: s, proxy: p}", "valid", []],
  ["ssh", "ssh_keys: {rsa_private: k, dsa_private: k}", "invalid", ["ssh_keys"]],
  ["ssh", "ssh_genkeytypes: [dsa]", "invalid", ["ssh_genkeytypes.0"]],
  ["ssh", "ssh_authorized_keys: []", "invalid", ["ssh_authorized_keys"]],
  ["ssh", "ssh_publish_hostkeys: {enabled: true, blacklist: [dsa]}", "valid", []],
  ["ssh_authkey_fingerprints", "no_ssh_fingerprints: true\nauthkey_hash: sha512", "valid", []],
  ["ssh_import_id", "ssh_import_id: gh:x", "invalid", ["ssh_import_id"]],
  ["timezone", "timezone: 1", "invalid", ["timezone"]],
  ["ubuntu_drivers", "drivers: {nvidia: {license-accepted: true}}", "valid", []],
  ["ubuntu_pro", "ubuntu_pro: {token: t, config: {http_proxy: null, other: 1}}", "valid", []],
  ["ubuntu_pro", "ubuntu_advantage: {token: t}", "deprecated", ["ubuntu_advantage"]],
  ["ubuntu_autoinstall", "autoinstall: {version: 1, anything: else}", "valid", []],
  ["ubuntu_autoinstall", "autoinstall: {}", "invalid", ["autoinstall"]],
  ["update_etc_hosts", "manage_etc_hosts: localhost", "valid", []],
  ["update_etc_hosts", "manage_etc_hosts: template", "deprecated", ["manage_etc_hosts"]],
  ["update_etc_hosts", "manage_etc_hosts: yes", "valid", []],
  ["update_etc_hosts", "manage_etc_hosts: other", "invalid", ["manage_etc_hosts"]],
  ["users_groups", "users: [default, {name: a, lock-passwd: true}]", "deprecated", ["users.1.lock-passwd"]],
  ["users_groups", "users: [{name: a, uid: \"1000\", sudo: false}]", "deprecated", ["users.0.sudo", "users.0.uid"]],
  ["users_groups", "users: [{name: a, snapuser: b}]", "invalid", ["users.0"]],
  ["users_groups", "users: [{name: a, groups: {x: null}}]", "deprecated", ["users.0.groups.x"]],
  ["users_groups", "users: [{name: a, ssh_authorized_keys: []}]", "invalid", ["users.0.ssh_authorized_keys"]],
  ["users_groups", "groups: [admins, {devs: [a, b]}]", "valid", []],
  ["users_groups", "groups: {devs: []}", "invalid", ["groups.devs"]],
  ["users_groups", "groups: 5", "invalid", ["groups"]],
  ["users_groups", "user: {name: a, shelll: x}", "invalid", ["user"]],
  ["users_groups", "users: a, b", "valid", []],
  ["wireguard", "wireguard: {interfaces: []}", "invalid", ["wireguard.interfaces"]],
  ["wireguard", "wireguard: {interfaces: [{name: wg0, config_path: /x, content: y}]}", "valid", []],
  ["write_files", "write_files: [{path: /a, content: !!binary aGVsbG8=, encoding: b64}]", "valid", []],
  ["write_files", "write_files: [{path: /a, permissions: 0644}]", "invalid", ["write_files.0.permissions"]],
  ["write_files", "write_files: [{path: /a, permissions: \"0644\", encoding: rot13}]", "invalid", ["write_files.0.encoding"]],
  ["write_files", "write_files: []", "invalid", ["write_files"]],
  ["yum_add_repo", "yum_repos: {epel: {name: e}}", "invalid", ["yum_repos.epel"]],
  ["yum_add_repo", "yum_repos: {epel: {baseurl: \"http://x\", gpgcheck: true}}", "valid", []],
  ["yum_add_repo", "yum_repos: {}", "invalid", ["yum_repos"]],
  ["zypper_add_repo", "zypper: {repos: [{id: a, baseurl: \"http://x\", autorefresh: 1}]}", "valid", []],
  ["zypper_add_repo", "zypper: {repos: [{id: a}]}", "invalid", ["zypper.repos.0"]],
  ["base", "hostnam: x", "invalid", ["hostnam"]],
  ["base", "pakages: [a]", "invalid", ["pakages"]],
  ["base", "hostnam: 1\npakages: 2", "invalid", [""]],
  ["base", "cloud_final_modules: [final_message, [scripts_user, always], bogus]", "invalid", ["cloud_final_modules.2"]],
  ["base", "merge_how: [{name: list, settings: [append]}]", "valid", []],
  ["base", "merge_how: []", "invalid", ["merge_how"]],
  ["base", "system_info: {distro: debian}", "deprecated", ["system_info"]],
  ["base", "launch-index: x", "invalid", ["launch-index"]],
  ["output", "output: {all: \"| tee -a /var/log/x\"}", "valid", []],
  ["output", "output: {init: [a]}", "invalid", ["output.init"]],
  ["reporting", "reporting: {a: {type: log, level: INFO}, b: {type: webhook, endpoint: \"http://x\"}}", "valid", []],
  ["reporting", "reporting: {a: {type: webhook}}", "invalid", ["reporting.a"]],
  ["reporting", "reporting: {a: {type: smoke}}", "invalid", ["reporting.a.type"]],];

test('every module: valid, invalid and deprecated cloud-config judged as cloud-init 25.1 judges it, at the same paths', () => {
  const wrong: string[] = [];
  for (const [module, yaml, verdict, paths] of ROWS) {
    const r = validateCloudConfig(`#cloud-config\n${yaml}\n`);
    assert.equal(r.fatal, undefined, yaml);
    const errors = [...new Set(r.problems.filter((p) => p.kind === 'error').map((p) => p.path))].sort();
    const deprecations = [...new Set(r.problems.filter((p) => p.kind === 'deprecation').map((p) => p.path))].sort();
    const got: Verdict = errors.length ? 'invalid' : deprecations.length ? 'deprecated' : 'valid';
    const gotPaths = errors.length ? errors : deprecations;
    if (got !== verdict || JSON.stringify(gotPaths) !== JSON.stringify(paths)) wrong.push(`${module}: ${JSON.stringify(yaml)}: ${got} ${JSON.stringify(gotPaths)}, 25.1: ${verdict} ${JSON.stringify(paths)}`);
  }
  assert.deepEqual(wrong, []);
});

test("the issue's examples, in 25.1's words", () => {
  const problems = (yaml: string) => validateCloudConfig(`#cloud-config\n${yaml}\n`).problems.map((p) => `${p.kind} ${p.path}: ${p.message}`);
  assert.deepEqual(problems('apt: {}'), ['error apt: {} does not have enough properties']);
  assert.deepEqual(problems('apt: {preserve_sources_list: 1}'), ["error apt.preserve_sources_list: 1 is not of type 'boolean'"]);
  assert.deepEqual(problems('manage_resolv_conf: asdf'), ["error manage_resolv_conf: 'asdf' is not of type 'boolean'"]);
  assert.deepEqual(problems('runcmd: []'), ['error runcmd: [] is too short']);
  assert.deepEqual(problems('ntp: {invalidkey: 1}'), ["error ntp: Additional properties are not allowed ('invalidkey' was unexpected)"]);
  assert.deepEqual(problems('random_seed: {encoding: bad}'), ["error random_seed.encoding: 'bad' is not one of ['raw', 'base64', 'b64', 'gzip', 'gz']"]);
  assert.deepEqual(problems('hostnam: web'), ["error hostnam: Additional properties are not allowed ('hostnam' was unexpected)"]);
  // Two unknown top-level keys are one error at no path, as 25.1 reports them.
  assert.deepEqual(problems('hostnam: web\npakages: [a]'), ["error : Additional properties are not allowed ('hostnam', 'pakages' were unexpected)"]);
  assert.deepEqual(problems('write_files: [{path: /a, content: !!binary aGVsbG8=}]'), []);
  assert.deepEqual(problems('vendor_data: {prefix: [timeout, 30]}'), []);
  assert.deepEqual(problems('users: [{name: a, lock-passwd: true}]'), ['deprecation users.0.lock-passwd:  Deprecated in version 22.3. Use **lock_passwd** instead.']);
  assert.deepEqual(problems('manage_etc_hosts: template'), ['deprecation manage_etc_hosts:  Changed in version 22.3. Use of **template** is deprecated, use ``true`` instead.']);
  // anyOf: jsonschema's best match and the anyOf's own error; oneOf: the deepest errors of its branches.
  assert.deepEqual(problems('chpasswd: {users: [{}]}'), ["error chpasswd.users.0: 'name' is a required property", 'error chpasswd.users.0: {} is not valid under any of the given schemas']);
  assert.deepEqual(problems('user: {name: a, snapuser: b}'), [
    "error user: {'name': 'a', 'snapuser': 'b'} is not of type 'string'",
    "error user: {'name': 'a', 'snapuser': 'b'} is valid under each of {'required': ['snapuser']}, {'required': ['name']}",
  ]);
  // A !!binary value is a string to the schema and shown as Python shows bytes.
  assert.deepEqual(problems('hostname: !!binary aGk='), []);
  assert.deepEqual(problems('runcmd: !!binary aGk='), ["error runcmd: b'hi' is not of type 'array'"]);
});
