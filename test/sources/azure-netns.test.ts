// Azure in init-local for real: kiln in a network namespace of the test's own takes a DHCP lease (busybox udhcpd in a
// second namespace), reads IMDS on 169.254.169.254 and reports ready to the wireserver on 168.63.129.16 (both the
// mock), then renders IMDS's network before networking starts. Both veth ends are made inside the namespaces; the host
// is untouched.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { copyRootfs, ensureDebianRootfs } from '../helpers/debian-rootfs';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { PARITY_SUITE } from '../parity/run-case';
import { notAContainer } from '../parity/sandbox-stages';
import {
  BUSYBOX,
  DEFAULT_DHCP_OPTIONS,
  makeLab,
  playRole,
  roleEnv,
  serveMetadataInLab,
  serveDhcp,
  sh,
  type Lab,
} from '../helpers/netns-lab';
import { tempDir } from '../helpers/temp';

// This file also runs as the processes the lab needs (kiln, the mock metadata server): see playRole.
if (!(await playRole())) registerTests();

const HAPPY = join(FIXTURES, 'sources/azure/happy-path');
/** eth0's MAC as IMDS's first interface names it (000D3A047598). */
const MAC = '00:0d:3a:04:75:98';
const TAG = '7783-7084-3265-9085-8269-3286-77';

/**
 * What Azure's DHCP gives the primary NIC: besides the defaults, option 121's routes to IMDS and the wireserver,
 * by which cloud-init 25.1 tells the primary NIC (_check_if_primary) and so does kiln.
 */
const AZURE_DHCP_OPTIONS = [
  ...DEFAULT_DHCP_OPTIONS,
  'opt staticroutes 169.254.169.254/32 10.199.0.1 168.63.129.16/32 10.199.0.1',
];

/**
 * The lab for this file: IMDS's first NIC on eth0, the wireserver's address beside IMDS's, udhcpd with Azure's options
 * and EXTRA ones.
 */
function testLab(t: TestContext, extraDhcp: string[] = []): Lab {
  return makeLab(t, {
    mac: MAC,
    dhcp: [...AZURE_DHCP_OPTIONS, ...extraDhcp],
    serverAddresses: ['169.254.169.254/32', '168.63.129.16/32'],
  });
}

/**
 * The azure mock listening on ADDRESS:80 in the server namespace; its stdout is kept so the test can read what it
 * printed.
 */
async function serveAzure(
  t: TestContext,
  lab: Lab,
  address: string,
  imds = join(HAPPY, 'imds'),
): Promise<ChildProcess> {
  return serveMetadataInLab(t, lab, ['--kind', 'azure', '--dir', imds, '--listen', `${address}:80`], address);
}

/**
 * A sandbox root of busybox (sh, ip, udhcpc), Azure's DMI, a seeded ovf-env.xml (OVF, or the happy path's), Debian 13's
 * os-release (the oracle's) and ifupdown's names for ENI.
 */
