// `cloud-init --dry-run --all-stages` of the built binary, with every module configured, changes nothing: run in
// private UTS, mount, PID, IPC and network namespaces on an overlay of the whole root, it leaves the overlay's
// upper layers empty, the hostname as it was, and starts no program.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MODULES } from '../../src/modules/registry';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');

/** Every module of the registry in its stage's list, and allowed on any distro (cloud-init's unverified_modules). */
function everyModuleConfig(): string {
  const list = (stage: string) =>
    MODULES.filter((m) => m.stage === stage)
      .map((m) => `  - ${m.name}\n`)
      .join('');
  return [
    'datasource_list: [NoCloud]',
    `unverified_modules: [${MODULES.map((m) => m.name).join(', ')}]`,
    `cloud_init_modules:\n${list('init')}`,
    `cloud_config_modules:\n${list('config')}`,
    `cloud_final_modules:\n${list('final')}`,
  ].join('\n');
}

// A key for every module's activation, each asking for a change a dry run must only print. Commands name
// kiln-dryrun-canary, which exists nowhere: any attempt to start it shows in the execve trace.
const USER_DATA = `#cloud-config
hostname: kiln-dryrun-after
fqdn: kiln-dryrun-after.example.test
manage_etc_hosts: true
grub_dpkg:
  enabled: true
random_seed:
  file: /var/tmp/kiln-dryrun-seed
  data: kiln dry run
  encoding: raw
  command: [kiln-dryrun-canary, seed_random]
  command_required: false
bootcmd:
  - kiln-dryrun-canary bootcmd
write_files:
  - path: /etc/kiln-dryrun/written.txt
    content: planned, never written
    permissions: '0600'
    owner: root:root
  - path: /var/tmp/kiln-dryrun-deferred.txt
    content: deferred
    defer: true
growpart:
  mode: auto
  devices: ['/']
resize_rootfs: true
disk_setup:
  /dev/kiln-dryrun-disk:
    table_type: gpt
    layout: true
    overwrite: false
fs_setup:
  - label: kilndry
    filesystem: ext4
    device: /dev/kiln-dryrun-disk
    partition: auto
mounts:
  - [/dev/kiln-dryrun-disk1, /mnt/kiln-dryrun, ext4, 'defaults,nofail', '0', '2']
swap:
  filename: /var/tmp/kiln-dryrun.swap
  size: 1048576
ca_certs:
  trusted:
    - |
      -----BEGIN CERTIFICATE-----
      MIIBszCCAVmgAwIBAgIUNd9mHqQH0kiln0dryrun0000000000wCgYIKoZIzj0EAwIw
      -----END CERTIFICATE-----
rsyslog:
  configs:
    - filename: 90-kiln-dryrun.conf
      content: '*.* @@127.0.0.1:514'
groups:
  - kiln-dryrun-group: [root]
users:
  - default
  - name: kiln-dryrun-user
    groups: [kiln-dryrun-group]
    shell: /bin/sh
    lock_passwd: false
    passwd: $6$kilndryrun$7QHnBqk1m3bXf0gHq0sQZ0m1q2y3Zb4C5d6E7f8G9h0I1j2K3l4M5n6O7p8Q9r0S1t2U3v4W5x6Y7z8A9b0C1.
    sudo: ALL=(ALL) NOPASSWD:ALL
    ssh_authorized_keys:
      - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKilnDryRunKilnDryRunKilnDryRunKilnDryRun0 kiln-dryrun
ssh_authorized_keys:
  - ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKilnDryRunKilnDryRunKilnDryRunKilnDryRun1 kiln-dryrun-default
ssh_deletekeys: true
ssh_genkeytypes: [ed25519]
ssh_pwauth: true
chpasswd:
  expire: true
  users:
    - name: kiln-dryrun-user
      password: kiln-dryrun-password
      type: text
manage_resolv_conf: true
resolv_conf:
  nameservers: [192.0.2.53]
  searchdomains: [example.test]
ssh_import_id: [gh:kiln-dryrun]
keyboard:
  layout: us
  model: pc105
locale: C.UTF-8
apt:
  sources:
    kiln-dryrun.list:
      source: deb http://192.0.2.1/debian bookworm main
apt_pipelining: false
ntp:
  enabled: true
  servers: [192.0.2.123]
timezone: America/New_York
disable_ec2_metadata: true
runcmd:
  - kiln-dryrun-canary runcmd
yum_repos:
  kiln-dryrun:
    name: kiln dry run
    baseurl: http://192.0.2.1/yum
    enabled: true
zypper:
  repos:
    - id: kiln-dryrun
      baseurl: http://192.0.2.1/zypper
apk_repos:
  alpine_repo:
    version: v3.19
    base_url: http://192.0.2.1/alpine
package_update: true
package_upgrade: true
packages: [kiln-dryrun-package]
puppet:
  install: true
  exec: true
  exec_args: [--kiln-dryrun-canary]
  conf:
    agent:
      server: kiln-dryrun.example.test
  csr_attributes:
    custom_attributes:
      1.2.840.113549.1.9.7: kiln-dryrun
  conf_file: /etc/kiln-dryrun/puppet.conf
  csr_attributes_path: /etc/kiln-dryrun/csr_attributes.yaml
chef:
  server_url: https://kiln-dryrun.example.test
  validation_name: kiln-dryrun
  validation_cert: kiln-dryrun-key
  validation_key: /etc/kiln-dryrun/validation.pem
  directories: [/etc/kiln-dryrun/chef]
  firstboot_path: /etc/kiln-dryrun/firstboot.json
  run_list: ['recipe[kiln-dryrun]']
  exec: true
  exec_arguments: [--kiln-dryrun-canary]
mcollective:
  conf:
    loglevel: debug
    private-cert: kiln-dryrun-cert
salt_minion:
  config_dir: /etc/kiln-dryrun/salt
  conf:
    master: kiln-dryrun.example.test
  public_key: kiln-dryrun-pub
  private_key: kiln-dryrun-priv
ansible:
  install_method: distro
  package_name: kiln-dryrun-ansible
  galaxy:
    actions: [[kiln-dryrun-canary, galaxy]]
  pull:
    url: http://192.0.2.1/kiln-dryrun.git
    playbook_name: kiln-dryrun.yml
snap:
  assertions: [kiln-dryrun-assertion]
  commands:
    - [null, kiln-dryrun-canary, snap]
    - kiln-dryrun-canary snap-shell
lxd:
  init:
    storage_backend: dir
  bridge:
    mode: new
    name: kiln-dryrun-br
wireguard:
  interfaces:
    - name: kiln-dryrun-wg
      config_path: /etc/kiln-dryrun/wg0.conf
      content: kiln-dryrun-wg-config
  readinessprobe: [kiln-dryrun-canary wireguard]
ubuntu_pro:
  token: kiln-dryrun-token
  enable: [kiln-dryrun-service]
  config:
    http_proxy: http://192.0.2.1:3128
drivers:
  nvidia:
    license-accepted: true
    version: kiln-dryrun
rh_subscription:
  username: kiln-dryrun
  password: kiln-dryrun-password
  auto_attach: true
rpi:
  interfaces:
    spi: true
    serial: true
  enable_usb_gadget: true
phone_home:
  url: http://127.0.0.1:9/kiln-dryrun
  post: all
  tries: 1
fan:
  config: 10.0.0.0/8 250.0.0.0/8
  config_path: /etc/kiln-dryrun/fan
landscape:
  client:
    account_name: kiln-dryrun
    url: http://127.0.0.1:9/message-system
spacewalk:
  server: 127.0.0.1:9
  activation_key: kiln-dryrun
autoinstall:
  version: 1
final_message: kiln dry run done
power_state:
  mode: reboot
  delay: now
  message: kiln dry run
  condition: false
`;

