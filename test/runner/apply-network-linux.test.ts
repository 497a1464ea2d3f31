// The runner's network step on a real root: what it renders, the renderer's post-write commands, and bring-up.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import { applyNetworkOnLinux } from '../../src/runner/apply-network-linux';
import type { NetworkInput } from '../../src/runner/runner-deps';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger, MemorySink } from '../../src/util/log';
import { IFUPDOWN_FILES, NETPLAN_FILES, recordingRoot } from '../net/activate/recording-platform';

const DEBIAN: DistroInfo = { name: 'debian', family: 'debian', version: '12' };
const instance: InstanceData = {
  instanceId: 'i-1',
  cloudName: 'nocloud',
  platform: 'nocloud',
  subplatform: 'seed-dir (/seed)',
  publicKeys: [],
  metadata: {},
  networkConfig: {
    format: 'v1',
    config: {
      version: 1,
      config: [
        { type: 'physical', name: 'eth0', subnets: [{ type: 'dhcp' }] },
        { type: 'physical', name: 'eth1', subnets: [{ type: 'static', address: '10.0.0.2/24' }] },
      ],
    },
  },
};

function input(p: NetworkInput['platform'], bringUp: boolean, config: Record<string, unknown> = {}): NetworkInput {
  return {
    platform: p,
    log: new Logger().for('stages.py'),
    instance,
    config,
    distro: DEBIAN,
    stage: bringUp ? 'network' : 'local',
    kernelCmdline: '',
    bringUp,
  };
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
  const out = await applyNetworkOnLinux(
    input(eniOnly, true, { system_info: { network: { activators: ['netplan'] } } }),
  );
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
  assert.deepEqual(
    applied.commands,
    ['netplan generate', 'netplan apply'],
    'no devices, no net_setup_link; then netplan apply brings up',
  );
});

test('a failing post-render command is an error naming it; other distros run none', async (t) => {
  const p = recordingRoot(t, NETPLAN_FILES, (argv) =>
    argv[1] === 'generate' ? { code: 1, stderr: 'Error in network definition' } : {},
  );
  await assert.rejects(
    applyNetworkOnLinux(input(p, false)),
    /\['netplan', 'generate'\] failed \(exit code 1\): Error in network definition/,
  );
  const fedora = recordingRoot(t, NETPLAN_FILES);
  await applyNetworkOnLinux({ ...input(fedora, false), distro: { name: 'fedora', family: 'redhat', version: '40' } });
  assert.deepEqual(fedora.commands, []);
});

test('EC2 at boot: with netplan the secondary NIC gets its own routing table (25.1), with ifupdown it does not', async (t) => {
  const ec2: InstanceData = {
    ...instance,
    networkConfig: {
      format: 'ec2',
      config: {
        interfaces: {
          macs: {
            '0a:00:00:00:00:01': {
              'device-number': '0',
              'local-ipv4s': '10.0.0.5',
              'subnet-ipv4-cidr-block': '10.0.0.0/20',
            },
            '0a:00:00:00:00:02': {
              'device-number': '1',
              'local-ipv4s': '10.0.16.5',
              'subnet-ipv4-cidr-block': '10.0.16.0/20',
            },
          },
        },
      },
    },
  };
  const withNics = (files: string[]) => {
    const p = recordingRoot(t, files);
    for (const [name, mac] of [
      ['ens5', '0a:00:00:00:00:01'],
      ['ens6', '0a:00:00:00:00:02'],
    ] as const) {
      mkdirSync(join(p.root, 'sys/devices/pci0000:00', name), { recursive: true });
      writeFileSync(join(p.root, 'sys/devices/pci0000:00', name, 'address'), `${mac}\n`);
      mkdirSync(join(p.root, 'sys/class/net'), { recursive: true });
      symlinkSync(`../../devices/pci0000:00/${name}`, join(p.root, 'sys/class/net', name));
    }
    return p;
  };
  const netplan = withNics(NETPLAN_FILES);
  await applyNetworkOnLinux({ ...input(netplan, false), instance: ec2 });
  const yaml = readFileSync(join(netplan.root, 'etc/netplan/50-cloud-init.yaml'), 'utf8');
  assert.match(yaml, /routing-policy:\n\s+-\s+from: 10\.0\.16\.5\n\s+table: 101/);
  assert.match(yaml, /use-routes: true/);
  const eni = withNics(IFUPDOWN_FILES);
  await applyNetworkOnLinux({ ...input(eni, false), instance: ec2 });
  assert.doesNotMatch(
    readFileSync(join(eni.root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8'),
    /table|10\.0\.16\.0/,
  );
});

test("the applied network config is checked against the schema as 25.1's apply_network_config checks it: a warning without details, and the config still applied", async (t) => {
  const warnings = async (config: Record<string, unknown>): Promise<{ lines: string[]; written: string[] }> => {
    const logger = new Logger();
    const sink = new MemorySink('INFO');
    logger.addSink(sink);
    const p = recordingRoot(t, IFUPDOWN_FILES);
    const out = await applyNetworkOnLinux({
      ...input(p, false),
      log: logger.for('stages.py'),
      instance: { ...instance, networkConfig: { format: 'v1', config } },
    });
    return {
      lines: sink.lines
        .filter((l) => /\[(WARNING|DEPRECATED)\]/.test(l))
        .map((l) => l.replace(/^.*\[(WARNING|DEPRECATED)\]: /, '$1 ').trimEnd()),
      written: out.written,
    };
  };
  const good = await warnings({
    version: 1,
    config: [{ type: 'physical', name: 'eth0', subnets: [{ type: 'dhcp' }] }],
  });
  assert.deepEqual(good.lines, []);
  // MAAS's `id` and a stray key: outside the v1 schema (a warning), passed over by the parser (applied).
  const stray = await warnings({
    version: 1,
    config: [{ type: 'physical', id: 'eth0', name: 'eth0', colour: 'blue', subnets: [{ type: 'dhcp' }] }],
  });
  assert.ok(
    stray.lines.includes(
      "WARNING network-config failed schema validation! You may run 'sudo cloud-init schema --system' to check the details.",
    ),
    stray.lines.join('\n'),
  );
  assert.ok(stray.written.includes('/etc/network/interfaces.d/50-cloud-init'));
});