function makeRoot(t: TestContext, withDhclient = false, ovf?: string): string {
  const root = tempDir(t);
  if (withDhclient) {
    // Debian's isc-dhcp-client from the parity rootfs (it needs only libc), with the device nodes it opens.
    const debian = ensureDebianRootfs(PARITY_SUITE);
    for (const f of ['sbin/dhclient', 'lib/x86_64-linux-gnu/libc.so.6', 'lib64/ld-linux-x86-64.so.2']) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      cpSync(join(debian, f), join(root, f), { dereference: true });
    }
    mkdirSync(join(root, 'dev'), { recursive: true });
    sh(['mknod', '-m', '666', join(root, 'dev/null'), 'c', '1', '3']);
    sh(['mknod', '-m', '666', join(root, 'dev/urandom'), 'c', '1', '9']);
    mkdirSync(join(root, 'var/lib/dhcp'), { recursive: true });
  }
  for (const d of [
    'bin',
    'sbin',
    'etc/cloud',
    'run',
    'tmp',
    'var/lib/cloud/seed/azure',
    'var/log',
    'sys/class/dmi/id',
    'sys/class/net/eth0',
    'proc',
    'etc/network',
  ])
    mkdirSync(join(root, d), { recursive: true });
  cpSync(BUSYBOX, join(root, 'bin/busybox'));
  for (const applet of ['sh', 'ip', 'udhcpc', 'cat', 'true', 'kill']) symlinkSync('busybox', join(root, 'bin', applet));
  for (const tool of ['ifup', 'ifdown', 'ifquery']) {
    writeFileSync(join(root, 'sbin', tool), '#!/bin/sh\nexit 0\n');
    chmodSync(join(root, 'sbin', tool), 0o755);
  }
  writeFileSync(join(root, 'etc/network/interfaces'), 'source /etc/network/interfaces.d/*\n');
  writeFileSync(
    join(root, 'etc/os-release'),
    'ID=debian\nVERSION_ID="13"\nPRETTY_NAME="Debian GNU/Linux 13 (trixie)"\n',
  );
  for (const [k, v] of Object.entries({
    chassis_asset_tag: TAG,
    sys_vendor: 'Microsoft Corporation',
    product_name: 'Virtual Machine',
    product_uuid: '9963F513-52BD-5041-9748-7190AAE1FF21',
  }))
    writeFileSync(join(root, 'sys/class/dmi/id', k), `${v}\n`);
  writeFileSync(join(root, 'sys/class/net/eth0/address'), `${MAC}\n`);
  writeFileSync(join(root, 'sys/class/net/eth0/carrier'), '1\n');
  writeFileSync(join(root, 'sys/class/net/eth0/operstate'), 'up\n');
  // The second NIC IMDS names (down, no carrier): a real VM has it, and the stage waits for every MAC the network
  // config names before it renders (cloud-init's wait_for_physdevs).
  mkdirSync(join(root, 'sys/class/net/eth1'), { recursive: true });
  writeFileSync(join(root, 'sys/class/net/eth1/address'), '00:0d:3a:04:75:9a\n');
  writeFileSync(join(root, 'sys/class/net/eth1/carrier'), '0\n');
  writeFileSync(join(root, 'sys/class/net/eth1/operstate'), 'down\n');
  writeFileSync(join(root, 'proc/cmdline'), 'root=/dev/sda1 ro\n');
  writeFileSync(
    join(root, 'var/lib/cloud/seed/azure/ovf-env.xml'),
    ovf ?? readFileSync(join(HAPPY, 'media/ovf-env.xml')),
  );
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg'),
    'datasource_list: [Azure, None]\ndatasource:\n  Azure:\n    timeout: 2\n    max_wait: 10\n    report_ready_retry_sleep: 0.5\n    report_ready_max_wait: 10\ncloud_init_modules: []\nsystem_info:\n  network:\n    renderers: [eni]\n',
  );
  return root;
}

/** `cloud-init init --local --root ROOT` in the client namespace; the log it wrote. */
function initLocal(lab: Lab, root: string): { code: number | null; output: string; log: string } {
  const r = spawnSync('ip', ['netns', 'exec', lab.client, process.execPath, process.argv[1] as string], {
    env: roleEnv('kiln', ['init', '--local', '--root', root]),
    encoding: 'utf8',
    timeout: 120_000,
  });
  const log = existsSync(join(root, 'var/log/cloud-init.log'))
    ? readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8')
    : '';
  return { code: r.status, output: `${r.stdout}\n${r.stderr}`, log };
}

/**
 * The host's side of a Savable VM's claim: eth0 (the pool NIC) deleted, a new eth0 with the same MAC plugged into
 * the cloud's namespace (vs1, with the lab's addresses and a udhcpd of its own), and the customer's ovf-env.xml
 * given to the mock in MOCK.
 */
