// `devel hotplug-hook handle` for real: an OpenStack instance's cache in a copy of the cached Debian rootfs
// (ifupdown), kiln in a network namespace of the test's own whose eth0 reaches a mock OpenStack metadata service
// in a second namespace; a veth eth1 is added, the metadata now names it, and the hook renders and brings it up.
// Nothing touches the host's network: every link is made inside the namespaces, which teardown deletes.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { serializeInstance } from '../../src/runner/instance-cache';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { makeLab, playRole, roleEnv, serveMetadataInLab, sh, type Lab } from '../helpers/netns-lab';
import { REPO } from '../helpers/repo';
import { tempDir } from '../helpers/temp';

// This file also runs as kiln and as the metadata server inside the lab's namespaces: see playRole.
if (!(await playRole())) registerTests();

const MAC0 = 'fa:16:3e:5c:00:01';
const MAC1 = 'fa:16:3e:5c:00:02';
const UUID = '83679162-1378-4288-a2d4-70e13ec132aa';

function link(id: string, mac: string) {
  return { id, type: 'ovs', ethernet_mac_address: mac, mtu: 1500, vif_id: `${id}-vif` };
}
function network(id: string, linkId: string, address: string) {
  return {
    id,
    link: linkId,
    type: 'ipv4',
    ip_address: address,
    netmask: '255.255.255.0',
    routes: [],
    network_id: `${id}-net`,
    services: [],
  };
}
/** network_data.json before the hotplug (eth0 only) and after it (eth1 too). */
const BEFORE = { links: [link('tap0', MAC0)], networks: [network('network0', 'tap0', '10.199.0.5')], services: [] };
const AFTER = {
  links: [link('tap0', MAC0), link('tap1', MAC1)],
  networks: [network('network0', 'tap0', '10.199.0.5'), network('network1', 'tap1', '10.198.0.5')],
  services: [],
};

/** The OpenStack tree of the parity case, with network_data.json as the cloud now says it (eth1 attached). */
function metadataTree(t: TestContext): string {
  const dir = tempDir(t);
  cpSync(join(REPO, 'test/parity/net-cases/02-openstack-static/tree'), dir, { recursive: true });
  writeFileSync(join(dir, 'openstack/2018-08-27/network_data.json'), JSON.stringify(AFTER));
  return dir;
}

function serve(t: TestContext, lab: Lab, tree: string): Promise<ChildProcess> {
  return serveMetadataInLab(t, lab, ['--kind', 'openstack', '--dir', tree, '--listen', '169.254.169.254:80']);
}

/** The Debian rootfs as an OpenStack boot left it: eth0's config cached, hotplug enabled in the user's cloud-config. */
function bootedRoot(t: TestContext): string {
  const root = copyRootfs(tempDir(t, 'kiln-hotplug-'));
  const dir = join(root, 'var/lib/cloud/instances', UUID);
  mkdirSync(dir, { recursive: true });
  const data = {
    instanceId: UUID,
    cloudName: 'openstack',
    platform: 'openstack',
    subplatform: 'metadata (http://169.254.169.254)',
    publicKeys: [],
    metadata: {},
    networkConfig: { format: 'openstack' as const, config: BEFORE },
  };
  const userData = new TextEncoder().encode('#cloud-config\nhostname: booted\n');
  writeFileSync(join(dir, 'user-data.txt'), userData);
  writeFileSync(join(dir, 'obj.json'), serializeInstance('OpenStack', { ...data, userData }, 'local'));
  writeFileSync(
    join(dir, 'cloud-config.txt'),
    '#cloud-config\nupdates:\n  network:\n    when: [boot-new-instance, hotplug]\n',
  );
  symlinkSync(`/var/lib/cloud/instances/${UUID}`, join(root, 'var/lib/cloud/instance'));
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/99-hotplug-test.cfg'),
    "datasource_list: [OpenStack]\ndatasource:\n  OpenStack:\n    metadata_urls: ['http://169.254.169.254']\n    max_wait: 20\n    timeout: 5\n",
  );
  // What the boot rendered for eth0 (the hook renders the whole config again).
  mkdirSync(join(root, 'etc/network/interfaces.d'), { recursive: true });
  return root;
}

/** The hook in the machine's namespace, with that namespace's sysfs at ROOT/sys (as on the machine itself). */
function hook(
  lab: Lab,
  root: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; output: string; log: string } {
  const argv = ['--root', root, 'devel', 'hotplug-hook', '-s', 'net', ...args];
  const script = `mount -t sysfs sysfs '${root}/sys' && exec '${process.execPath}' '${process.argv[1] as string}'`;
  const r = spawnSync('ip', ['netns', 'exec', lab.client, 'unshare', '--mount', '/bin/sh', '-c', script], {
    env: { ...roleEnv('kiln', argv), ...env },
    encoding: 'utf8',
    timeout: 300_000,
  });
  const logFile = join(root, 'var/log/cloud-init.log');
  return {
    code: r.status,
    output: `${r.stdout}\n${r.stderr}`,
    log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '',
  };
}

