// KVP telemetry on Linux: the record layout, cloud-init's event encoding (compared with 22.4's own in the Debian
// rootfs), and a whole Azure crawl under --root writing the pool file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { azureSource } from '../../src/sources/azure/azure';
import {
  encodeKvpEvent,
  encodeReport,
  hypervHandlers,
  KVP_KEY_SIZE,
  KVP_VALUE_SIZE,
  kvpRecord,
  readKvpRecords,
} from '../../src/sources/azure/kvp';
import type { CrawlContext } from '../../src/sources/datasource';
import type { StaticRoute } from '../../src/net/ephemeral/dhcp-static-routes';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { Logger } from '../../src/util/log';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const HAPPY = join(FIXTURES, 'sources', 'azure', 'happy-path');
const OVF = readFileSync(join(HAPPY, 'media', 'ovf-env.xml'), 'utf8');
const DMI = {
  chassis_asset_tag: '7783-7084-3265-9085-8269-3286-77',
  sys_vendor: 'Microsoft Corporation',
  product_uuid: '9963F513-52BD-5041-9748-7190AAE1FF21',
};
const TELEMETRY = { reporting: { logging: { type: 'log' }, telemetry: { type: 'hyperv' } } };

test('a KVP record is a 512-byte key and a 2048-byte value, NUL-padded, cut where too long', () => {
  const r = kvpRecord('k', 'v');
  assert.equal(r.length, KVP_KEY_SIZE + KVP_VALUE_SIZE);
  assert.equal(r.subarray(0, 2).toString(), 'k\0');
  assert.equal(r[KVP_KEY_SIZE], 'v'.charCodeAt(0));
  const long = kvpRecord('x'.repeat(600), 'y'.repeat(3000));
  assert.deepEqual(readKvpRecords(Buffer.concat([r, long])), [
    { key: 'k', value: 'v' },
    { key: 'x'.repeat(512), value: 'y'.repeat(2048) },
  ]);
});

test("encoded reports quote as cloud-init's csv writer does ('|' delimiter, \"'\" quote)", () => {
  assert.equal(
    encodeReport(['result=error', 'reason=a|b', "agent=it's", 'x=line\nbreak', 'plain']),
    "result=error|'reason=a|b'|'agent=it''s'|'x=line\nbreak'|plain",
  );
});

test('hyperv handlers come from the reporting config; others are ignored', () => {
  assert.deepEqual(hypervHandlers({}), []);
  assert.deepEqual(
    hypervHandlers({
      reporting: {
        a: { type: 'log' },
        telemetry: { type: 'hyperv', event_types: ['diagnostic'] },
        other: { type: 'hyperv', kvp_file_path: '/tmp/x' },
      },
    }),
    [
      { name: 'telemetry', path: '/var/lib/hyperv/.kvp_pool_1', eventTypes: ['diagnostic'] },
      { name: 'other', path: '/tmp/x' },
    ],
  );
});

