// init-local's temporary DHCP lease for real: kiln runs in a network namespace of the test's own, busybox udhcpd
// and the mock EC2 metadata service (on 169.254.169.254) run in a second one behind a veth pair. Nothing here
// touches the host's network: both ends of the veth are created inside the namespaces, which teardown deletes.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { sharesHostNetworkNamespace } from '../../../src/net/ephemeral/ephemeral-network';
import { ensureDebianRootfs } from '../../helpers/debian-rootfs';
import { FIXTURES } from '../../helpers/repo';
import { hasCommand, isRoot, need } from '../../helpers/requirements';
import {
  BUSYBOX,
  DEFAULT_DHCP_OPTIONS,
  makeLab,
  playRole,
  roleEnv,
  serveMetadataInLab,
  sh,
  type Lab,
} from '../../helpers/netns-lab';
import { tempDir } from '../../helpers/temp';

// This file also runs as the processes the lab needs (kiln, the mock metadata server): see playRole.
if (!(await playRole())) registerTests();

const EC2_TREE = join(FIXTURES, 'sources/ec2/imdsv2-required/tree');
const MAC = '0a:00:00:00:00:01'; // the NIC the fixture's network/interfaces/macs describes
const OPENSTACK_TREE = join(FIXTURES, 'sources/openstack/versions/tree');
const OPENSTACK_MAC = 'fa:16:3e:00:00:01'; // its network_data.json link
const DIGITALOCEAN_TREE = join(FIXTURES, 'sources/digitalocean/public-only/tree');
const DIGITALOCEAN_MAC = '04:01:2a:0f:2a:01'; // its public interface
const HETZNER_TREE = join(FIXTURES, 'sources/hetzner/happy-path/tree');
const HETZNER_MAC = '96:00:00:08:19:da'; // its network-config's eth0
const ORACLE_TREE = join(FIXTURES, 'sources/oracle/happy-v2/tree');
const ORACLE_MAC = '02:00:17:05:d1:db'; // the primary VNIC of its vnics

/** The lab for this file: the fixture's MAC on eth0, udhcpd with DHCP OPTIONS when WITH DHCP. */
function testLab(t: TestContext, withDhcp: boolean, mac = MAC, dhcpOptions = DEFAULT_DHCP_OPTIONS): Lab {
  return makeLab(t, { mac, dhcp: withDhcp ? dhcpOptions : false });
}

/**
 * The server side of EC2's IPv6 IMDS: fd00:ec2::254 on vs0 and radvd advertising a default route (no prefix),
 * so the client reaches it from its link-local address alone, as an instance in an IPv6 subnet does.
 */
function addIpv6Imds(t: TestContext, lab: Lab): void {
  sh(['ip', '-n', lab.server, 'addr', 'add', 'fd00:ec2::254/128', 'dev', 'vs0', 'nodad']); // usable before the client's end is up
  sh(['ip', 'netns', 'exec', lab.server, 'sysctl', '-qw', 'net.ipv6.conf.all.forwarding=1']);
  const conf = join(lab.dir, 'radvd.conf');
  writeFileSync(
    conf,
    'interface vs0 {\n  AdvSendAdvert on;\n  MinRtrAdvInterval 3;\n  MaxRtrAdvInterval 4;\n  AdvDefaultLifetime 600;\n};\n',
  );
  const radvd = spawn(
    'ip',
    ['netns', 'exec', lab.server, 'radvd', '--nodaemon', '-C', conf, '-p', join(lab.dir, 'radvd.pid'), '-m', 'stderr'],
    { stdio: 'ignore' },
  );
  t.after(() => void radvd.kill('SIGKILL'));
}

/**
 * The mock metadata service (EC2's IMDS by default) on 169.254.169.254:80 (or LISTEN) inside the server namespace;
 * resolves once it listens.
 */
