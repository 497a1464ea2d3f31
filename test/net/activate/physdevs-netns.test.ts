// Before the network stage applies a config: the devices it names by MAC are waited for (bounded) and renamed, for
// real, in a network namespace of the test's own (veth pairs; the host's network is never touched) against a copy
// of the cached Debian rootfs, with the namespace's sysfs mounted as the root's /sys.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { copyRootfs } from '../../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../../helpers/requirements';
import { BUSYBOX, makeLab, playRole, roleEnv, sh, type Lab } from '../../helpers/netns-lab';
import { tempDir } from '../../helpers/temp';

// This file also runs as kiln inside the lab's namespace: see playRole.
if (!(await playRole())) registerTests();

const MAC0 = '52:54:00:0b:c7:01';
const MAC1 = '52:54:00:0b:c7:02';
const NEVER = '52:54:00:0b:c7:99';

/** The lab's eth0 plus a second NIC the kernel called ens9 (MAC1), its other end vs1 (10.198.0.1/24) in the cloud. */
function labWithEns9(t: TestContext): Lab {
  const lab = makeLab(t, { mac: MAC0, dhcp: false });
  sh(['ip', '-n', lab.client, 'link', 'add', 'ens9', 'address', MAC1, 'type', 'veth', 'peer', 'name', 'vs1', 'netns', lab.server]);
  sh(['ip', '-n', lab.server, 'addr', 'add', '10.198.0.1/24', 'dev', 'vs1']);
  sh(['ip', '-n', lab.server, 'link', 'set', 'vs1', 'up']);
  return lab;
}

function networkConfig(eth1Mac: string): string {
  return `version: 1
config:
  - type: physical
    name: eth0
    mac_address: '${MAC0}'
    subnets: [{type: static, address: 10.199.0.5/24}]
  - type: physical
    name: eth1
    mac_address: '${eth1Mac}'
    subnets: [{type: static, address: 10.198.0.5/24}]
`;
}

/**
 * A copy of the Debian rootfs seeded with NoCloud and NETWORK_CONFIG (no modules: only the network step), and a
 * stand-in udevadm that records its arguments: the rootfs has no udev, and a real settle without udevd returns
 * at once anyway; the stand-in shows each settle kiln asks for.
 */
function seededRoot(t: TestContext, netcfg: string): string {
  const root = copyRootfs(tempDir(t, 'kiln-physdevs-'));
  const seed = join(root, 'var/lib/cloud/seed/nocloud');
  mkdirSync(seed, { recursive: true });
  writeFileSync(join(seed, 'meta-data'), 'instance-id: i-physdevs\n');
  writeFileSync(join(seed, 'user-data'), '');
  writeFileSync(join(seed, 'network-config'), netcfg);
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/99-physdevs-test.cfg'), 'datasource_list: [NoCloud]\ncloud_init_modules: []\n');
  writeFileSync(join(root, 'usr/local/sbin/udevadm'), '#!/bin/sh\necho "udevadm $*" >> /var/tmp/udevadm-calls\n');
  chmodSync(join(root, 'usr/local/sbin/udevadm'), 0o755);
  return root;
}

/** kiln's init (network) stage in the machine's namespace, the namespace's sysfs mounted as ROOT/sys. */
function initStage(lab: Lab, root: string): { code: number | null; output: string; log: string; seconds: number } {
  const started = Date.now();
  const script = 'mount -t sysfs sysfs "$0/sys" && exec "$@"';
  const r = spawnSync('ip', ['netns', 'exec', lab.client, 'unshare', '--mount', '/bin/sh', '-c', script, root, process.execPath, process.argv[1] as string], {
    env: roleEnv('kiln', ['init', '--root', root]),
    encoding: 'utf8',
    timeout: 400_000,
  });
  const logFile = join(root, 'var/log/cloud-init.log');
  return { code: r.status, output: `${r.stdout}\n${r.stderr}`, log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '', seconds: (Date.now() - started) / 1000 };
}

function links(lab: Lab): string {
  return sh(['ip', '-n', lab.client, '-o', 'link', 'show']);
}

function canRun(t: TestContext): boolean {
  return need(t, isRoot() && hasCommand('ip') && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap') && existsSync(BUSYBOX), 'needs root, iproute2, unshare, chroot, debootstrap (the cached Debian rootfs) and busybox for network namespaces');
}

function registerTests(): void {
  test('a NIC the config names eth1 by its MAC, which the kernel called ens9, is renamed before ifup brings it up', { timeout: 600_000 }, async (t) => {
    if (!canRun(t)) return;
    const lab = labWithEns9(t);
    const root = seededRoot(t, networkConfig(MAC1));
    const run = initStage(lab, root);
    assert.equal(run.code, 0, run.output + run.log);
    assert.match(run.log, /net: all expected physical devices present/);
    assert.match(run.log, /achieving renaming of .* with ops rename ens9 -> eth1/);
    const after = links(lab);
    assert.doesNotMatch(after, /\bens9\b/);
    assert.match(after, new RegExp(`\\d+: eth1@\\S+: .*link/ether ${MAC1}`));
    // Renamed before rendering and bring-up: ifup found eth1, which now holds its address.
    assert.match(run.log, /Attempting command \['ifup', 'eth1'\] for device eth1/);
    assert.match(sh(['ip', '-n', lab.client, '-o', 'addr', 'show', 'dev', 'eth1']), /inet 10\.198\.0\.5\/24/);
    sh(['ip', 'netns', 'exec', lab.client, BUSYBOX, 'ping', '-c', '1', '-W', '2', '10.198.0.1']);
    // Every MAC was there from the start: no settle was needed.
    assert.ok(!existsSync(join(root, 'var/tmp/udevadm-calls')));
  });

  test('a MAC that never appears: five settles, then 22.4\'s warning, and nothing is rendered or renamed', { timeout: 600_000 }, async (t) => {
    if (!canRun(t)) return;
    const lab = labWithEns9(t);
    const root = seededRoot(t, networkConfig(NEVER));
    const run = initStage(lab, root);
    assert.match(run.log, new RegExp(`WARNING.*Not all expected physical devices present: \\{'${NEVER}'\\}`));
    assert.equal(readFileSync(join(root, 'var/tmp/udevadm-calls'), 'utf8'), 'udevadm settle --exit-if-exists=/sys/class/net/eth1\n'.repeat(5));
    assert.ok(run.seconds < 120, `the wait is bounded (took ${run.seconds} s)`);
    assert.ok(!existsSync(join(root, 'etc/network/interfaces.d/50-cloud-init')), 'the config was not applied');
    assert.match(links(lab), /\bens9\b/);
    const status = JSON.parse(readFileSync(join(root, 'run/cloud-init/status.json'), 'utf8')) as { v1: { init: { recoverable_errors?: Record<string, string[]> } } };
    assert.match(JSON.stringify(status.v1.init.recoverable_errors ?? {}), /Not all expected physical devices present/);
  });
}
