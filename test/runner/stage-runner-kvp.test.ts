// The runner's reporting events in Hyper-V KVP: a boot on a sandbox root with a hyperv handler leaves the stage and
// module records cloud-init 22.4 leaves (records compared byte for byte with 22.4's handler in the Debian rootfs), none
// without one.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { parseEventLog } from '../../src/runner/event-log';
import type { RunnerDeps } from '../../src/runner/runner-deps';
import { StageRunner } from '../../src/runner/stage-runner';
import { KVP_KEY_SIZE, KVP_VALUE_SIZE, KvpTelemetry, kvpRecord, readKvpRecords } from '../../src/sources/azure/kvp';
import { Logger } from '../../src/util/log';
import { runCloudInitPython } from '../helpers/cloud-init-python';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import type { Datasource } from '../../src/sources/datasource';
import { SourceError } from '../../src/sources/source-error';
import { brokenSource, fakeDeps, fakeSource, recordingModule, type Recorder } from './fakes';

const MODULES = `datasource_list: [Fake]
cloud_init_modules: [init_mod]
cloud_config_modules: [cfg_mod]
cloud_final_modules: [final_mod]
`;
const POOL = 'var/lib/hyperv/.kvp_pool_1';
const RECORD = KVP_KEY_SIZE + KVP_VALUE_SIZE;

function sandbox(t: TestContext, reporting: string): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'), MODULES + reporting);
  mkdirSync(join(root, 'seed/fake'), { recursive: true });
  writeFileSync(join(root, 'seed/fake/instance-id'), 'i-kvp\n');
  // hv_kvp_daemon makes the folder (and the pool) on a Hyper-V guest; the runner writes into it, never makes it.
  mkdirSync(join(root, 'var/lib/hyperv'), { recursive: true });
  return root;
}

function deps(rec: Recorder): RunnerDeps {
  return fakeDeps(
    [fakeSource()],
    [
      recordingModule(rec, 'init_mod', 'init', 'once-per-instance'),
      recordingModule(rec, 'cfg_mod', 'config', 'always'),
      recordingModule(rec, 'final_mod', 'final', 'once-per-instance', { fail: true }),
    ],
    {
      reportingHandlers: (platform, config, log) => KvpTelemetry.fromConfig(platform, config, log),
    },
  );
}

async function bootAll(root: string, d: RunnerDeps): Promise<void> {
  const logger = new Logger();
  await new StageRunner({
    platform: new LinuxPlatform({ root, log: logger.for('platform') }),
    logger,
    deps: d,
  }).runAllStages();
}

/** Each stage in a process of its own, as the four systemd units run them. */
async function bootInStages(root: string, d: RunnerDeps): Promise<void> {
  for (const stage of ['init-local', 'init', 'modules-config', 'modules-final'] as const) {
    const logger = new Logger();
    await new StageRunner({
      platform: new LinuxPlatform({ root, log: logger.for('platform') }),
      logger,
      deps: d,
    }).runStage(stage);
  }
}

interface Parsed {
  key: string[];
  value: Record<string, unknown>;
}

function pool(root: string, path = POOL): Parsed[] {
  const bytes = readFileSync(join(root, path));
  assert.equal(bytes.length % RECORD, 0, 'whole records only');
  return readKvpRecords(bytes).map((r) => ({
    key: r.key.split('|'),
    value: JSON.parse(r.value) as Record<string, unknown>,
  }));
}

const EXPECTED = [
  'start init-local/search-Fake',
  'finish init-local/search-Fake',
  'finish init-local',
  'start init-network/config-init_mod',
  'finish init-network/config-init_mod',
  'finish init-network',
  'start modules-config/config-cfg_mod',
  'finish modules-config/config-cfg_mod',
  'finish modules-config',
  'start modules-final/config-final_mod',
  'finish modules-final/config-final_mod',
  'finish modules-final',
];

