// Before the network stage applies a config: the devices it names by MAC are waited for (bounded) and renamed, for
// real, in a network namespace of the test's own (veth pairs; the host's network is never touched) against a copy
// of the cached Debian rootfs, with the namespace's sysfs mounted as the root's /sys.
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { BUSYBOX, makeLab, playRole, sh, type Lab } from '../../helpers/netns-lab';
import { addSecondNic, canRunNetworkStage, nocloudNetworkRoot, runInitStage } from './network-stage-lab';

// This file also runs as kiln inside the lab's namespace: see playRole.
if (!(await playRole())) registerTests();

const MAC0 = '52:54:00:0b:c7:01';
const MAC1 = '52:54:00:0b:c7:02';
const NEVER = '52:54:00:0b:c7:99';

/** The lab's eth0 plus a second NIC the kernel called ens9 (MAC1), its other end vs1 (10.198.0.1/24) in the cloud. */
function labWithEns9(t: TestContext): Lab {
  const lab = makeLab(t, { mac: MAC0, dhcp: false });
  addSecondNic(lab, 'ens9', MAC1);
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
 * The seeded rootfs copy with a stand-in udevadm that records its arguments: the rootfs has no udev, and a real
 * settle without udevd returns at once anyway; the stand-in shows each settle kiln asks for.
 */
function seededRoot(t: TestContext, netcfg: string): string {
  const root = nocloudNetworkRoot(t, 'physdevs', netcfg);
  writeFileSync(join(root, 'usr/local/sbin/udevadm'), '#!/bin/sh\necho "udevadm $*" >> /var/tmp/udevadm-calls\n');
  chmodSync(join(root, 'usr/local/sbin/udevadm'), 0o755);
  return root;
}

function links(lab: Lab): string {
  return sh(['ip', '-n', lab.client, '-o', 'link', 'show']);
}

function registerTests(): void {
  test('a NIC the config names eth1 by its MAC, which the kernel called ens9, is renamed before ifup brings it up', {
    timeout: 600_000,
  }, async (t) => {
    if (!canRunNetworkStage(t)) return;
    const lab = labWithEns9(t);
    const root = seededRoot(t, networkConfig(MAC1));
    const run = runInitStage(lab, root);
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

  test("a MAC that never appears: five settles, then 22.4's warning, and nothing is rendered or renamed", {
    timeout: 600_000,
  }, async (t) => {
    if (!canRunNetworkStage(t)) return;
    const lab = labWithEns9(t);
    const root = seededRoot(t, networkConfig(NEVER));
    const run = runInitStage(lab, root);
    assert.match(run.log, new RegExp(`WARNING.*Not all expected physical devices present: \\{'${NEVER}'\\}`));
    assert.equal(
      readFileSync(join(root, 'var/tmp/udevadm-calls'), 'utf8'),
      'udevadm settle --exit-if-exists=/sys/class/net/eth1\n'.repeat(5),
    );
    assert.ok(run.seconds < 120, `the wait is bounded (took ${run.seconds} s)`);
    assert.ok(!existsSync(join(root, 'etc/network/interfaces.d/50-cloud-init')), 'the config was not applied');
    assert.match(links(lab), /\bens9\b/);
    const status = JSON.parse(readFileSync(join(root, 'run/cloud-init/status.json'), 'utf8')) as {
      v1: { init: { recoverable_errors?: Record<string, string[]> } };
    };
    assert.match(JSON.stringify(status.v1.init.recoverable_errors ?? {}), /Not all expected physical devices present/);
  });
}
