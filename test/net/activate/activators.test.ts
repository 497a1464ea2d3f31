// The activators: chosen as cloud-init's select_activator, and the commands each runs to bring interfaces up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACTIVATION_TIMEOUT_MS } from '../../../src/net/activate/activator';
import { selectActivator } from '../../../src/net/activate/select-activator';
import { NetworkConfigError } from '../../../src/net/net-error';
import { parseNetworkDocument } from '../../../src/net/parse-network-config';
import { Logger, type LogLevel } from '../../../src/util/log';
import { IFUPDOWN_FILES, NETPLAN_FILES, NETWORKD_FILES, NM_FILES, recordingRoot } from './recording-platform';

const twoNics = () =>
  parseNetworkDocument({
    version: 1,
    config: [
      { type: 'physical', name: 'eth0', subnets: [{ type: 'dhcp' }] },
      { type: 'physical', name: 'eth1', subnets: [{ type: 'static', address: '10.0.0.2/24' }] },
    ],
  });

/** A log and a function that returns the WARNING-and-above lines it got so far as [level, message]. */
function capturingLog(): { log: ReturnType<Logger['for']>; lines: () => Array<[LogLevel, string]> } {
  const logger = new Logger();
  const capture = logger.capture();
  return {
    log: logger.for('activators.py'),
    lines: () =>
      Object.entries(capture.levels).flatMap(([lvl, msgs]) =>
        msgs.map((m): [LogLevel, string] => [lvl as LogLevel, m]),
      ),
  };
}

test('the default priority is eni, netplan, network-manager, networkd; the first whose tools are there wins', async (t) => {
  const all = recordingRoot(t, [...IFUPDOWN_FILES, ...NETPLAN_FILES, ...NM_FILES, ...NETWORKD_FILES]);
  assert.equal((await selectActivator(all, 'debian'))?.name, 'eni');
  assert.equal(
    (await selectActivator(recordingRoot(t, [...NETPLAN_FILES, ...NETWORKD_FILES]), 'ubuntu'))?.name,
    'netplan',
  );
  assert.equal(
    (await selectActivator(recordingRoot(t, [...NM_FILES, ...NETWORKD_FILES]), 'fedora'))?.name,
    'network-manager',
  );
  assert.equal((await selectActivator(recordingRoot(t, NETWORKD_FILES), 'arch'))?.name, 'networkd');
  assert.equal(
    await selectActivator(recordingRoot(t, []), 'debian'),
    undefined,
    'nothing available: no activator (cloud-init warns and leaves the interfaces)',
  );
  assert.equal(
    (await selectActivator(all, 'debian', ['networkd', 'eni']))?.name,
    'networkd',
    'system_info.network.activators orders the search',
  );
  await assert.rejects(
    selectActivator(all, 'debian', ['eni', 'ifupdown2']),
    (e: unknown) => e instanceof NetworkConfigError && /system_info\.network\.activators.*'ifupdown2'/.test(e.message),
  );
});

test('ifupdown runs ifup for each interface, bounded, and stops at the first that fails (Python all())', async (t) => {
  const p = recordingRoot(t, IFUPDOWN_FILES);
  const a = await selectActivator(p, 'debian');
  assert.ok(a);
  assert.equal(await a.bringUpAll({ platform: p, log: new Logger().for('x') }, twoNics()), true);
  assert.deepEqual(p.commands, ['ifup eth0', 'ifup eth1']);
  assert.ok(
    p.timeouts.every((ms) => ms === ACTIVATION_TIMEOUT_MS),
    'every bring-up command has a time limit',
  );
  const failing = recordingRoot(t, IFUPDOWN_FILES, (argv) =>
    argv[1] === 'eth0' ? { code: 1, stderr: 'ifup: unknown interface eth0' } : {},
  );
  const { log, lines } = capturingLog();
  assert.equal(await a.bringUpAll({ platform: failing, log }, twoNics()), false);
  assert.deepEqual(failing.commands, ['ifup eth0'], 'cloud-init stops at the first interface that fails');
  assert.ok(
    lines().some(([lvl, m]) => lvl === 'WARNING' && m.includes("['ifup', 'eth0']") && m.includes('unknown interface')),
    'the failure is a warning naming the command and why',
  );
});

test('stderr output from a command that succeeded is a warning, not a failure', async (t) => {
  const p = recordingRoot(t, IFUPDOWN_FILES, () => ({ stderr: 'RTNETLINK answers: File exists\n' }));
  const a = await selectActivator(p, 'debian');
  const { log, lines } = capturingLog();
  assert.equal(await a?.bringUpInterface({ platform: p, log }, 'eth0'), true);
  assert.ok(
    lines().some(
      ([lvl, m]) => lvl === 'WARNING' && m.startsWith("Running ['ifup', 'eth0'] resulted in stderr output: RTNETLINK"),
    ),
  );
});

test('netplan applies once for all interfaces; networkd restarts networkd and resolved', async (t) => {
  const np = recordingRoot(t, NETPLAN_FILES);
  await (await selectActivator(np, 'ubuntu'))?.bringUpAll({ platform: np, log: new Logger().for('x') }, twoNics());
  assert.deepEqual(np.commands, ['netplan apply']);
  const nd = recordingRoot(t, NETWORKD_FILES);
  const networkd = await selectActivator(nd, 'arch');
  await networkd?.bringUpAll({ platform: nd, log: new Logger().for('x') }, twoNics());
  await networkd?.bringUpInterface({ platform: nd, log: new Logger().for('x') }, 'eth1');
  assert.deepEqual(nd.commands, ['systemctl restart systemd-networkd systemd-resolved', 'ip link set up eth1']);
});

test('NetworkManager loads the connection file and brings it up; a failed load reloads and brings the device up by name', async (t) => {
  const p = recordingRoot(t, NM_FILES, (argv) =>
    argv.join(' ').includes('load') && argv.join(' ').includes('eth1') ? { code: 10 } : {},
  );
  await (await selectActivator(p, 'fedora'))?.bringUpAll({ platform: p, log: new Logger().for('x') }, twoNics());
  assert.deepEqual(p.commands, [
    'nmcli connection load /etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection',
    'nmcli connection up filename /etc/NetworkManager/system-connections/cloud-init-eth0.nmconnection',
    'nmcli connection load /etc/NetworkManager/system-connections/cloud-init-eth1.nmconnection',
    'nmcli connection reload',
    'nmcli connection up ifname eth1',
  ]);
});

test('bringing one interface down (hotplug remove) runs what cloud-init 22.4 runs: ifdown, netplan apply, nmcli device disconnect, ip link set down', async (t) => {
  const log = new Logger().for('x');
  const cases: Array<[string[], string, string]> = [
    [IFUPDOWN_FILES, 'debian', 'ifdown eth1'],
    [NETPLAN_FILES, 'ubuntu', 'netplan apply'],
    [NM_FILES, 'fedora', 'nmcli device disconnect eth1'],
    [NETWORKD_FILES, 'arch', 'ip link set down eth1'],
  ];
  for (const [files, distro, expected] of cases) {
    const p = recordingRoot(t, files);
    assert.equal(await (await selectActivator(p, distro))?.bringDownInterface({ platform: p, log }, 'eth1'), true);
    assert.deepEqual(p.commands, [expected]);
  }
});