test("event values are byte for byte cloud-init 22.4's _encode_event, long ones split into msg_i slices (run in the Debian rootfs)", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const rootfs = ensureDebianRootfs();
  const events = [
    {
      type: 'diagnostic',
      name: 'diagnostic message',
      description: 'short é "quoted"',
      timestamp: 1_700_000_000_123.456,
    },
    {
      type: 'finish',
      name: 'init-local',
      description: `${'x'.repeat(2500)} \\ "end"`,
      timestamp: 1_700_000_001_000,
      result: 'SUCCESS',
    },
  ];
  const script = [
    'import json, sys',
    'from cloudinit.reporting.handlers import HyperVKvpReportingHandler as H',
    'from cloudinit.reporting.events import ReportingEvent, FinishReportingEvent',
    'h = H.__new__(H)',
    'h.event_key_prefix = "P"',
    'out = []',
    'for e in json.loads(sys.argv[1]):',
    '    ev = ReportingEvent(e["type"], e["name"], e["description"], timestamp=e["timestamp"] / 1000)',
    '    if "result" in e: ev.result = e["result"]',
    '    out.append([h._decode_kvp_item(d)["value"] for d in h._encode_event(ev)])',
    'sys.stdout.write(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(
    'unshare',
    [
      '--mount',
      '--net',
      '--fork',
      'chroot',
      rootfs,
      'env',
      'PYTHONDONTWRITEBYTECODE=1',
      'python3',
      '-c',
      script,
      JSON.stringify(events),
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const theirs = JSON.parse(r.stdout) as string[][];
  const ours = events.map((e) => encodeKvpEvent('P', e).map((rec) => readKvpRecords(rec)[0]?.value));
  assert.deepEqual(ours, theirs);
  assert.ok((theirs[1]?.length ?? 0) > 1, 'the long one was split');
});

async function crawl(
  t: TestContext,
  config: Record<string, unknown>,
  opts: { ovf?: string; oldPool?: boolean; network?: EphemeralNetwork } = {},
) {
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(HAPPY, 'imds') });
  const log = new Logger().for('test');
  const root = tempDir(t);
  mkdirSync(join(root, 'proc'));
  writeFileSync(join(root, 'proc', 'uptime'), '120.50 200.00\n');
  mkdirSync(join(root, 'var/lib/hyperv'), { recursive: true });
  mkdirSync(join(root, 'var/log'), { recursive: true });
  writeFileSync(join(root, 'var/log/cloud-init.log'), 'the log so far\n');
  const pool = join(root, 'var/lib/hyperv/.kvp_pool_1');
  if (opts.oldPool) {
    // A record from an earlier boot: the file was last written before this boot, so it is emptied first.
    writeFileSync(pool, kvpRecord('OLD', 'before this boot'));
    utimesSync(pool, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
  }
  const media = join(tempDir(t), 'media');
  mkdirSync(media);
  writeFileSync(join(media, 'ovf-env.xml'), opts.ovf ?? OVF);
  const finder = new FakeFinder(new LinuxPlatform({ root: '/', log }), [
    { device: 'sr0-image', label: 'rd_rdfe_stable.1', fsType: 'udf', dir: media },
  ]);
  const ctx: CrawlContext = {
    platform: new LinuxPlatform({ root, log }),
    log,
    kernelCmdline: '',
    dmi: DMI,
    config,
    finder,
    settings: { retries: 1, timeout: 1, max_wait: 10, report_ready_retry_sleep: 0.05, report_ready_max_wait: 2 },
    baseUrl: server.url,
    signal: AbortSignal.timeout(20_000),
    ...(opts.network ? { network: opts.network } : {}),
  };
  const before = Date.now();
  const outcome = await azureSource.crawl(ctx).then(
    () => undefined,
    (err: unknown) => err as Error,
  );
  let records: Array<{ key: string; value: string }> = [];
  try {
    records = readKvpRecords(readFileSync(pool));
  } catch {
    records = [];
  }
  return { outcome, records, pool, window: { before, after: Date.now() } };
}