async function serveMetadata(
  t: TestContext,
  lab: Lab,
  kind: 'ec2' | 'openstack' | 'digitalocean' | 'hetzner' | 'oracle' = 'ec2',
  listen = '169.254.169.254:80',
): Promise<ChildProcess> {
  const trees = {
    digitalocean: DIGITALOCEAN_TREE,
    hetzner: HETZNER_TREE,
    openstack: OPENSTACK_TREE,
    oracle: ORACLE_TREE,
  };
  const how =
    kind === 'ec2'
      ? ['--kind', 'ec2', '--dir', EC2_TREE, '--imdsv2', 'required']
      : ['--kind', kind, '--dir', trees[kind]];
  return serveMetadataInLab(t, lab, [...how, '--listen', listen]);
}

/** A sandbox root of busybox (sh, ip, udhcpc), fake DMI and sysfs, a Debian os-release and ifupdown's names for ENI. */
function makeRoot(
  t: TestContext,
  dmi: Record<string, string>,
  extraConfig = '',
  withDhclient = false,
  cloud: { source: string; mac: string } = { source: 'Ec2', mac: MAC },
): string {
  const root = tempDir(t);
  if (withDhclient) {
    // Debian's isc-dhcp-client from the parity rootfs (it needs only libc), with the device nodes it opens.
    const debian = ensureDebianRootfs();
    for (const f of ['sbin/dhclient', 'lib/x86_64-linux-gnu/libc.so.6', 'lib64/ld-linux-x86-64.so.2']) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      cpSync(join(debian, f), join(root, f), { dereference: true });
    }
    mkdirSync(join(root, 'dev'), { recursive: true });
    sh(['mknod', '-m', '666', join(root, 'dev/null'), 'c', '1', '3']);
    sh(['mknod', '-m', '666', join(root, 'dev/urandom'), 'c', '1', '9']);
    mkdirSync(join(root, 'var/lib/dhcp'), { recursive: true });
    // Debian's dhclient.conf: it names and requests option 121 (rfc3442-classless-static-routes).
    mkdirSync(join(root, 'etc/dhcp'), { recursive: true });
    cpSync(join(debian, 'etc/dhcp/dhclient.conf'), join(root, 'etc/dhcp/dhclient.conf'));
  }
  for (const d of [
    'bin',
    'sbin',
    'etc/cloud',
    'run',
    'tmp',
    'var/lib/cloud',
    'var/log',
    'sys/class/dmi/id',
    'sys/class/net/eth0',
    'proc',
  ])
    mkdirSync(join(root, d), { recursive: true });
  cpSync(BUSYBOX, join(root, 'bin/busybox'));
  for (const applet of ['sh', 'ip', 'udhcpc', 'cat', 'true', 'kill']) symlinkSync('busybox', join(root, 'bin', applet));
  for (const tool of ['ifup', 'ifdown', 'ifquery']) {
    writeFileSync(join(root, 'sbin', tool), '#!/bin/sh\nexit 0\n');
    chmodSync(join(root, 'sbin', tool), 0o755);
  }
  mkdirSync(join(root, 'etc/network'), { recursive: true });
  writeFileSync(join(root, 'etc/network/interfaces'), 'source /etc/network/interfaces.d/*\n');
  writeFileSync(
    join(root, 'etc/os-release'),
    'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
  );
  for (const [k, v] of Object.entries(dmi)) writeFileSync(join(root, 'sys/class/dmi/id', k), `${v}\n`);
  writeFileSync(join(root, 'sys/class/net/eth0/address'), `${cloud.mac}\n`);
  writeFileSync(join(root, 'sys/class/net/eth0/carrier'), '1\n');
  writeFileSync(join(root, 'sys/class/net/eth0/operstate'), 'up\n');
  writeFileSync(join(root, 'proc/cmdline'), 'root=/dev/vda1 ro\n');
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg'),
    `datasource_list: [${cloud.source}, None]\ndatasource:\n  ${cloud.source}:\n    metadata_urls: ['http://169.254.169.254']\n    timeout: 2\n    max_wait: 10\n${extraConfig}cloud_init_modules: []\nsystem_info:\n  network:\n    renderers: [eni]\n`,
  );
  return root;
}

interface KilnRun {
  code: number | null;
  output: string;
  log: string;
}