test("a boot with a hyperv reporting handler: every stage's finish, the datasource search's and every module's start and finish in the pool, in 22.4's key and value shapes; a pool from an earlier boot is emptied first", async (t) => {
  const root = sandbox(t, 'reporting:\n  logging: {type: log}\n  telemetry: {type: hyperv}\n');
  writeFileSync(join(root, POOL), kvpRecord('OLD', 'an earlier boot'));
  utimesSync(join(root, POOL), new Date(Date.now() - 86_400_000), new Date(Date.now() - 86_400_000));
  await bootAll(root, deps({ runs: [] }));
  const records = pool(root);
  assert.deepEqual(
    records.map((r) => `${r.key[2]} ${r.key[3]}`),
    EXPECTED,
    "a stage's own start event is sent before cloud-init reads the reporting config, so KVP never has it",
  );
  const hostBoot = Date.now() / 1000 - Number.parseFloat(readFileSync('/proc/uptime', 'utf8'));
  for (const r of records) {
    assert.equal(r.key.length, 5);
    assert.equal(r.key[0], 'CLOUD_INIT');
    assert.ok(Math.abs(Number(r.key[1]) - hostBoot) <= 2, `incarnation ${r.key[1]} is the boot time`);
    assert.match(r.key[4] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(
      Object.keys(r.value),
      r.key[2] === 'finish' ? ['name', 'type', 'ts', 'result', 'msg'] : ['name', 'type', 'ts', 'msg'],
    );
    assert.equal(r.value.name, r.key[3]);
    assert.equal(r.value.type, r.key[2]);
    assert.match(String(r.value.ts), /^2026-01-01T00:00:00\.\d{6}Z$/, "the event's own time, from the runner's clock");
  }
  const byName = new Map(records.filter((r) => r.key[2] === 'finish').map((r) => [r.key[3], r.value]));
  assert.deepEqual(byName.get('init-local/search-Fake'), {
    ...byName.get('init-local/search-Fake'),
    result: 'SUCCESS',
    msg: 'found local data from DataSourceFake',
  });
  assert.equal(byName.get('modules-final/config-final_mod')?.result, 'FAIL');
  assert.equal(
    byName.get('modules-final/config-final_mod')?.msg,
    'running config-final_mod with frequency once-per-instance',
    "22.4's message for a module that raised: its start description",
  );
  assert.equal(byName.get('init-network/config-init_mod')?.result, 'SUCCESS');
});

test('each stage in a process of its own: the same records, the stale pool emptied once (by the first stage), and event_types and kvp_file_path honoured', async (t) => {
  const root = sandbox(
    t,
    "reporting:\n  kvp: {type: hyperv, kvp_file_path: /var/lib/hyperv/other_pool, event_types: ['finish']}\n",
  );
  const other = 'var/lib/hyperv/other_pool';
  writeFileSync(join(root, other), kvpRecord('OLD', 'an earlier boot'));
  utimesSync(join(root, other), new Date(Date.now() - 86_400_000), new Date(Date.now() - 86_400_000));
  await bootInStages(root, deps({ runs: [] }));
  assert.ok(!existsSync(join(root, POOL)), 'the default pool is not written when kvp_file_path names another');
  assert.deepEqual(
    pool(root, other).map((r) => `${r.key[2]} ${r.key[3]}`),
    EXPECTED.filter((e) => e.startsWith('finish ')),
  );
});

test('without a hyperv reporting handler (or with it set to null) the boot writes no pool file at all', async (t) => {
  for (const reporting of ['', 'reporting: {logging: {type: log}}\n', 'reporting: {telemetry: null}\n']) {
    const root = sandbox(t, reporting);
    await bootAll(root, deps({ runs: [] }));
    assert.ok(existsSync(join(root, 'var/lib/cloud/instances/i-kvp/boot-finished')), 'the boot ran');
    assert.ok(!existsSync(join(root, POOL)), `no pool with ${JSON.stringify(reporting)}`);
  }
});

test("the runner's records are byte for byte what 22.4's HyperVKvpReportingHandler writes for the same events (run in the Debian rootfs)", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const rootfs = ensureDebianRootfs();
  const root = sandbox(t, 'reporting:\n  telemetry: {type: hyperv}\n');
  await bootAll(root, deps({ runs: [] }));
  const ours = readFileSync(join(root, POOL));
  const keys = readKvpRecords(ours).map((r) => r.key.split('|'));
  // The events the runner logged, less the stages' start events (sent before cloud-init registers the handler).
  const events = parseEventLog(readFileSync(join(root, 'var/log/kiln-events.jsonl'), 'utf8')).filter(
    (e) => !(e.event_type === 'start' && !e.name.includes('/')),
  );
  assert.equal(events.length, keys.length);
  const script = [
    'import base64, json, sys, tempfile, uuid',
    'from cloudinit.reporting.handlers import HyperVKvpReportingHandler as H',
    'from cloudinit.reporting.events import ReportingEvent, FinishReportingEvent',
    'args = json.loads(sys.argv[1])',
    'uuids = iter(args["uuids"])',
    // 22.4 draws a random uuid per event: the runner's own, in order, so the keys can be compared.
    'uuid.uuid4 = lambda: next(uuids)',
    'pool = tempfile.mktemp()',
    'open(pool, "wb").close()',
    'h = H.__new__(H)',
    'h._kvp_file_path = pool',
    'h._event_types = None',
    'h.event_key_prefix = args["prefix"]',
    'for e in args["events"]:',
    '    if e["event_type"] == "finish":',
    '        ev = FinishReportingEvent(e["name"], e["description"], e["result"])',
    '    else:',
    '        ev = ReportingEvent(e["event_type"], e["name"], e["description"])',
    '    ev.timestamp = e["timestamp"]',
    '    if not h._event_types or ev.event_type in h._event_types:',
    '        h._append_kvp_item(h._encode_event(ev))',
    'sys.stdout.write(base64.b64encode(open(pool, "rb").read()).decode())',
  ].join('\n');
  const input = { prefix: `CLOUD_INIT|${keys[0]?.[1]}`, uuids: keys.map((k) => k[4]), events };
  const theirs = Buffer.from(runCloudInitPython(rootfs, script, JSON.stringify(input)), 'base64');
  assert.equal(theirs.length, ours.length);
  assert.ok(theirs.equals(ours), 'the pool files are identical');
});

