// The runner's network step on a real root: what it renders, the renderer's post-write commands, and bring-up.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import { applyNetworkOnLinux } from '../../src/runner/apply-network-linux';
import type { NetworkInput } from '../../src/runner/runner-deps';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { IFUPDOWN_FILES, NETPLAN_FILES, recordingRoot } from '../net/activate/recording-platform';

const DEBIAN: DistroInfo = { name: 'debian', family: 'debian', version: '12' };
const instance: InstanceData = {
  instanceId: 'i-1',
  cloudName: 'nocloud',
  platform: 'nocloud',
  subplatform: 'seed-dir (/seed)',
  publicKeys: [],
  metadata: {},
  networkConfig: { format: 'v1', config: { version: 1, config: [{ type: 'physical', name: 'eth0', subnets: [{ type: 'dhcp' }] }, { type: 'physical', name: 'eth1', subnets: [{ type: 'static', address: '10.0.0.2/24' }] }] } },
};

function input(p: NetworkInput['platform'], bringUp: boolean, config: Record<string, unknown> = {}): NetworkInput {
  return { platform: p, log: new Logger().for('stages.py'), instance, config, distro: DEBIAN, stage: bringUp ? 'network' : 'local', kernelCmdline: '', bringUp };
}

test('ifupdown: init-local renders only; the network stage renders and runs ifup for each interface', async (t) => {
  const local = recordingRoot(t, IFUPDOWN_FILES);
  const quiet = await applyNetworkOnLinux(input(local, false));
  assert.ok(quiet.written.includes('/etc/network/interfaces.d/50-cloud-init'));
  assert.equal(quiet.broughtUp, undefined);
  assert.deepEqual(local.commands, [], 'nothing is run in init-local');
  const net = recordingRoot(t, IFUPDOWN_FILES);
  const out = await applyNetworkOnLinux(input(net, true));
  assert.deepEqual(net.commands, ['ifup eth0', 'ifup eth1']);
  assert.equal(out.activator, 'eni');
  assert.equal(out.broughtUp, true);
});

test('system_info.network.activators picks the activator; none available is a warning, not an error', async (t) => {
  const both = recordingRoot(t, [...IFUPDOWN_FILES, 'bin/ip', 'bin/systemctl']);
  await applyNetworkOnLinux(input(both, true, { system_info: { network: { activators: ['networkd'] } } }));
  assert.deepEqual(both.commands, ['systemctl restart systemd-networkd systemd-resolved']);
  const eniOnly = recordingRoot(t, IFUPDOWN_FILES);
  const out = await applyNetworkOnLinux(input(eniOnly, true, { system_info: { network: { activators: ['netplan'] } } }));
  assert.deepEqual(eniOnly.commands, []);
  assert.equal(out.broughtUp, false);
});

test('netplan on Debian: netplan generate and net_setup_link for every device in /sys/class/net, in init-local too', async (t) => {
  const p = recordingRoot(t, NETPLAN_FILES);
  mkdirSync(join(p.root, 'sys/devices/virtual/net/eth0'), { recursive: true });
  mkdirSync(join(p.root, 'sys/class/net'), { recursive: true });
  symlinkSync('../../devices/virtual/net/eth0', join(p.root, 'sys/class/net/eth0'));
  writeFileSync(join(p.root, 'sys/class/net/bonding_masters'), '');
  await applyNetworkOnLinux(input(p, false));
  assert.deepEqual(p.commands, ['netplan generate', 'udevadm test-builtin net_setup_link /sys/class/net/eth0']);
  const applied = recordingRoot(t, NETPLAN_FILES);
  await applyNetworkOnLinux(input(applied, true));
  assert.deepEqual(applied.commands, ['netplan generate', 'netplan apply'], 'no devices, no net_setup_link; then netplan apply brings up');
});

test('a failing post-render command is an error naming it; other distros run none', async (t) => {
  const p = recordingRoot(t, NETPLAN_FILES, (argv) => (argv[1] === 'generate' ? { code: 1, stderr: 'Error in network definition' } : {}));
  await assert.rejects(applyNetworkOnLinux(input(p, false)), /\['netplan', 'generate'\] failed \(exit code 1\): Error in network definition/);
  const fedora = recordingRoot(t, NETPLAN_FILES);
  await applyNetworkOnLinux({ ...input(fedora, false), distro: { name: 'fedora', family: 'redhat', version: '40' } });
  assert.deepEqual(fedora.commands, []);
});
