// The activators for real: kiln's init (network) stage runs in a network namespace of the test's own against a copy
// of the cached Debian rootfs (ifupdown, isc-dhcp-client, systemd-networkd), with two veth pairs whose other ends
// sit in a second namespace (udhcpd on one). Nothing here touches the host's network: every link is made inside
// the namespaces, which teardown deletes.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { BUSYBOX, DEFAULT_DHCP_OPTIONS, makeLab, playRole, sh, type Lab } from '../../helpers/netns-lab';
import { addSecondNic, canRunNetworkStage, nocloudNetworkRoot, runInitStage } from './network-stage-lab';

// This file also runs as kiln inside the lab's namespace: see playRole.
if (!(await playRole())) registerTests();

const MAC0 = '52:54:00:0a:c7:01';
const MAC1 = '52:54:00:0a:c7:02';

/** eth0 on DHCP (udhcpd behind it), eth1 static: the NoCloud seed's network-config. */
const NETWORK_CONFIG = `version: 1
config:
  - type: physical
    name: eth0
    mac_address: '${MAC0}'
    subnets: [{type: dhcp}]
  - type: physical
    name: eth1
    mac_address: '${MAC1}'
    subnets: [{type: static, address: 10.198.0.5/24}]
`;

/** The lab plus a second veth pair: eth1 in the machine, vs1 (10.198.0.1/24) in the cloud. */
function twoNicLab(t: TestContext): Lab {
  const lab = makeLab(t, { mac: MAC0, dhcp: DEFAULT_DHCP_OPTIONS });
  addSecondNic(lab, 'eth1', MAC1);
  return lab;
}

/** The seeded rootfs copy with CONFIG in cloud.cfg.d. */
function seededRoot(t: TestContext, config: string): string {
  return nocloudNetworkRoot(t, 'activate', NETWORK_CONFIG, config);
}

function addresses(lab: Lab, dev: string): string {
  return sh(['ip', '-n', lab.client, '-o', 'addr', 'show', 'dev', dev]);
}

function registerTests(): void {
  test('ifupdown: the network stage renders ENI and runs ifup per interface; eth0 leases by DHCP, eth1 gets its address', {
    timeout: 600_000,
  }, async (t) => {
    if (!canRunNetworkStage(t)) return;
    const lab = twoNicLab(t);
    const root = seededRoot(t, '');
    const run = runInitStage(lab, root);
    assert.equal(run.code, 0, run.output + run.log);
    assert.match(readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8'), /iface eth0 inet dhcp/);
    assert.match(run.log, /Attempting command \['ifup', 'eth0'\] for device eth0/);
    assert.match(run.log, /Attempting command \['ifup', 'eth1'\] for device eth1/);
    assert.match(
      addresses(lab, 'eth0'),
      /inet 10\.199\.0\.(1\d|20)\/24/,
      'dhclient, started by ifup, leased an address from udhcpd',
    );
    assert.match(addresses(lab, 'eth1'), /inet 10\.198\.0\.5\/24/);
    assert.match(sh(['ip', '-n', lab.client, 'route', 'show', 'default']), /default via 10\.199\.0\.1 dev eth0/);
    sh(['ip', 'netns', 'exec', lab.client, BUSYBOX, 'ping', '-c', '1', '-W', '2', '10.198.0.1']);
    // The tables were printed before the interfaces came up: eth0 down, with its MAC and no address yet.
    assert.match(run.output, /ci-info: \+{20,}Net device info\+{20,}/);
    assert.match(
      run.output,
      new RegExp(`ci-info: \\|\\s+eth0\\s+\\| False \\|\\s+\\.\\s+\\|\\s+\\.\\s+\\|\\s+\\.\\s+\\| ${MAC0} \\|`),
    );
    const status = JSON.parse(readFileSync(join(root, 'run/cloud-init/status.json'), 'utf8')) as {
      v1: { datasource: string };
    };
    assert.equal(status.v1.datasource, 'DataSourceNoCloudNet [seed=/var/lib/cloud/seed/nocloud]');
  });

  test('networkd: the activator restarts networkd (refused without systemd as PID 1: a warning, the boot goes on); the files it rendered are what a real systemd-networkd brings up', {
    timeout: 600_000,
  }, async (t) => {
    if (!canRunNetworkStage(t)) return;
    const lab = twoNicLab(t);
    const root = seededRoot(t, 'system_info:\n  network:\n    renderers: [networkd]\n    activators: [networkd]\n');
    const run = runInitStage(lab, root);
    assert.equal(run.code, 0, run.output + run.log);
    assert.match(
      run.log,
      /Attempting command \['systemctl', 'restart', 'systemd-networkd', 'systemd-resolved'\] for device all/,
    );
    assert.match(
      run.log,
      /WARNING.*Running interface command \['systemctl', 'restart', 'systemd-networkd', 'systemd-resolved'\] failed/,
    );
    assert.ok(existsSync(join(root, 'etc/systemd/network/10-cloud-init-eth1.network')));
    // What the restart would have done on a booted system: systemd-networkd in the machine's namespace reads the files.
    // A read-only /sys tells it there is no udev to wait for, as in a container.
    const script = `mount -t tmpfs tmpfs ${root}/run && mkdir -p ${root}/run/systemd/netif && mount -t proc proc ${root}/proc && mount -t sysfs -o ro sysfs ${root}/sys && exec chroot ${root} /lib/systemd/systemd-networkd`;
    const networkd = spawn(
      'ip',
      ['netns', 'exec', lab.client, 'unshare', '--mount', '--pid', '--fork', '--kill-child', '/bin/sh', '-c', script],
      { stdio: 'ignore' },
    );
    t.after(() => void networkd.kill('SIGKILL'));
    let eth1 = '';
    for (let i = 0; i < 50 && !/10\.198\.0\.5\/24/.test(eth1); i++) {
      await new Promise((r) => setTimeout(r, 200));
      eth1 = addresses(lab, 'eth1');
    }
    assert.match(eth1, /inet 10\.198\.0\.5\/24/, 'systemd-networkd configured eth1 from the rendered .network file');
  });
}