test('an Azure crawl under --root with a hyperv telemetry handler: diagnostics and the success PROVISIONING_REPORT in the pool; an old pool is emptied first', async (t) => {
  const { outcome, records, pool, window } = await crawl(t, TELEMETRY, { oldPool: true });
  assert.equal(outcome, undefined);
  assert.equal(statSync(pool).size % (KVP_KEY_SIZE + KVP_VALUE_SIZE), 0);
  assert.ok(!records.some((r) => r.key === 'OLD'), 'the record from before this boot is gone');
  const diagnostics = records.filter((r) =>
    /^CLOUD_INIT\|\d+\|diagnostic\|diagnostic message\|[0-9a-f-]{36}$/.test(r.key),
  );
  const incarnation = Number(diagnostics[0]?.key.split('|')[1]);
  // The boot time from /proc/uptime, read at some moment of the crawl: between the two ends of its window.
  const bootTime = (ms: number) => Math.trunc(ms / 1000 - 120.5);
  assert.ok(
    incarnation >= bootTime(window.before) && incarnation <= bootTime(window.after),
    `incarnation ${incarnation} is the boot time from /proc/uptime`,
  );
  const messages = diagnostics.map((r) => (JSON.parse(r.value) as { msg: string }).msg);
  // The log goes to KVP before the health report; the sandbox has no dmesg, which is a diagnostic too.
  assert.deepEqual(messages.slice(0, 3), [
    'Azure: provisioning metadata in sr0-image',
    'Azure: IMDS read',
    'Dumping last 15 bytes of cloud-init.log file to KVP starting from index: 0',
  ]);
  assert.match(messages[3] ?? '', /^Exception when dumping dmesg log: /);
  assert.deepEqual(messages.slice(4), ['Azure: reported ready to the fabric']);
  // 22.4's _get_data opens with system information (boot telemetry needs systemd, which the sandbox lacks).
  assert.deepEqual(
    records
      .filter((r) => !r.key.includes('|diagnostic|') && r.key !== 'PROVISIONING_REPORT')
      .map((r) => r.key.split('|').slice(2, 4).join(' ')),
    ['system-info system information', 'compressed cloud-init.log'],
  );
  assert.match(
    diagnostics[0]?.value ?? '',
    /^\{"name":"diagnostic message","type":"diagnostic","ts":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z","msg":/,
  );
  const report = records.filter((r) => r.key === 'PROVISIONING_REPORT');
  assert.equal(report.length, 1);
  assert.match(
    report[0]?.value ?? '',
    /^result=success\|agent=kiln\|timestamp=\d{4}-\d\d-\d\dT[\d:.]+\|vm_id=9963f513-52bd-5041-9748-7190aae1ff21$/,
  );
});

test('a failed Azure crawl leaves the error PROVISIONING_REPORT; without a hyperv handler nothing is written', async (t) => {
  const failed = await crawl(t, TELEMETRY, { ovf: '<Environment><broken></Environment>' });
  assert.ok(failed.outcome instanceof Error);
  const report = failed.records.find((r) => r.key === 'PROVISIONING_REPORT');
  assert.match(
    report?.value ?? '',
    /^result=error\|reason=Azure: invalid ovf-env\.xml: .*\|agent=kiln\|vm_id=9963f513-52bd-5041-9748-7190aae1ff21\|timestamp=.*\|documentation_url=https:\/\/aka\.ms\/linuxprovisioningerror$/,
  );
  const none = await crawl(t, {});
  assert.equal(none.outcome, undefined);
  assert.deepEqual(none.records, []);
});

test("25.1's primary-NIC check of the crawl's lease: one whose option 121 routes lead neither to IMDS nor to the wireserver is an ERROR and a failure PROVISIONING_REPORT (the success one follows); one routed to IMDS is neither", async (t) => {
  const network = (staticRoutes: StaticRoute[]): EphemeralNetwork => ({
    up: async () => ({ interface: 'eth0', staticRoutes, release: async () => undefined }),
  });
  const secondary = await crawl(t, TELEMETRY, {
    network: network([{ destination: '10.9.0.0/16', gateway: '10.0.0.1' }]),
  });
  assert.equal(secondary.outcome, undefined, 'the crawl goes on');
  const reports = secondary.records.filter((r) => r.key === 'PROVISIONING_REPORT').map((r) => r.value);
  assert.equal(reports.length, 2);
  // The routes as Python writes a list of tuples, quoted by the report's csv encoding (as 25.1's own report is).
  assert.match(
    reports[0] ?? '',
    /^result=error\|reason=failure to find primary DHCP interface\|agent=kiln\|interface=eth0\|'static_routes=\[\(''10\.9\.0\.0\/16'', ''10\.0\.0\.1''\)\]'\|vm_id=9963f513-52bd-5041-9748-7190aae1ff21\|timestamp=.*\|documentation_url=https:\/\/aka\.ms\/linuxprovisioningerror$/,
  );
  assert.match(reports[1] ?? '', /^result=success\|/);
  const diagnostics = secondary.records
    .filter((r) => r.key.includes('|diagnostic|'))
    .map((r) => (JSON.parse(r.value) as { msg: string }).msg);
  assert.match(
    diagnostics[0] ?? '',
    /^Azure: failure to find primary DHCP interface: the DHCP lease on eth0 routes 10\.9\.0\.0\/16 via 10\.0\.0\.1 \(option 121\), neither IMDS nor the wireserver 127\.0\.0\.1$/,
  );
  const primary = await crawl(t, TELEMETRY, {
    network: network([{ destination: '169.254.169.254/32', gateway: '10.0.0.1' }]),
  });
  assert.equal(primary.outcome, undefined);
  assert.deepEqual(
    primary.records.filter((r) => r.key === 'PROVISIONING_REPORT').map((r) => r.value.split('|')[0]),
    ['result=success'],
  );
  assert.ok(!primary.records.some((r) => r.value.includes('primary DHCP interface')));
});