function swapNic(t: TestContext, lab: Lab, mock: string): void {
  sh(['ip', '-n', lab.client, 'link', 'del', 'eth0']);
  sh([
    'ip',
    '-n',
    lab.client,
    'link',
    'add',
    'eth0',
    'address',
    MAC,
    'type',
    'veth',
    'peer',
    'name',
    'vs1',
    'netns',
    lab.server,
  ]);
  for (const a of ['10.199.0.1/24', '169.254.169.254/32', '168.63.129.16/32'])
    sh(['ip', '-n', lab.server, 'addr', 'add', a, 'dev', 'vs1']);
  sh(['ip', '-n', lab.server, 'link', 'set', 'vs1', 'up']);
  const dhcp = serveDhcp(lab, 'vs1', AZURE_DHCP_OPTIONS);
  t.after(() => void dhcp.kill('SIGKILL'));
  copyFileSync(join(FIXTURES, 'sources/azure/pps/reprovisiondata.xml'), join(mock, 'reprovisiondata.xml'));
}

/** Resolves once CHECK holds (looked at every 100 ms), rejects after MS with WHAT. */
async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Debian 13's cloud-init 25.1 `init --local` in a lab of its own against the azure mock serving MOCK: fake DMI, the
 * happy path's ovf-env.xml seeded (or OVF), PREPARE's files, DURING run beside it; asserts it ran and reported
 * ready; its root and log. 25.1 takes its lease with dhcpcd (Debian keeps the default dhcp_client_priority,
 * dhcpcd before dhclient, and the rootfs has both).
 */
async function cloudInitLocal(
  t: TestContext,
  mock: string,
  opts: { ovf?: string; prepare?: (root: string) => void; during?: (root: string, lab: Lab) => Promise<void> } = {},
): Promise<{ root: string; log: string }> {
  const dmi = {
    chassis_asset_tag: TAG,
    sys_vendor: 'Microsoft Corporation',
    product_name: 'Virtual Machine',
    product_uuid: '9963F513-52BD-5041-9748-7190AAE1FF21',
  };
  const ciLab = testLab(t);
  await serveAzure(t, ciLab, '169.254.169.254', mock);
  await serveAzure(t, ciLab, '168.63.129.16', mock);
  const ci = copyRootfs(tempDir(t, 'kiln-azure-parity-'), { suite: PARITY_SUITE });
  // An Azure VM is a VM: trixie's systemd-detect-virt would call the PID namespace a container, and 25.1 then reads
  // no DMI (no chassis asset tag, so no Azure).
  notAContainer(ci);
  mkdirSync(join(ci, 'kiln-fake-dmi'), { recursive: true });
  for (const [k, v] of Object.entries(dmi)) writeFileSync(join(ci, 'kiln-fake-dmi', k), `${v}\n`);
  mkdirSync(join(ci, 'var/lib/cloud/seed/azure'), { recursive: true });
  writeFileSync(
    join(ci, 'var/lib/cloud/seed/azure/ovf-env.xml'),
    opts.ovf ?? readFileSync(join(HAPPY, 'media/ovf-env.xml')),
  );
  writeFileSync(
    join(ci, 'etc/cloud/cloud.cfg.d/90-kiln-parity.cfg'),
    'datasource_list: [Azure]\nsystem_info:\n  network:\n    renderers: [eni]\n',
  );
  opts.prepare?.(ci);
  // /sys is a tmpfs holding the fake DMI, with the namespace's own net devices bound in from a sysfs mounted aside.
  const inner = [
    'mount -t proc proc /proc',
    'mkdir -p /kiln-sysfs && mount -t sysfs sysfs /kiln-sysfs',
    'mount -t tmpfs tmpfs /sys',
    'mkdir -p /sys/class/dmi /sys/class/net /sys/devices',
    'mount --bind /kiln-sysfs/devices /sys/devices',
    'mount --bind /kiln-sysfs/class/net /sys/class/net',
    'cp -r /kiln-fake-dmi /sys/class/dmi/id',
    // cloud-init's ephemeral DHCP wants /var/tmp to be a mount it can see (to check noexec), as on a real system.
    'mount -t tmpfs tmpfs /var/tmp',
    'exec /usr/bin/cloud-init init --local',
  ].join(' && ');
  const child = spawn(
    'ip',
    [
      'netns',
      'exec',
      ciLab.client,
      'unshare',
      '--uts',
      '--ipc',
      '--mount',
      '--pid',
      '--fork',
      '--kill-child',
      'chroot',
      ci,
      '/bin/sh',
      '-c',
      inner,
    ],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    },
  );
  t.after(() => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => void (stderr += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const readLog = () =>
    existsSync(join(ci, 'var/log/cloud-init.log')) ? readFileSync(join(ci, 'var/log/cloud-init.log'), 'utf8') : '';
  await opts.during?.(ci, ciLab);
  const status = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 240_000).unref())]);
  if (status === 'hung') child.kill('SIGKILL');
  const ciLog = readLog();
  assert.equal(status, 0, `${stderr}\n${ciLog.slice(-4000)}`);
  assert.match(ciLog, /Reported ready to Azure fabric/, ciLog.slice(-4000));
  return { root: ci, log: ciLog };
}

