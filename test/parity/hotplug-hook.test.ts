// Parity: `cloud-init devel hotplug-hook` of Debian 13's cloud-init 25.1 and kiln's, on the same NoCloud root
// booted by each (with and without hotplug in updates.network.when): query before a boot and after, handle add of
// a second NIC (veth pairs in a network namespace of the sandbox's own), enable twice, query again; their output,
// exit codes and the files they leave (hotplug.enabled and its mode, the udev rule, the rendered ENI, the
// persistent-net rules, /run/cloud-init) must match. Only the usage errors' wording differs (argparse's against
// kiln's; both exit 2), so for those the exit codes alone are compared.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { copyRootfs } from '../helpers/debian-rootfs';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { PARITY_SUITE } from './run-case';
import { installKiln } from './sandbox-stages';

const NETWORK_CONFIG = [
  'version: 2',
  'ethernets:',
  '  eth0: {match: {macaddress: "52:54:00:aa:00:01"}, set-name: eth0, addresses: [10.9.0.2/24]}',
  '  eth1: {match: {macaddress: "52:54:00:aa:00:02"}, set-name: eth1, addresses: [10.9.1.2/24]}',
  '',
].join('\n');

/**
 * The session, run in fresh mount, network, PID, UTS and IPC namespaces; `== step` lines, each command's output and rc.
 */
function session(root: string): string {
  const hook = (args: string) => `chroot "$R" cloud-init devel hotplug-hook ${args}`;
  const step = (name: string, cmd: string, stderr = '2>&1') => `echo "== ${name}"; ${cmd} ${stderr}; echo "rc=$?"`;
  const script = [
    'set -u',
    `R='${root}'`,
    'mount --make-rprivate /',
    'ip link set lo up',
    'ip link add eth0 address 52:54:00:aa:00:01 type veth peer name p0 && ip link set p0 up',
    'ip link add eth1 address 52:54:00:aa:00:02 type veth peer name p1 && ip link set p1 up',
    'mount -t proc proc "$R/proc" && mount -t sysfs sys "$R/sys" && mount -t tmpfs tmpfs "$R/run" && mkdir -p "$R/run/cloud-init"',
    step('query before a boot', hook('-s net query')),
    'rm -rf "$R/run/cloud-init"/* "$R/var/lib/cloud/hotplug.enabled"',
    'chroot "$R" cloud-init init --local >/dev/null 2>&1; echo "init-local rc=$?"',
    'chroot "$R" cloud-init init >/dev/null 2>&1; echo "init rc=$?"',
    step('query', hook('-s net query')),
    step('handle add eth1', hook('-s net handle -d /devices/virtual/net/eth1 -u add'), '2>/dev/null'),
    step('enable', hook('-s net enable')),
    step('enable again', hook('-s net enable')),
    step('query after enable', hook('-s net query')),
    'echo "== hotplug.enabled"; cat "$R/var/lib/cloud/hotplug.enabled"; echo; stat -c %a "$R/var/lib/cloud/hotplug.enabled"',
    'echo "== udev rule"; cat "$R/etc/udev/rules.d/90-cloud-init-hook-hotplug.rules"',
    'echo "== eni"; cat "$R/etc/network/interfaces.d/50-cloud-init"',
    'echo "== persistent-net"; cat "$R/etc/udev/rules.d/70-persistent-net.rules" 2>&1',
    'echo "== run"; ls "$R/run/cloud-init" | grep -v "^tmp"',
    // Usage errors: the exit codes alone.
    `echo "== usage"; ${hook('-s foo query')} >/dev/null 2>&1; echo "rc=$?"; ${hook('-s net')} >/dev/null 2>&1; echo "rc=$?"; ${hook('-s net handle -u add')} >/dev/null 2>&1; echo "rc=$?"`,
  ].join('\n');
  const r = spawnSync(
    'unshare',
    ['--mount', '--net', '--pid', '--uts', '--ipc', '--fork', '--kill-child', '/bin/sh', '-c', script],
    { encoding: 'utf8', timeout: 300_000 },
  );
  return `${r.stdout}${r.stderr}`;
}

function seeded(name: string, t: Parameters<typeof tempDir>[0], hotplug: boolean): string {
  const root = copyRootfs(tempDir(t, `kiln-hotplug-parity-${name}-`), { suite: PARITY_SUITE });
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  spawnSync('mkdir', ['-p', seed]);
  const files: Record<string, string> = {
    'meta-data': 'instance-id: iid-hotplug-1\nlocal-hostname: hp\n',
    'user-data': hotplug
      ? '#cloud-config\nupdates:\n  network:\n    when: [boot-new-instance, hotplug]\n'
      : '#cloud-config\n{}\n',
    'network-config': NETWORK_CONFIG,
  };
  for (const [file, text] of Object.entries(files)) spawnSync('tee', [join(seed, file)], { input: text });
  spawnSync('tee', [join(root, 'etc/cloud/cloud.cfg.d/90-kiln-hotplug.cfg')], {
    input: 'datasource_list: [NoCloud, None]\n',
  });
  return root;
}

test('devel hotplug-hook query, handle and enable as cloud-init 25.1 on the same NoCloud root, with and without hotplug enabled', {
  timeout: 900_000,
}, async (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('ip') && hasCommand('debootstrap'),
      'needs root, unshare, chroot, iproute2 and debootstrap for the trixie rootfs',
    )
  )
    return;
  if (!need(t, binary !== undefined, 'needs the built binary (node build.mjs linux-x64)')) return;
  for (const hotplug of [false, true]) {
    const theirs = session(seeded('cloud-init', t, hotplug));
    const kilnRoot = seeded('kiln', t, hotplug);
    installKiln(kilnRoot, binary as string);
    const ours = session(kilnRoot);
    // The session did what it says on cloud-init's side (else two broken sessions would agree).
    assert.match(theirs, /init rc=0\n== query\n(enabled|disabled)\nrc=0\n/, `cloud-init's session:\n${theirs}`);
    assert.match(theirs, /== enable\nEnabled cloud-init hotplug for subsystem=net\nrc=0\n/, theirs);
    assert.match(theirs, /iface eth1 inet static/, theirs);
    assert.equal(ours, theirs, `hotplug ${hotplug ? 'on' : 'off'}`);
  }
});
