// SmartOS: detection, the Joyent protocol V2 against a fake host on the zone socket and on a pty pair (the serial
// port), the files written, and a host that misbehaves.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../src/sources/datasource';
import { DATASOURCES } from '../../src/sources/registry';
import { startSmartOsHost, type SmartOsMisbehaviour } from '../helpers/serial-hosts';
import { requestFrame } from '../../src/sources/smartos/joyent-metadata-client';
import { smartOsSource } from '../../src/sources/smartos/smartos';
import { smartOsNetworkConfig } from '../../src/sources/smartos/smartos-network';
import { Logger, MemorySink } from '../../src/util/log';
import { openPtyPair, ptySkipReason } from '../helpers/pty-pair';
import { testKoffi } from '../helpers/koffi';
import { need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const NICS = [
  {
    interface: 'net0',
    mac: '90:b8:d0:d8:82:b4',
    vlan_id: 324,
    gateway: '8.12.42.1',
    gateways: ['8.12.42.1'],
    ips: ['8.12.42.26/24'],
    mtu: 1500,
    primary: true,
  },
  { interface: 'net1', mac: '90:b8:d0:0a:51:31', vlan_id: 600, ips: ['10.210.1.27/24'], mtu: 1500 },
];
const ROUTES = [
  { linklocal: false, dst: '3.0.0.0/8', gateway: '8.12.42.3' },
  { linklocal: false, dst: '4.0.0.0/8', gateway: '10.210.1.4' },
];
const IID = 'dd6b1a4c-8e5d-4a1e-9d39-7a6e2e58b0a1';

/** The keys a Triton host holds for a typical instance. */
function hostKeys(dir: string, extra: Record<string, string> = {}): void {
  mkdirSync(dir, { recursive: true });
  const keys: Record<string, string> = {
    'sdc:uuid': `${IID}\n`,
    hostname: 'web1\n',
    'sdc:hostname': 'web1.example\n',
    root_authorized_keys: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKx root@a\nssh-rsa AAAAB3NzaC1yc2E root@b\n',
    'user-script': 'echo hello from user-script\n',
    'user-data': 'legacy user data, not executed\n',
    'cloud-init:user-data': '#cloud-config\nruncmd: [true]\n',
    'sdc:datacenter_name': 'us-east-1\n',
    'sdc:operator-script': '#!/bin/sh\necho operator\n',
    'sdc:dns_domain': 'example\n',
    'sdc:nics': JSON.stringify(NICS),
    'sdc:resolvers': JSON.stringify(['8.8.8.8', '8.8.4.4']),
    'sdc:routes': JSON.stringify(ROUTES),
    ...extra,
  };
  for (const [k, v] of Object.entries(keys)) writeFileSync(join(dir, k), v);
}

/**
 * A root and a platform whose `file --mime-type` answers text/plain (the sandboxed chroot needs root; the answer is
 * what file(1) gives a script without #!).
 */
function setup(t: TestContext, dmi: Record<string, string>, files: Record<string, string> = {}) {
  const root = tempDir(t);
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const platform = new LinuxPlatform({ root, log, loadKoffi: testKoffi });
  const runs: string[][] = [];
  Object.assign(platform, {
    run: async (cmd: string[]) => {
      runs.push(cmd);
      return { code: 0, stdout: 'text/plain\n', stderr: '' };
    },
  });
  const ctx = (settings: Record<string, unknown> = {}): CrawlContext => ({
    platform,
    log,
    kernelCmdline: '',
    dmi,
    config: {},
    finder: { find: async () => [] } as never,
    settings,
  });
  return { root, ctx, runs, sink };
}

async function lxZone(t: TestContext, keys: Record<string, string> = {}, misbehave: SmartOsMisbehaviour[] = []) {
  const s = setup(
    t,
    { product_name: 'Standard PC' },
    { 'proc/sys/kernel/version': 'BrandZ virtual linux\n', 'var/svc/provisioning': '' },
  );
  const dir = join(tempDir(t), 'keys');
  hostKeys(dir, keys);
  mkdirSync(join(s.root, 'native/.zonecontrol'), { recursive: true });
  const host = await startSmartOsHost({
    dir,
    misbehave,
    socketPath: join(s.root, 'native/.zonecontrol/metadata.sock'),
  });
  t.after(() => host.close());
  return { ...s, host, dir };
}

test('sdc:nics, sdc:routes and resolvers become network config v1 as cloud-init converts them', () => {
  const net = smartOsNetworkConfig(NICS, ['8.8.8.8'], 'example', ROUTES);
  const routes = [
    { network: '3.0.0.0/8', gateway: '8.12.42.3' },
    { network: '4.0.0.0/8', gateway: '10.210.1.4' },
  ];
  assert.deepEqual(net, {
    version: 1,
    config: [
      {
        mac_address: '90:b8:d0:d8:82:b4',
        mtu: 1500,
        name: 'net0',
        type: 'physical',
        subnets: [{ address: '8.12.42.26/24', gateway: '8.12.42.1', type: 'static', routes }],
      },
      {
        mac_address: '90:b8:d0:0a:51:31',
        mtu: 1500,
        name: 'net1',
        type: 'physical',
        subnets: [{ address: '10.210.1.27/24', type: 'static', routes }],
      },
      { type: 'nameserver', address: ['8.8.8.8'], search: ['example'] },
    ],
  });
  const addrconf = smartOsNetworkConfig(
    [
      {
        interface: 'net0',
        mac: 'e2:7f:c1:50:eb:99',
        gateways: ['10.64.1.129'],
        ips: ['10.64.1.130/26', 'addrconf', 'dhcp'],
        primary: true,
      },
    ],
    undefined,
    undefined,
    undefined,
  );
  assert.deepEqual(addrconf.config[0]?.subnets, [
    { address: '10.64.1.130/26', gateway: '10.64.1.129', type: 'static' },
    { type: 'dhcp6' },
    { type: 'dhcp4' },
  ]);
  assert.throws(() => smartOsNetworkConfig({ interface: 'net0' }, [], [], []), /must be a JSON list/);
});

test('the request frame is the one cloud-init sends (length, CRC-32 of the body, base64 key)', () => {
  assert.equal(requestFrame('dc3f4a17', 'GET', 'hostname'), 'V2 25 538028de dc3f4a17 GET aG9zdG5hbWU=\n');
  // Both checksums as CPython's binascii.crc32 gives them.
  assert.equal(requestFrame('dc3f4a17', 'KEYS'), 'V2 13 e9eae0d0 dc3f4a17 KEYS\n');
});

test('detection: DMI product SmartDC…, or an LX-brand kernel with the zone socket; nothing else', async (t) => {
  const on = (dmi: Record<string, string>, files: Record<string, string> = {}) =>
    smartOsSource.detect(setup(t, dmi, files).ctx());
  assert.equal(await on({ product_name: 'SmartDC HVM' }), true);
  assert.equal(await on({ product_name: 'Standard PC (i440FX + PIIX, 1996)' }), false);
  assert.equal(await on({ product_name: 'Joyent' }), false);
  // A kernel that says BrandZ but no socket: an LXD container on a BrandZ zone (ds-identify's guard).
  assert.equal(await on({}, { 'proc/sys/kernel/version': 'BrandZ virtual linux\n' }), false);
  assert.equal(await on({}, { 'native/.zonecontrol/metadata.sock': '' }), false);
  assert.equal(
    await on({}, { 'proc/sys/kernel/version': 'BrandZ virtual linux\n', 'native/.zonecontrol/metadata.sock': '' }),
    true,
  );
  assert.ok(DATASOURCES.some((d) => d.name === 'SmartOS'));
});

test('LX-brand zone: the socket is read, the scripts and mdata-user-data written under the root, provisioning marked done', async (t) => {
  const { root, ctx, host, runs } = await lxZone(t);
  const data = await smartOsSource.crawl(ctx());
  assert.equal(data.instanceId, IID);
  assert.equal(data.cloudName, 'joyent');
  assert.equal(data.platform, 'joyent');
  assert.equal(data.subplatform, 'serial (/dev/ttyS1)');
  assert.equal(data.localHostname, 'web1');
  assert.equal(data.availabilityZone, 'us-east-1');
  assert.deepEqual(data.publicKeys, [
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKx root@a',
    'ssh-rsa AAAAB3NzaC1yc2E root@b',
  ]);
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nruncmd: [true]\n');
  assert.equal(data.sourceConfig, undefined, 'disk_setup is for KVM guests only');
  assert.ok(data.networkConfig, 'a network config');
  assert.equal((data.networkConfig.config as { config: unknown[] }).config.length, 3);
  // No sdc:vendor-data: the built-in boothook that runs the two scripts at every boot.
  const vendor = Buffer.from(data.vendorData ?? []).toString();
  assert.match(vendor, /^#cloud-boothook\n/);
  assert.match(vendor, /fname="\/var\/lib\/cloud\/scripts\/per-boot\/01_smartos_vendor_data.sh"/);
  assert.match(
    vendor,
    new RegExp(
      `for script in "/var/lib/cloud/instances/${IID}/data/operator-script" "/var/lib/cloud/instances/${IID}/data/user-script"`,
    ),
  );
  const data_d = join(root, 'var/lib/cloud/instances', IID, 'data');
  assert.equal(readFileSync(join(data_d, 'user-script'), 'utf8'), '#!/bin/bash\necho hello from user-script\n');
  assert.equal(statSync(join(data_d, 'user-script')).mode & 0o777, 0o700);
  assert.deepEqual(runs, [['file', '--brief', '--mime-type', `/var/lib/cloud/instances/${IID}/data/user-script`]]);
  assert.equal(readlinkSync(join(root, 'var/db/user-script')), `/var/lib/cloud/instances/${IID}/data/user-script`);
  assert.equal(readFileSync(join(data_d, 'operator-script'), 'utf8'), '#!/bin/sh\necho operator\n');
  assert.equal(readFileSync(join(root, 'var/db/mdata-user-data'), 'utf8'), 'legacy user data, not executed\n');
  assert.equal(statSync(join(root, 'var/db/mdata-user-data')).mode & 0o777, 0o400);
  assert.ok(existsSync(join(root, 'var/svc/provision_success')) && !existsSync(join(root, 'var/svc/provisioning')));
  // The zone socket needs no resync; the first line is the negotiation.
  assert.equal(host.record.lines[0], 'NEGOTIATE V2');
  assert.ok(host.record.gets.includes('sdc:nics') && host.record.gets.includes('cloud-init:user-data'));
});

test('a key the host no longer has removes its file at the next boot; sdc:vendor-data replaces the built-in boothook', async (t) => {
  const { root, ctx, dir } = await lxZone(t, { 'sdc:vendor-data': '#cloud-config\nfoo: bar\n' });
  await smartOsSource.crawl(ctx());
  assert.ok(existsSync(join(root, 'var/db/mdata-user-data')));
  for (const k of ['user-data', 'user-script', 'hostname']) writeFileSync(join(dir, k), '');
  const again = await smartOsSource.crawl(ctx());
  assert.equal(existsSync(join(root, 'var/db/mdata-user-data')), false);
  assert.equal(existsSync(join(root, 'var/db/user-script')), false);
  assert.equal(existsSync(join(root, 'var/lib/cloud/instances', IID, 'data/user-script')), false);
  assert.equal(Buffer.from(again.vendorData ?? []).toString(), '#cloud-config\nfoo: bar\n');
  // No 'hostname' value: sdc:hostname, as cloud-init falls back.
  assert.equal(again.localHostname, 'web1.example');
});

test('a misbehaving zone host is an error naming the fault, within the timeout', { timeout: 60_000 }, async (t) => {
  const cases: Array<[SmartOsMisbehaviour, RegExp]> = [
    [{ kind: 'bad-checksum', key: 'hostname' }, /invalid checksum in the answer to GET hostname/],
    [{ kind: 'bad-length', key: 'sdc:uuid' }, /incorrect frame length/],
    [{ kind: 'wrong-request-id', key: 'sdc:uuid' }, /request id mismatch/],
    [{ kind: 'garbage', key: 'sdc:nics' }, /not a V2 frame/],
    [{ kind: 'not-base64', key: 'hostname' }, /not base64/],
    [{ kind: 'no-v2' }, /invalid answer 'FAILURE' to 'NEGOTIATE V2'/],
    [{ kind: 'silent', key: 'root_authorized_keys' }, /GET root_authorized_keys: no answer within 0.5 s/],
    [{ kind: 'hang-up', key: 'sdc:routes' }, /closed by the other end/],
  ];
  for (const [fault, expected] of cases) {
    const { ctx } = await lxZone(t, {}, [fault]);
    await assert.rejects(
      smartOsSource.crawl(ctx({ serial_timeout: 0.5 })),
      (err: Error) => err.name === 'SourceError' && expected.test(err.message),
      fault.kind,
    );
  }
  const { ctx } = await lxZone(t, { 'sdc:nics': '{not json' });
  await assert.rejects(smartOsSource.crawl(ctx()), /the value of sdc:nics is not JSON/);
  const missing = setup(t, {}, { 'proc/sys/kernel/version': 'BrandZ virtual linux\n' });
  await assert.rejects(smartOsSource.crawl(missing.ctx()), /no metadata socket \/native\/.zonecontrol\/metadata.sock/);
});

test('KVM guest over a serial port (a pty pair in cooked mode at first): resync, negotiate, legacy base64 keys, disk_setup', async (t) => {
  const skip = ptySkipReason();
  if (!need(t, skip === undefined, skip ?? '')) return;
  const s = setup(t, { product_name: 'SmartDC HVM' });
  const dir = join(tempDir(t), 'keys');
  hostKeys(dir, {
    base64_keys: 'cloud-init:user-data,sdc:operator-script',
    'cloud-init:user-data': Buffer.from('#cloud-config\nhostname: from-b64\n').toString('base64'),
    'sdc:operator-script': Buffer.from('#!/bin/sh\necho decoded\n').toString('base64'),
    'b64-user-data': 'true',
    'user-data': Buffer.from('legacy decoded\n').toString('base64'),
  });
  const host = await startSmartOsHost({ dir, socketPath: join(dir, '..', 'host.sock') });
  t.after(() => host.close());
  const pty = await openPtyPair(join(dir, '..', 'host.sock'));
  t.after(() => pty.close());
  mkdirSync(join(s.root, 'dev'));
  symlinkSync(pty.slave, join(s.root, 'dev/ttyS1'));
  const data = await smartOsSource.crawl(s.ctx({ serial_timeout: 5 }));
  assert.equal(data.instanceId, IID);
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nhostname: from-b64\n');
  assert.equal(
    readFileSync(join(s.root, 'var/lib/cloud/instances', IID, 'data/operator-script'), 'utf8'),
    '#!/bin/sh\necho decoded\n',
  );
  // b64-user-data does not mark user-data as base64 in cloud-init (it looks up '-user-data'); kiln agrees.
  assert.equal(
    readFileSync(join(s.root, 'var/db/mdata-user-data'), 'utf8'),
    Buffer.from('legacy decoded\n').toString('base64'),
  );
  // root_authorized_keys is never decoded (NO_BASE64_DECODE).
  assert.equal(data.publicKeys.length, 2);
  assert.deepEqual(data.sourceConfig, {
    disk_setup: { ephemeral0: { table_type: 'mbr', layout: false, overwrite: false } },
    fs_setup: [{ label: 'ephemeral0', filesystem: 'ext4', device: 'ephemeral0' }],
  });
  // The serial resync: an empty line answered 'invalid command', then the negotiation; no echo came back to the host.
  assert.deepEqual(host.record.lines.slice(0, 2), ['', 'NEGOTIATE V2']);
  assert.ok(
    host.record.lines.every((l) => l === '' || l === 'NEGOTIATE V2' || l.startsWith('V2 ')),
    host.record.lines.join('|'),
  );
});

test('a serial host that never answers ends the crawl at serial_timeout; a missing port is named', {
  timeout: 60_000,
}, async (t) => {
  const skip = ptySkipReason();
  if (!need(t, skip === undefined, skip ?? '')) return;
  const s = setup(t, { product_name: 'SmartDC HVM' });
  const dir = join(tempDir(t), 'keys');
  hostKeys(dir);
  const host = await startSmartOsHost({
    dir,
    misbehave: [{ kind: 'silent', key: 'sdc:uuid' }],
    socketPath: join(dir, '..', 'host.sock'),
  });
  t.after(() => host.close());
  const pty = await openPtyPair(join(dir, '..', 'host.sock'));
  t.after(() => pty.close());
  mkdirSync(join(s.root, 'dev'));
  symlinkSync(pty.slave, join(s.root, 'dev/ttyS1'));
  await assert.rejects(
    smartOsSource.crawl(s.ctx({ serial_timeout: 1 })),
    /\/dev\/ttyS1: GET sdc:uuid: no answer within 1 s/,
  );
  const none = setup(t, { product_name: 'SmartDC HVM' });
  await assert.rejects(smartOsSource.crawl(none.ctx()), /no metadata serial port \/dev\/ttyS1/);
});