/**
 * The instance data of cloud-init's root CI and kiln's root KILN agree: the v1 keys and ds.meta_data (random_seed
 * aside).
 */
function assertSameInstance(ci: string, kiln: string): void {
  type Doc = { v1: Record<string, unknown>; ds: { meta_data: Record<string, unknown> } };
  // The sensitive file: kiln's public one also redacts keys that name passwords and user data (src/util/redact.ts).
  const read = (root: string) =>
    JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data-sensitive.json'), 'utf8')) as Doc;
  const [a, b] = [read(ci), read(kiln)];
  console.error(
    'DEBUG',
    JSON.stringify(a.ds.meta_data),
    JSON.stringify(b.ds.meta_data),
    readFileSync(join(ci, 'etc/os-release'), 'utf8'),
    readFileSync(join(ci, 'var/log/cloud-init.log'), 'utf8')
      .split('\n')
      .filter((l) => /DHCP|dhcp|version|Cloud-init v/.test(l))
      .join('\n'),
  );
  for (const key of [
    'cloud_name',
    'platform',
    'subplatform',
    'instance_id',
    'local_hostname',
    'region',
    'availability_zone',
    'public_ssh_keys',
    'cloud_id',
  ]) {
    assert.deepEqual(b.v1[key], a.v1[key], `v1.${key}`);
  }
  const strip = (md: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(md).filter(([k]) => k !== 'random_seed'));
  assert.deepEqual(strip(b.ds.meta_data), strip(a.ds.meta_data), 'ds.meta_data');
}