/**
 * In the namespaces: an overlay of / (plus mount points for the seed and the binary) whose upper layer is on a
 * private tmpfs; /etc/cloud and /var/lib/cloud are overlays holding only the test's config and NoCloud seed;
 * fresh /proc, read-only /sys, and a /dev of null/zero/random/urandom only, so no device of the host is reachable.
 * After the run it lists what every upper layer holds and the hostname, into $KILN_OUT.
 */
const NAMESPACE_SCRIPT = String.raw`set -eu
L="$KILN_LAYERS"
mount -t tmpfs -o mode=0755 kiln-dryrun-layers "$L"
mkdir -p "$L/mp/etc/cloud" "$L/mp/var/lib/cloud" "$L/mp/usr/bin" "$L/out" "$L/merged"
: > "$L/mp/usr/bin/cloud-init"
for layer in root etc-cloud var-lib-cloud; do mkdir -p "$L/$layer-up" "$L/$layer-work"; done
mkdir -p "$L/etc-cloud" "$L/var-lib-cloud/seed/nocloud"
cp "$KILN_SEED/cloud.cfg" "$L/etc-cloud/cloud.cfg"
cp "$KILN_SEED/meta-data" "$KILN_SEED/user-data" "$L/var-lib-cloud/seed/nocloud/"
M="$L/merged"
mount -t overlay kiln-dryrun-root -o "lowerdir=$L/mp:/,upperdir=$L/root-up,workdir=$L/root-work" "$M"
mount -t overlay kiln-dryrun-etc-cloud -o "lowerdir=$L/etc-cloud,upperdir=$L/etc-cloud-up,workdir=$L/etc-cloud-work" "$M/etc/cloud"
mount -t overlay kiln-dryrun-var-lib-cloud -o "lowerdir=$L/var-lib-cloud,upperdir=$L/var-lib-cloud-up,workdir=$L/var-lib-cloud-work" "$M/var/lib/cloud"
mount --bind "$KILN_BINARY" "$M/usr/bin/cloud-init"
mount -o remount,bind,ro "$M/usr/bin/cloud-init"
mount -t proc proc "$M/proc"
mount -t sysfs -o ro sysfs "$M/sys"
mount -t tmpfs -o mode=0755 kiln-dryrun-dev "$M/dev"
for d in null zero random urandom; do : > "$M/dev/$d"; mount --bind "/dev/$d" "$M/dev/$d"; done
echo kiln-dryrun-before > /proc/sys/kernel/hostname
set +e
strace -f -qq -e trace=execve,execveat -o "$L/out/execve" chroot "$M" /usr/bin/cloud-init --dry-run --debug --all-stages > "$L/out/stdout" 2> "$L/out/stderr"
echo $? > "$L/out/code"
set -e
cat /proc/sys/kernel/hostname > "$L/out/hostname"
for layer in root etc-cloud var-lib-cloud; do (cd "$L/$layer-up" && find . -mindepth 1 -printf "$layer %y %P\n"); done > "$L/out/changed"
cp -r "$L/out/." "$KILN_OUT/"
`;