/**
 * `cloud-init init --local --root ROOT` (or the init stage, with LOCAL false) inside the client namespace (LAB
 * undefined: where the test runs).
 */
function initLocal(lab: Lab | undefined, root: string, local = true): KilnRun {
  const self = [process.execPath, process.argv[1] as string];
  const [cmd, ...args] = lab ? ['ip', 'netns', 'exec', lab.client, ...self] : self;
  const r = spawnSync(cmd as string, args, {
    env: roleEnv('kiln', ['init', ...(local ? ['--local'] : []), '--root', root]),
    encoding: 'utf8',
    timeout: 120_000,
  });
  const logFile = join(root, 'var/log/cloud-init.log');
  return {
    code: r.status,
    output: `${r.stdout}\n${r.stderr}`,
    log: existsSync(logFile) ? readFileSync(logFile, 'utf8') : '',
  };
}

function clientAddresses(lab: Lab): string {
  return sh(['ip', '-n', lab.client, '-4', '-o', 'addr', 'show', 'dev', 'eth0']);
}

function canRun(t: TestContext): boolean {
  return need(
    t,
    isRoot() && hasCommand('ip') && existsSync(BUSYBOX),
    'needs root, iproute2 and busybox-static (udhcpd, udhcpc) to build network namespaces',
  );
}