function registerTests(): void {
  test("init-local on Azure: a lease, IMDS, the ready report to 168.63.129.16, IMDS's network rendered, the lease released", async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && existsSync(BUSYBOX),
        'needs root, iproute2 and busybox-static (udhcpd, udhcpc) to build network namespaces',
      )
    )
      return;
    const lab = testLab(t);
    await serveAzure(t, lab, '169.254.169.254');
    await serveAzure(t, lab, '168.63.129.16');
    const root = makeRoot(t);
    const { code, output, log } = initLocal(lab, root);
    assert.notEqual(code, 1, `${output}\n${log}`);
    assert.match(log, /temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24/);
    assert.match(log, /Found datasource Azure \[seed-dir \(\/var\/lib\/cloud\/seed\/azure\)\]/);
    assert.match(log, /no lease carries option 245; using the default wireserver 168\.63\.129\.16/);
    // The lease routes to IMDS and the wireserver (option 121): the primary NIC, no failure report.
    assert.doesNotMatch(log, /failure to find primary DHCP interface/);
    assert.match(log, /reported ready to the fabric/);
    assert.doesNotMatch(sh(['ip', '-n', lab.client, '-4', '-o', 'addr', 'show', 'dev', 'eth0']), /inet /);
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: Record<string, unknown>;
    };
    assert.deepEqual(
      [data.v1.cloud_name, data.v1.instance_id, data.v1.local_hostname, data.v1.region],
      ['azure', '9963f513-52bd-5041-9748-7190aae1ff21', 'kiln-vm', 'westeurope'],
    );
    // IMDS's network (eth0 by MAC with DHCPv4/v6 and the secondary addresses), rendered before networking starts.
    assert.match(log, /network config from ds/);
    const eni = readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.match(eni, /iface eth0 inet dhcp/);
    assert.match(eni, /iface eth0 inet6 dhcp/);
    assert.match(eni, /10\.0\.0\.5\/24/);
    assert.equal(
      readFileSync(join(root, 'var/lib/waagent/ovf-env.xml'), 'utf8'),
      readFileSync(join(HAPPY, 'media/ovf-env.xml'), 'utf8'),
    );
  });

  test("with Debian's dhclient: the wireserver comes from the lease's option 245", async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && existsSync(BUSYBOX) && hasCommand('debootstrap'),
        'needs root, iproute2, busybox-static and the Debian rootfs (dhclient)',
      )
    )
      return;
    if (!need(t, process.arch === 'x64', 'the dhclient copied from the parity rootfs is x86-64')) return;
    // Option 245 = 10.199.0.1 (0a c7 00 01), where a second mock stands in for the wireserver.
    const lab = testLab(t, ['opt 245 0ac70001']);
    await serveAzure(t, lab, '169.254.169.254');
    await serveAzure(t, lab, '10.199.0.1');
    const root = makeRoot(t, true);
    const run = initLocal(lab, root);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /with dhclient/);
    assert.match(run.log, /wireserver 10\.199\.0\.1 from option 245 in \/run\/kiln-ephemeral-dhcp\.eth0\.lease/);
    assert.match(run.log, /reported ready to the fabric/);
    assert.match(run.log, /Found datasource Azure/);
  });

  test("parity: Debian 13's cloud-init 25.1 and kiln read the same Azure mock into the same instance data and network config", {
    timeout: 300_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && hasCommand('unshare') && existsSync(BUSYBOX) && hasCommand('debootstrap'),
        'needs root, iproute2, unshare, busybox-static and the Debian cloud-init rootfs',
      )
    )
      return;
    // cloud-init's side: its own dhclient lease, IMDS and wireserver in a fresh lab.
    // One NIC in IMDS, as in the namespace: cloud-init fails init-local when IMDS names a NIC the machine lacks.
    const oneNic = join(FIXTURES, 'sources/azure/one-nic/imds');
    const { root: ci } = await cloudInitLocal(t, oneNic);
    // kiln's side, the same way in a lab of its own.
    const kLab = testLab(t);
    await serveAzure(t, kLab, '169.254.169.254', oneNic);
    await serveAzure(t, kLab, '168.63.129.16', oneNic);
    const kiln = makeRoot(t);
    const run = initLocal(kLab, kiln);
    assert.notEqual(run.code, 1, run.output + run.log);
    assertSameInstance(ci, kiln);
    const eni = (root: string) => readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.equal(eni(kiln), eni(ci), 'the rendered ENI');
  });

  test('Savable: kiln reports ready for the pool, the test swaps eth0 for a new veth, kiln leases the new NIC, finds it primary, polls reprovisiondata and provisions the customer', {
    timeout: 180_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && existsSync(BUSYBOX),
        'needs root, iproute2 and busybox-static (udhcpd, udhcpc) to build network namespaces',
      )
    )
      return;
    const lab = testLab(t);
    const mock = tempDir(t);
    copyFileSync(join(FIXTURES, 'sources/azure/one-nic/imds/instance.json'), join(mock, 'instance.json'));
    copyFileSync(join(FIXTURES, 'sources/azure/pps/claimed-instance.json'), join(mock, 'claimed-instance.json'));
    await serveAzure(t, lab, '169.254.169.254', mock);
    await serveAzure(t, lab, '168.63.129.16', mock);
    const savable = readFileSync(join(HAPPY, 'media/ovf-env.xml'), 'utf8').replace(
      '<PreprovisionedVm>false</PreprovisionedVm>',
      '<PreprovisionedVm>true</PreprovisionedVm><PreprovisionedVMType>Savable</PreprovisionedVMType>',
    );
    const root = makeRoot(t, false, savable);
    const cfg = join(root, 'etc/cloud/cloud.cfg');
    writeFileSync(
      cfg,
      readFileSync(cfg, 'utf8').replace(
        '    report_ready_max_wait: 10\n',
        '    report_ready_max_wait: 10\n    pps_max_wait: 90\n    pps_poll_interval: 0.2\n    pps_nic_poll_interval: 0.1\n    pps_dhcp_max_wait: 30\n',
      ),
    );
    const kiln = spawn('ip', ['netns', 'exec', lab.client, process.execPath, process.argv[1] as string], {
      env: roleEnv('kiln', ['init', '--local', '--root', root]),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => void kiln.kill('SIGKILL'));
    let output = '';
    kiln.stdout.on('data', (b: Buffer) => void (output += b.toString()));
    kiln.stderr.on('data', (b: Buffer) => void (output += b.toString()));
    const exited = new Promise<number | null>((resolve) => kiln.on('exit', (code) => resolve(code)));
    const readLog = () =>
      existsSync(join(root, 'var/log/cloud-init.log'))
        ? readFileSync(join(root, 'var/log/cloud-init.log'), 'utf8')
        : '';
    // The pool report is done once the marker is there: then the host takes the NIC away and plugs another in.
    const marker = join(root, 'var/lib/cloud/data/reported_ready');
    await waitFor(() => existsSync(marker), 60_000, `the reported_ready marker\n${output}\n${readLog()}`);
    swapNic(t, lab, mock);
    // An unref'd timer: it must not keep the test process alive once kiln has exited.
    const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 120_000).unref())]);
    const log = readLog();
    assert.notEqual(code, 'hung', `${output}\n${log}`);
    assert.notEqual(code, 1, `${output}\n${log}`);
    assert.match(log, /preprovisioned VM \(PPS type Savable\)/);
    assert.match(log, /waiting for eth0 to be detached/);
    assert.match(log, /the preprovisioned NIC eth0 is detached/);
    assert.match(log, /NIC eth0 attached; checking whether it is the primary one/);
    assert.match(log, /the lease on eth0 routes 169\.254\.169\.254, 168\.63\.129\.16 \(option 121\)/);
    assert.match(log, /eth0 is the primary NIC/);
    // Two leases: the pool NIC's and the new NIC's (the same name, another link).
    assert.equal(log.match(/temporary DHCP lease on eth0: 10\.199\.0\.\d+\/24/g)?.length, 2, log);
    assert.match(log, /reprovisioning data read after \d+ polls/);
    assert.match(log, /reported ready to the fabric/);
    assert.doesNotMatch(log, /not reprovisioned/);
    assert.equal(existsSync(marker), false, 'the final ready report removes the marker');
    const data = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
      v1: Record<string, unknown>;
    };
    assert.equal(data.v1.local_hostname, 'customer-vm');
    assert.match(readFileSync(join(root, 'var/lib/waagent/ovf-env.xml'), 'utf8'), /<UserName>customer<\/UserName>/);
    // The new NIC's lease was released too.
    assert.doesNotMatch(sh(['ip', '-n', lab.client, '-4', '-o', 'addr', 'show', 'dev', 'eth0']), /inet /);
  });

  test("parity, a pool VM of PPS type Unknown (the reported_ready marker of an earlier boot): 25.1 and kiln poll reprovisiondata, provision the customer's ovf-env.xml alike and remove the marker", {
    timeout: 300_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && hasCommand('unshare') && existsSync(BUSYBOX) && hasCommand('debootstrap'),
        'needs root, iproute2, unshare, busybox-static and the Debian cloud-init rootfs',
      )
    )
      return;
    // IMDS without osProfile names, so that the host name comes from the customer's ovf-env.xml (IMDS's would win).
    const mock = tempDir(t);
    const imds = JSON.parse(readFileSync(join(FIXTURES, 'sources/azure/one-nic/imds/instance.json'), 'utf8')) as {
      compute: Record<string, unknown>;
    };
    delete imds.compute.osProfile;
    writeFileSync(join(mock, 'instance.json'), JSON.stringify(imds));
    copyFileSync(join(FIXTURES, 'sources/azure/pps/reprovisiondata.xml'), join(mock, 'reprovisiondata.xml'));
    const marker = 'var/lib/cloud/data/reported_ready';
    const withMarker = (root: string) => {
      mkdirSync(join(root, 'var/lib/cloud/data'), { recursive: true });
      writeFileSync(join(root, marker), '1: 1700000000.0\n');
    };
    const { root: ci, log: ciLog } = await cloudInitLocal(t, mock, { prepare: withMarker });
    assert.match(ciLog, /PPS type: Unknown/);
    const kLab = testLab(t);
    await serveAzure(t, kLab, '169.254.169.254', mock);
    await serveAzure(t, kLab, '168.63.129.16', mock);
    const kiln = makeRoot(t);
    withMarker(kiln);
    const run = initLocal(kLab, kiln);
    assert.notEqual(run.code, 1, run.output + run.log);
    assert.match(run.log, /preprovisioned VM \(PPS type Unknown\)/);
    assertSameInstance(ci, kiln);
    for (const root of [ci, kiln]) {
      const v1 = (
        JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
          v1: Record<string, unknown>;
        }
      ).v1;
      assert.equal(v1.local_hostname, 'customer-vm', root);
      assert.equal(existsSync(join(root, marker)), false, `${root}: the marker is removed after the final report`);
      assert.match(readFileSync(join(root, 'var/lib/waagent/ovf-env.xml'), 'utf8'), /customer-vm/);
    }
    const eni = (root: string) => readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
    assert.equal(eni(kiln), eni(ci), 'the rendered ENI');
  });

  test("parity, a Savable pool VM: 25.1 (netlink) and kiln (link polling) see the test swap eth0 for a new veth, lease the new NIC, find it primary by its lease's routes and provision the customer alike", {
    timeout: 300_000,
  }, async (t) => {
    if (
      !need(
        t,
        isRoot() && hasCommand('ip') && hasCommand('unshare') && existsSync(BUSYBOX) && hasCommand('debootstrap'),
        'needs root, iproute2, unshare, busybox-static and the Debian cloud-init rootfs',
      )
    )
      return;
    await poolParity(t, 'Savable', swapNic, [
      /The preprovisioned nic eth0 is detached/,
      /Obtained DHCP lease on interface 'eth0' \(primary=True .*routes=\[\('169\.254\.169\.254\/32'/,
      /Found primary nic for this VM/,
    ]);
  });
}

/**
 * Parity for a pool VM of TYPE: 25.1 and kiln each in a lab of their own, the host's CLAIM made once the VM's
 * reported_ready marker is there; the same instance data, customer, ENI, and no marker afterwards. CI_SAW: what
 * 25.1's log must show.
 */
async function poolParity(
  t: TestContext,
  type: 'Savable',
  claim: (t: TestContext, lab: Lab, mock: string) => void,
  ciSaw: RegExp[],
): Promise<void> {
  const poolOvf = readFileSync(join(HAPPY, 'media/ovf-env.xml'), 'utf8').replace(
    '<PreprovisionedVm>false</PreprovisionedVm>',
    `<PreprovisionedVm>true</PreprovisionedVm><PreprovisionedVMType>${type}</PreprovisionedVMType>`,
  );
  const mockFor = () => {
    const dir = tempDir(t);
    copyFileSync(join(FIXTURES, 'sources/azure/one-nic/imds/instance.json'), join(dir, 'instance.json'));
    // With IMDS's keys: cloud-init takes OVF keys by value only along with the goal state's certificates (a
    // documented difference, kiln always takes them), so an IMDS without keys would differ on that alone.
    const claimed = JSON.parse(readFileSync(join(FIXTURES, 'sources/azure/pps/claimed-instance.json'), 'utf8')) as {
      compute: Record<string, unknown>;
    };
    const pool = JSON.parse(readFileSync(join(dir, 'instance.json'), 'utf8')) as { compute: Record<string, unknown> };
    claimed.compute.publicKeys = pool.compute.publicKeys;
    writeFileSync(join(dir, 'claimed-instance.json'), JSON.stringify(claimed));
    return dir;
  };
  const marker = 'var/lib/cloud/data/reported_ready';
  const ciMock = mockFor();
  const { root: ci, log: ciLog } = await cloudInitLocal(t, ciMock, {
    ovf: poolOvf,
    during: async (root, lab) => {
      await waitFor(() => existsSync(join(root, marker)), 120_000, "cloud-init's reported_ready marker");
      claim(t, lab, ciMock);
    },
  });
  assert.ok(
    existsSync(join(ci, 'run/cloud-init/instance-data.json')),
    `25.1 found no datasource:\n${ciLog
      .split('\n')
      .filter((l) => /Azure|WARNING|ERROR|Traceback|  File|Error/.test(l))
      .join('\n')
      .slice(-8000)}`,
  );
  assert.match(ciLog, new RegExp(`PPS type: ${type}`));
  for (const saw of ciSaw) assert.match(ciLog, saw);
  // kiln's side, the same swap in a lab of its own.
  const lab = testLab(t);
  const kMock = mockFor();
  await serveAzure(t, lab, '169.254.169.254', kMock);
  await serveAzure(t, lab, '168.63.129.16', kMock);
  const kiln = makeRoot(t, false, poolOvf);
  const cfg = join(kiln, 'etc/cloud/cloud.cfg');
  writeFileSync(
    cfg,
    readFileSync(cfg, 'utf8').replace(
      '    report_ready_max_wait: 10\n',
      '    report_ready_max_wait: 10\n    pps_max_wait: 90\n    pps_poll_interval: 0.2\n    pps_nic_poll_interval: 0.1\n',
    ),
  );
  const child = spawn('ip', ['netns', 'exec', lab.client, process.execPath, process.argv[1] as string], {
    env: roleEnv('kiln', ['init', '--local', '--root', kiln]),
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  t.after(() => void child.kill('SIGKILL'));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await waitFor(() => existsSync(join(kiln, marker)), 60_000, "kiln's reported_ready marker");
  claim(t, lab, kMock);
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 120_000).unref())]);
  assert.notEqual(code, 'hung');
  assert.notEqual(code, 1);
  assertSameInstance(ci, kiln);
  for (const root of [ci, kiln]) {
    const v1 = (
      JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
        v1: Record<string, unknown>;
      }
    ).v1;
    assert.equal(v1.local_hostname, 'customer-vm', root);
    assert.equal(existsSync(join(root, marker)), false, `${root}: the marker is removed after the final report`);
  }
  const eni = (root: string) => readFileSync(join(root, 'etc/network/interfaces.d/50-cloud-init'), 'utf8');
  assert.equal(eni(kiln), eni(ci), 'the rendered ENI');
}