function registerTests(): void {
  test('hotplug-hook handle: a NIC attached while the OpenStack metadata names it is rendered, brought up with ifup and cached; on remove rendered without it', {
    timeout: 600_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
        'needs root, iproute2, unshare, chroot and debootstrap (the cached Debian rootfs) for network namespaces',
      )
    )
      return;
    const lab = makeLab(t, { mac: MAC0, dhcp: false });
    // eth0 as the boot left it: up, with its address and a way to the metadata service.
    for (const cmd of [
      ['addr', 'add', '10.199.0.5/24', 'dev', 'eth0'],
      ['link', 'set', 'eth0', 'up'],
      ['route', 'add', '169.254.169.254/32', 'via', '10.199.0.1'],
    ])
      sh(['ip', '-n', lab.client, ...cmd]);
    const tree = metadataTree(t);
    await serve(t, lab, tree);
    const root = bootedRoot(t);
    // The hotplug: a second NIC appears (its other end in the cloud's namespace).
    sh([
      'ip',
      '-n',
      lab.client,
      'link',
      'add',
      'eth1',
      'address',
      MAC1,
      'type',
      'veth',
      'peer',
      'name',
      'vs1',
      'netns',
      lab.server,
    ]);
    sh(['ip', '-n', lab.server, 'addr', 'add', '10.198.0.1/24', 'dev', 'vs1']);
    sh(['ip', '-n', lab.server, 'link', 'set', 'vs1', 'up']);
    assert.equal(hook(lab, root, ['query']).output.trim(), 'enabled');
    const run = hook(lab, root, ['handle', '-d', '/devices/virtual/net/eth1', '-u', 'add']);
    assert.equal(run.code, 0, run.output + run.log);
    const eni = readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.match(eni, /iface eth1 inet static\n\s+address 10\.198\.0\.5\/24/);
    assert.match(eni, /iface eth0 inet static\n\s+address 10\.199\.0\.5\/24/);
    assert.match(run.log, /Attempting command \['ifup', 'eth1'\] for device eth1/);
    assert.match(sh(['ip', '-n', lab.client, '-o', 'addr', 'show', 'dev', 'eth1']), /inet 10\.198\.0\.5\/24/);
    sh(['ip', 'netns', 'exec', lab.client, '/usr/bin/busybox', 'ping', '-c', '1', '-W', '2', '10.198.0.1']);
    const cached = JSON.parse(readFileSync(join(root, 'var/lib/cloud/instances', UUID, 'obj.json'), 'utf8')) as {
      data: { networkConfig: { config: unknown } };
    };
    assert.deepEqual(cached.data.networkConfig.config, AFTER);
    // 25.1's get_data persists the refreshed instance data at once: instance-data.json and cloud-id.
    const doc = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: { instance_id: string };
    };
    assert.equal(doc.v1.instance_id, UUID);
    assert.equal(readlinkSync(join(root, 'run/cloud-init/cloud-id')), '/run/cloud-init/cloud-id-openstack');
    assert.equal(readFileSync(join(root, 'run/cloud-init/cloud-id-openstack'), 'utf8'), 'openstack\n');

    // The NIC is detached in the cloud: the metadata no longer names it; remove renders without it and runs ifdown.
    writeFileSync(join(tree, 'openstack/2018-08-27/network_data.json'), JSON.stringify(BEFORE));
    const gone = hook(lab, root, ['handle', '-d', '/devices/virtual/net/eth1', '-u', 'remove']);
    assert.equal(gone.code, 0, gone.output + gone.log);
    assert.doesNotMatch(readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8'), /eth1/);
    assert.match(gone.log, /Attempting command \['ifdown', 'eth1'\] for device eth1/);
    // The config no longer has eth1, so ifdown ignores it (a warning, as under cloud-init 22.4, which runs the same
    // commands in the same order); on a real detach the device is gone already.
    assert.match(
      gone.log,
      /WARNING.*\['ifdown', 'eth1'\] resulted in stderr output: ifdown: ignoring unknown interface eth1/,
    );
    const after = JSON.parse(readFileSync(join(root, 'var/lib/cloud/instances', UUID, 'obj.json'), 'utf8')) as {
      data: { networkConfig: { config: unknown } };
    };
    assert.deepEqual(after.data.networkConfig.config, BEFORE);
  });

  test('hotplug-hook handle add: a NIC the metadata does not name fails after the attempts, naming its MAC', {
    timeout: 600_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
        'needs root, iproute2, unshare, chroot and debootstrap (the cached Debian rootfs) for network namespaces',
      )
    )
      return;
    const lab = makeLab(t, { mac: MAC0, dhcp: false });
    for (const cmd of [
      ['addr', 'add', '10.199.0.5/24', 'dev', 'eth0'],
      ['link', 'set', 'eth0', 'up'],
      ['route', 'add', '169.254.169.254/32', 'via', '10.199.0.1'],
    ])
      sh(['ip', '-n', lab.client, ...cmd]);
    const tree = metadataTree(t);
    writeFileSync(join(tree, 'openstack/2018-08-27/network_data.json'), JSON.stringify(BEFORE));
    await serve(t, lab, tree);
    const root = bootedRoot(t);
    sh([
      'ip',
      '-n',
      lab.client,
      'link',
      'add',
      'eth1',
      'address',
      MAC1,
      'type',
      'veth',
      'peer',
      'name',
      'vs1',
      'netns',
      lab.server,
    ]);
    // As cloud-init-hotplugd passes them (what hook-hotplug wrote to the FIFO).
    const run = hook(lab, root, ['handle', '--devpath=/devices/virtual/net/eth1', '--udevaction=add'], {
      KILN_HOTPLUG_WAITS: '0,0',
    });
    assert.notEqual(run.code, 0);
    assert.match(run.output, new RegExp(`Failed to detect ${MAC1} in updated metadata`));
    assert.doesNotMatch(run.output, /    at /, 'no stack trace');
    assert.equal((run.log.match(/Refreshing metadata/g) ?? []).length, 2, 'one crawl per attempt');
  });
}