test("the datasource search's events name 22.4's class for the stage: a source's own 'not here' is SUCCESS with 'no … data found', one that threw something else FAIL", async (t) => {
  const root = sandbox(t, '');
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'), MODULES.replace('[Fake]', '[Absent, Broken, Fake]'));
  const absent: Datasource = {
    name: 'Absent',
    kind: 'local',
    detect: async () => true,
    crawl: async () => Promise.reject(new SourceError('Absent', 'no seed here')),
  };
  const d = fakeDeps([absent, brokenSource(), fakeSource()], []);
  await bootAll(root, d);
  const events = parseEventLog(readFileSync(join(root, 'var/log/kiln-events.jsonl'), 'utf8')).filter((e) =>
    e.name.includes('/search-'),
  );
  assert.deepEqual(
    events.map((e) => [e.event_type, e.name, e.description, e.result ?? '']),
    [
      ['start', 'init-local/search-Absent', 'searching for local data from DataSourceAbsent', ''],
      ['finish', 'init-local/search-Absent', 'no local data found from DataSourceAbsent', 'SUCCESS'],
      ['start', 'init-local/search-Broken', 'searching for local data from DataSourceBroken', ''],
      ['finish', 'init-local/search-Broken', 'no local data found from DataSourceBroken', 'FAIL'],
      ['start', 'init-local/search-Fake', 'searching for local data from DataSourceFake', ''],
      ['finish', 'init-local/search-Fake', 'found local data from DataSourceFake', 'SUCCESS'],
    ],
  );
});

test('a module its semaphore stops is still reported, as cloud-init does: started, then finished as "previously ran"', async (t) => {
  const root = sandbox(t, 'reporting:\n  telemetry: {type: hyperv}\n');
  const d = deps({ runs: [] });
  await bootAll(root, d);
  const first = pool(root).length;
  await bootAll(root, d);
  const again = pool(root).slice(first);
  const initMod = again.filter((r) => r.key[3] === 'init-network/config-init_mod');
  assert.deepEqual(
    initMod.map((r) => [r.key[2], r.value.msg, r.value.result ?? '']),
    [
      ['start', 'running config-init_mod with frequency once-per-instance', ''],
      ['finish', 'config-init_mod previously ran', 'SUCCESS'],
    ],
  );
});