function registerTests(): void {
  test('init-local on AWS DMI: Ec2 is crawled inside a DHCP lease, the lease is released, the IMDS network is rendered', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true);
    const imds = await serveMetadata(t, lab);
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2', product_uuid: 'ec2e1916-9099-7caf-fd21-012345abcdef' });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24 router 10\.199\.0\.1/);
    assert.match(run.log, /Found datasource Ec2/);
    // Released: no address left on the NIC, and its link is down again as it was before.
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    assert.doesNotMatch(sh(['ip', '-n', lab.client, '-o', 'link', 'show', 'dev', 'eth0']), /<[^>]*\bUP\b/);
    const status = JSON.parse(readFileSync(join(root, 'run/cloud-init/status.json'), 'utf8')) as {
      v1: { datasource: string | null; 'init-local': { finished: number | null } };
    };
    assert.match(String(status.v1.datasource), /Ec2/i);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: { cloud_name: string; instance_id: string };
    };
    assert.equal(data.v1.cloud_name, 'aws');
    assert.equal(data.v1.instance_id, 'i-0123456789abcdef0');
    // The network config from IMDS (the NIC found by its MAC), rendered before networking starts.
    const eni = readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.match(run.log, /network config from ds/);
    assert.match(eni, /iface eth0 inet dhcp/);
    assert.match(eni, /iface eth0 inet6 dhcp/); // the IMDS NIC has ipv6s; the fallback config would not say so
    assert.match(readFileSync(join(root, 'etc/udev/rules.d/70-persistent-net.rules'), 'utf8'), new RegExp(MAC));
    assert.doesNotMatch(readdirOrEmpty(join(root, 'run')).join(' '), /kiln-ephemeral-dhcp/);
    // The init stage reuses the instance init-local found: with the IMDS gone, it still knows it.
    imds.kill('SIGKILL');
    const init = initLocal(lab, root, false);
    assert.notEqual(init.code, 1, init.output + init.log);
    assert.equal(init.log.match(/Found datasource Ec2/g)?.length, 1, init.log);
    assert.equal(init.log.match(/bringing up a temporary DHCP lease/g)?.length, 1);
    assert.equal(
      (
        JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
          v1: { instance_id: string };
        }
      ).v1.instance_id,
      'i-0123456789abcdef0',
    );
  });

  test("with Debian's dhclient in the target: one lease, applied by kiln, no resolv.conf written, released", async (t) => {
    if (!canRun(t)) return;
    if (!need(t, process.arch === 'x64', 'the dhclient copied from the parity rootfs is x86-64')) return;
    const lab = testLab(t, true);
    await serveMetadata(t, lab);
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2' }, '', true);
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /with dhclient/);
    assert.match(run.log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24 router 10\.199\.0\.1/);
    assert.match(run.log, /Found datasource Ec2/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    assert.equal(existsSync(join(root, 'etc/resolv.conf')), false);
    assert.doesNotMatch(readdirOrEmpty(join(root, 'run')).join(' '), /kiln-ephemeral-dhcp/);
    // No dhclient left running in the client namespace.
    assert.equal(spawnSync('ip', ['netns', 'pids', lab.client], { encoding: 'utf8' }).stdout.trim(), '');
  });

  for (const client of ['udhcpc', 'dhclient'] as const) {
    test(`DHCP option 121 (${client}): its routes are installed and the router ignored, then removed with the lease`, async (t) => {
      if (!canRun(t)) return;
      if (
        client === 'dhclient' &&
        !need(t, process.arch === 'x64', 'the dhclient copied from the parity rootfs is x86-64')
      )
        return;
      // The router option names a host that does not exist: only the classless route reaches the IMDS.
      const lab = testLab(t, true, MAC, [
        'opt router 10.199.0.99',
        'opt subnet 255.255.255.0',
        'opt staticroutes 169.254.169.254/32 10.199.0.1 10.250.0.0/16 0.0.0.0',
      ]);
      await serveMetadata(t, lab);
      const root = makeRoot(t, { sys_vendor: 'Amazon EC2' }, '', client === 'dhclient');
      const run = initLocal(lab, root);
      assert.notEqual(run.code, 1, run.output + run.log);
      assert.match(
        run.log,
        /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24 routes 169\.254\.169\.254\/32 via 10\.199\.0\.1, 10\.250\.0\.0\/16 via 0\.0\.0\.0 \(option 121; routers ignored\)/,
      );
      assert.match(run.log, /Found datasource Ec2/);
      assert.doesNotMatch(clientAddresses(lab), /inet /);
      assert.equal(sh(['ip', '-n', lab.client, '-4', 'route', 'show']).trim(), '', 'no route left behind');
    });
  }

  test('a router outside the leased subnet (a /32 lease) is reached through an on-link host route first', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true, MAC, ['opt router 10.199.0.1', 'opt subnet 255.255.255.255']);
    await serveMetadata(t, lab);
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2' });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/32 router 10\.199\.0\.1/);
    assert.match(run.log, /Found datasource Ec2/);
    assert.equal(sh(['ip', '-n', lab.client, '-4', 'route', 'show']).trim(), '', 'no route left behind');
  });

  test('init-local on OpenStack DMI: OpenStack is crawled inside a lease and its network_data.json rendered', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true, OPENSTACK_MAC);
    await serveMetadata(t, lab, 'openstack');
    const root = makeRoot(t, { product_name: 'OpenStack Nova', sys_vendor: 'OpenStack Foundation' }, '', false, {
      source: 'OpenStack',
      mac: OPENSTACK_MAC,
    });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24/);
    assert.match(run.log, /Found datasource OpenStack/);
    assert.match(run.log, /network config from ds/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: { cloud_name: string; instance_id: string };
    };
    assert.deepEqual([data.v1.cloud_name, data.v1.instance_id], ['openstack', 'uuid-2017-02-22']);
    assert.match(readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8'), /iface eth0 inet dhcp/);
    assert.match(
      readFileSync(join(root, 'etc/udev/rules.d/70-persistent-net.rules'), 'utf8'),
      new RegExp(OPENSTACK_MAC),
    );
  });

  test('init-local on DigitalOcean DMI: a link-local address, no DHCP, the droplet metadata read, the address removed, its network rendered', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, false, DIGITALOCEAN_MAC);
    // The metadata service answers link-local clients on the link, as DigitalOcean's does.
    sh(['ip', '-n', lab.server, 'route', 'add', '169.254.0.0/16', 'dev', 'vs0']);
    await serveMetadata(t, lab, 'digitalocean');
    const root = makeRoot(
      t,
      { sys_vendor: 'DigitalOcean', product_name: 'Droplet', product_serial: '2756295' },
      '',
      false,
      { source: 'DigitalOcean', mac: DIGITALOCEAN_MAC },
    );
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary link-local address on eth0: 169\.254\.(\d+)\.(\d+)\/16/);
    assert.doesNotMatch(run.log, /DHCP/);
    assert.match(run.log, /Found datasource DigitalOcean/);
    // Removed again, and the link is down as it was before.
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    assert.doesNotMatch(sh(['ip', '-n', lab.client, '-o', 'link', 'show', 'dev', 'eth0']), /<[^>]*\bUP\b/);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: Record<string, unknown>;
    };
    assert.deepEqual(
      [data.v1.cloud_name, data.v1.instance_id, data.v1.local_hostname, data.v1.availability_zone],
      ['digitalocean', '2756295', 'public-only', 'nyc3'],
    );
    // The droplet's public interface, static as the metadata says (the floating IP is not an address of it).
    const eni = readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.match(run.log, /network config from ds/);
    assert.match(eni, /iface eth0 inet static\n\s+address 104\.131\.20\.105\/18\n\s+gateway 104\.131\.0\.1/);
    assert.match(eni, /address 10\.17\.0\.5\/16/);
    assert.match(eni, /iface eth0 inet6 static\n\s+address 2604:A880:0800:0010:0000:0000:017D:2001\/64/i);
    assert.match(eni, /dns-nameservers .*8\.8\.8\.8/);
    assert.doesNotMatch(eni, /138\.197\.59\.92/);
  });

  test('init-local on Hetzner DMI: a DHCP lease, the metadata and user data read, the id checked against the serial, its network rendered', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true, HETZNER_MAC);
    await serveMetadata(t, lab, 'hetzner');
    const root = makeRoot(t, { sys_vendor: 'Hetzner', product_name: 'vServer', product_serial: '42' }, '', false, {
      source: 'Hetzner',
      mac: HETZNER_MAC,
    });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24 router 10\.199\.0\.1/);
    assert.match(run.log, /Found datasource Hetzner/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: Record<string, unknown>;
    };
    assert.deepEqual(
      [data.v1.cloud_name, data.v1.instance_id, data.v1.local_hostname, data.v1.region],
      ['hetzner', '42', 'my-server', 'eu-central'],
    );
    const eni = readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.match(eni, /iface eth0 inet dhcp/);
    assert.match(eni, /iface eth0 inet6 static\n\s+address 2a01:4f8:beef:beef::1\/64/);
    // The private network's NIC is not on this machine: left out, not written without a name.
    assert.doesNotMatch(eni, /86:00:00:aa:5d:f8|None/);
  });

  test('DigitalOcean with no metadata service on the link: a bounded wait, a warning, the address removed', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, false, DIGITALOCEAN_MAC);
    const root = makeRoot(t, { sys_vendor: 'DigitalOcean', product_serial: '2756295' }, '    retries: 2\n', false, {
      source: 'DigitalOcean',
      mac: DIGITALOCEAN_MAC,
    });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary link-local address on eth0/);
    assert.match(run.log, /WARNING.*datasource DigitalOcean failed/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
  });

  test('init-local on the Oracle asset tag: IMDS v2 read inside a lease, the primary VNIC rendered (DHCP, MTU 9000)', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true, ORACLE_MAC);
    // The mock answers /opc/v2/ only with the Bearer header, so the v2 subplatform below proves it was sent.
    await serveMetadata(t, lab, 'oracle');
    const root = makeRoot(t, { chassis_asset_tag: 'OracleCloud.com', sys_vendor: 'QEMU' }, '', false, {
      source: 'Oracle',
      mac: ORACLE_MAC,
    });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24 router 10\.199\.0\.1/);
    assert.match(run.log, /Found datasource Oracle \[metadata \(http:\/\/169\.254\.169\.254\/opc\/v2\/\)\]/);
    assert.match(run.log, /network config from ds/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: Record<string, unknown>;
      ds: Record<string, unknown>;
    };
    assert.deepEqual(
      [data.v1.cloud_name, data.v1.platform, data.v1.instance_id, data.v1.availability_zone, data.v1.local_hostname],
      ['oracle', 'oracle', 'ocid1.instance.oc1.iad.anuwcljtkiln0000', 'iad-ad-1', 'kiln-oci-test'],
    );
    assert.equal(data.ds.canonicalRegionName, 'us-ashburn-1');
    const eni = readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.match(eni, /iface eth0 inet dhcp/);
    assert.match(eni, /mtu 9000/);
  });

  test("under --root in the host's network namespace no lease is even tried: the host's interfaces are never touched", async (t) => {
    if (!canRun(t)) return;
    assert.equal(await sharesHostNetworkNamespace(), true);
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2' });
    const run = initLocal(undefined, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /Ec2 left to the init stage: .*host's network namespace/);
    assert.doesNotMatch(run.log, /Running command/);
    assert.doesNotMatch(run.log, /WARNING/);
  });

  test('init-local without local evidence (QEMU DMI) takes no lease and leaves Ec2 to the init stage', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true);
    const root = makeRoot(t, { sys_vendor: 'QEMU', product_name: 'Standard PC (Q35 + ICH9, 2009)' });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.doesNotMatch(run.log, /DHCP lease/);
    assert.match(run.log, /Ec2: no local evidence/);
    assert.doesNotMatch(run.log, /Found datasource Ec2/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    assert.equal(existsSync(join(root, 'run/cloud-init/instance-data.json')), false);
  });

  test('local_dhcp: false turns the lease off even on AWS DMI', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, true);
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2' }, '    local_dhcp: false\n');
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.doesNotMatch(run.log, /DHCP lease/);
    assert.match(run.log, /local_dhcp is off/);
  });

  test('IPv6 IMDS only (no DHCP server): Ec2Local goes on with link-local IPv6 and reads fd00:ec2::254', async (t) => {
    if (!canRun(t)) return;
    if (!need(t, hasCommand('radvd'), 'needs radvd to advertise the IPv6 route to fd00:ec2::254')) return;
    const lab = testLab(t, false);
    addIpv6Imds(t, lab);
    await serveMetadata(t, lab, 'ec2', '[fd00:ec2::254]:80');
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2', product_uuid: 'ec2e1916-9099-7caf-fd21-012345abcdef' });
    const cfg = join(root, 'etc/cloud/cloud.cfg');
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8')
        .replace(
          "metadata_urls: ['http://169.254.169.254']",
          "metadata_urls: ['http://169.254.169.254', 'http://[fd00:ec2::254]']",
        )
        .replace('max_wait: 10', 'max_wait: 20'),
    );
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /temporary network on eth0: no DHCPv4 lease, using link-local ipv6 \(fe80:/);
    assert.match(run.log, /Ec2: using metadata source 'http:\/\/\[fd00:ec2::254\]'/);
    assert.match(run.log, /Found datasource Ec2/);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: { instance_id: string };
    };
    assert.equal(data.v1.instance_id, 'i-0123456789abcdef0');
    assert.match(readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8'), /iface eth0 inet6 dhcp/);
    // No IPv4 address was ever taken; the link stays up with its link-local address, as cloud-init leaves it.
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    assert.match(
      sh(['ip', '-n', lab.client, '-6', '-o', 'addr', 'show', 'dev', 'eth0', 'scope', 'link']),
      /inet6 fe80:/,
    );
  });

  test('no DHCP answer and no IPv6 route: a bounded wait, a clear warning, init-local goes on, no address left', async (t) => {
    if (!canRun(t)) return;
    const lab = testLab(t, false);
    const root = makeRoot(t, { sys_vendor: 'Amazon EC2' });
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    // As Ec2Local: without a DHCPv4 lease the crawl still tries IPv6 link-local (here nothing routes), up to max_wait.
    assert.match(run.log, /WARNING.*datasource Ec2 failed: .*using link-local ipv6 on eth0: no DHCPv4 lease/);
    assert.doesNotMatch(clientAddresses(lab), /inet /);
    const status = JSON.parse(readFileSync(join(root, 'run/cloud-init/status.json'), 'utf8')) as {
      v1: { 'init-local': { finished: number | null } };
    };
    assert.notEqual(status.v1['init-local'].finished, null);
  });
}

function readdirOrEmpty(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