test('--dry-run --all-stages with every module configured changes no file, no hostname, and starts no program', {
  timeout: 300_000,
}, (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('strace') && hasCommand('chroot'),
      'needs root (for namespaces, overlay and tmpfs mounts), unshare, chroot and strace',
    )
  )
    return;
  const dir = tempDir(t, 'kiln-dryrun-');
  const seed = join(dir, 'seed');
  const out = join(dir, 'out');
  const layers = join(dir, 'layers');
  for (const d of [seed, out, layers]) mkdirSync(d);
  writeFileSync(join(seed, 'cloud.cfg'), everyModuleConfig());
  writeFileSync(join(seed, 'meta-data'), 'instance-id: iid-kiln-dryrun\nlocal-hostname: kiln-dryrun-after\n');
  writeFileSync(join(seed, 'user-data'), USER_DATA);

  const r = spawnSync(
    'unshare',
    ['--uts', '--mount', '--pid', '--ipc', '--net', '--fork', '--kill-child', 'bash', '-c', NAMESPACE_SCRIPT],
    {
      encoding: 'utf8',
      timeout: 240_000,
      env: {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        KILN_LAYERS: layers,
        KILN_SEED: seed,
        KILN_OUT: out,
        KILN_BINARY: binary as string,
      },
    },
  );
  assert.equal(r.status, 0, `namespace setup failed: ${r.stderr}`);
  const read = (name: string) => readFileSync(join(out, name), 'utf8');
  const stdout = read('stdout');
  const stderr = read('stderr');
  // Modules may fail in a dry run (a user it only planned to add is missing when the next step reads
  // /etc/passwd): cloud-init's exit codes for errors (1) and recoverable errors (2) are fine, a crash is not.
  assert.match(read('code').trim(), /^[012]$/, stderr);
  assert.doesNotMatch(stderr, /error: /, 'kiln stopped with an error');

  // Every module of the registry ran (its finish event is logged at DEBUG), so each had its chance to change something.
  for (const m of MODULES)
    assert.match(
      stderr,
      new RegExp(`finish: [\\w-]+/config-${m.name}: (SUCCESS|FAIL)`),
      `module ${m.name} did not run`,
    );
  assert.equal(read('hostname').trim(), 'kiln-dryrun-before', 'the running hostname was changed');
  assert.deepEqual(
    read('changed').split('\n').filter(Boolean),
    [],
    'files were changed, made or removed (overlay upper layers are not empty)',
  );
  // One execve for chroot and one for kiln (as /usr/bin/cloud-init): nothing else was started, or tried (a failed
  // execve is listed too).
  const execs = read('execve')
    .split('\n')
    .filter((l) => /execve(at)?\(/.test(l));
  assert.deepEqual(
    execs.map((l) => /execve(?:at)?\("([^"]*)"/.exec(l)?.[1]),
    [execs[0] && /execve\("([^"]*)"/.exec(execs[0])?.[1], '/usr/bin/cloud-init'],
    `programs were started:\n${execs.join('\n')}`,
  );
  // What the run would have done is printed, not done.
  assert.match(stdout, /^dry run: \d+ effects not applied$/m);
  assert.match(stdout, /^ {2}would set hostname kiln-dryrun-after$/m);
  assert.match(stdout, /^ {2}would write \/etc\/kiln-dryrun\/written\.txt /m);
  assert.match(stdout, /^ {2}would run kiln-dryrun-canary seed_random$/m);
  assert.match(stdout, /^ {2}would run useradd kiln-dryrun-user /m);
});
