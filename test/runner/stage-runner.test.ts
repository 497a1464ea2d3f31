import assert from 'node:assert/strict';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { mkdirSync, readFileSync, readlinkSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { computeBootStatus, statusExitCode } from '../../src/runner/boot-status';
import { readBootStatus } from '../../src/runner/read-boot-status';
import type { RunnerDeps } from '../../src/runner/runner-deps';
import type { Datasource, InstanceData, SetupContext } from '../../src/sources/datasource';
import { exoscaleSource } from '../../src/sources/exoscale';
import { StageRunner } from '../../src/runner/stage-runner';
import { Logger, MemorySink } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { brokenSource, fakeDeps, fakeSource, recordingModule, type Recorder } from './fakes';

const CFG = `datasource_list: [Broken, Fake]
cloud_init_modules: [init_once_per_instance]
cloud_config_modules: [cfg_always, [cfg_override, always], cfg_once]
cloud_final_modules: [final_mod]
`;

function sandbox(t: Parameters<typeof tempDir>[0], iid = 'i-1', cfg = CFG): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'), cfg);
  setSeed(root, iid);
  return root;
}

function setSeed(root: string, iid: string, userData?: string): void {
  mkdirSync(join(root, 'seed/fake'), { recursive: true });
  writeFileSync(join(root, 'seed/fake/instance-id'), `${iid}\n`);
  if (userData !== undefined) writeFileSync(join(root, 'seed/fake/user-data'), userData);
}

function modulesFor(rec: Recorder, failing = false) {
  return [
    recordingModule(rec, 'init_once_per_instance', 'init', 'once-per-instance'),
    recordingModule(rec, 'cfg_always', 'config', 'always', failing ? { fail: true } : {}),
    recordingModule(rec, 'cfg_override', 'config', 'once-per-instance'),
    recordingModule(rec, 'cfg_once', 'config', 'once'),
    recordingModule(rec, 'final_mod', 'final', 'once-per-instance'),
  ];
}

async function boot(root: string, deps: RunnerDeps, logger = new Logger()) {
  const platform = new LinuxPlatform({ root, log: logger.for('platform') });
  const runner = new StageRunner({ platform, logger, deps });
  return runner.runAllStages();
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read nested values directly
function json(root: string, path: string): Record<string, any> {
  return JSON.parse(readFileSync(join(root, path), 'utf8'));
}

test('per-instance modules run on the first boot of an instance only; always every boot; once once ever', async (t) => {
  const root = sandbox(t);
  const rec: Recorder = { runs: [] };
  const deps = fakeDeps([brokenSource(), fakeSource()], modulesFor(rec));
  await boot(root, deps);
  assert.deepEqual(rec.runs, ['init_once_per_instance', 'cfg_always', 'cfg_override', 'cfg_once', 'final_mod']);
  rec.runs = [];
  await boot(root, deps);
  assert.deepEqual(
    rec.runs,
    ['cfg_always', 'cfg_override'],
    'same instance id: only always (and the [name, always] override)',
  );
  rec.runs = [];
  setSeed(root, 'i-2');
  await boot(root, deps);
  assert.deepEqual(
    rec.runs,
    ['init_once_per_instance', 'cfg_always', 'cfg_override', 'final_mod'],
    'new instance: per-instance again, once never again',
  );
  assert.equal(readFileSync(join(root, 'var/lib/cloud/data/previous-instance-id'), 'utf8'), 'i-2\n');
  assert.equal(readFileSync(join(root, 'var/lib/cloud/data/instance-id'), 'utf8'), 'i-2\n');
  assert.equal(readlinkSync(join(root, 'var/lib/cloud/instance')), '/var/lib/cloud/instances/i-2');
  assert.ok(existsSync(join(root, 'var/lib/cloud/instances/i-1/sem/config_init_once_per_instance')));
  assert.ok(existsSync(join(root, 'var/lib/cloud/sem/config_cfg_once.once')));
  assert.ok(!existsSync(join(root, 'var/lib/cloud/instances/i-2/sem/config_cfg_always')), 'always keeps no semaphore');
  assert.deepEqual(deps.network, ['i-1', 'i-2'], 'network config applied on the first boot of each instance only');
});

test('the files cloud-init writes, in their shapes and modes', async (t) => {
  const root = sandbox(t);
  setSeed(root, 'i-1', '#cloud-config\nfinal_mod: {x: 1}\npassword: topsecret\n');
  const rec: Recorder = { runs: [] };
  await boot(root, fakeDeps([brokenSource(), fakeSource()], modulesFor(rec)));
  const status = json(root, 'run/cloud-init/status.json');
  for (const s of ['init-local', 'init', 'modules-config', 'modules-final']) {
    assert.equal(typeof status.v1[s].start, 'number', s);
    assert.equal(typeof status.v1[s].finished, 'number', s);
    assert.ok(Array.isArray(status.v1[s].errors));
  }
  assert.equal(status.v1.stage, null);
  assert.deepEqual(
    Object.keys(status.v1)
      .filter((k) => k.startsWith('modules-'))
      .sort(),
    ['modules-config', 'modules-final'],
    '25.1 keeps no empty modules-init record (22.4 did)',
  );
  assert.equal(readlinkSync(join(root, 'run/cloud-init/status.json')), '../../var/lib/cloud/data/status.json');
  assert.equal(readlinkSync(join(root, 'run/cloud-init/result.json')), '../../var/lib/cloud/data/result.json');
  assert.equal(
    status.v1.datasource,
    'DataSourceFake',
    'a class without its own __str__: the class name alone, as cloud-init 22.4',
  );
  assert.match(
    status.v1['init-local'].recoverable_errors.WARNING[0],
    /^datasource Broken failed: metadata is corrupt$/,
  );
  const result = json(root, 'run/cloud-init/result.json');
  assert.deepEqual(
    Object.keys(result.v1).sort(),
    ['datasource', 'errors'],
    "25.1's result.json: the datasource and the errors only",
  );
  const sensitive = json(root, 'run/cloud-init/instance-data-sensitive.json');
  const open = json(root, 'run/cloud-init/instance-data.json');
  assert.equal(statSync(join(root, 'run/cloud-init/instance-data-sensitive.json')).mode & 0o777, 0o600);
  assert.equal(statSync(join(root, 'run/cloud-init/instance-data.json')).mode & 0o777, 0o644);
  assert.equal(statSync(join(root, 'run/cloud-init/combined-cloud-config.json')).mode & 0o777, 0o600);
  assert.equal(sensitive.v1.instance_id, 'i-1');
  assert.equal(sensitive.v1.cloud_id, 'fakecloud');
  assert.equal(sensitive.v1.region, 'r1');
  assert.deepEqual(sensitive.v1.public_ssh_keys, ['ssh-ed25519 AAAA test']);
  // merged_system_cfg is the system config, as cloud-init 25.1 writes it, and merged_cfg its deprecated copy; the
  // user's config is in combined-cloud-config.json, over the built-ins, with system_info and features (which 25.1
  // also adds to the sensitive instance data once user data is consumed).
  assert.match(sensitive.merged_system_cfg._doc, /^Merged cloud-init system config/);
  assert.match(sensitive.merged_cfg._doc, /^DEPRECATED: Use merged_system_cfg/);
  assert.equal(sensitive.merged_system_cfg.def_log_file, '/var/log/cloud-init.log');
  const combined = json(root, 'run/cloud-init/combined-cloud-config.json');
  assert.equal(combined.password, 'topsecret');
  assert.match(combined._doc, /^Aggregated cloud-config created by merging merged_system_cfg/);
  assert.deepEqual(combined.system_info.network, { renderers: null });
  assert.equal(combined.features.DEPRECATION_INFO_BOUNDARY, 'devel');
  assert.equal(combined.features.MANUAL_NETWORK_WAIT, true);
  assert.deepEqual(sensitive.features, combined.features);
  assert.deepEqual(sensitive.system_info, combined.system_info);
  assert.deepEqual(sensitive.sensitive_keys, ['merged_cfg', 'merged_system_cfg']);
  assert.equal(open.merged_cfg, 'redacted for non-root user');
  assert.equal(open.merged_system_cfg, 'redacted for non-root user');
  assert.equal(open.features, undefined, 'features and system_info go to the sensitive file only');
  assert.equal(open.ds.meta_data.admin_password, 'redacted for non-root user');
  assert.ok(!readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8').includes('topsecret'));
  assert.ok(!readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8').includes('hunter22secret'));
  assert.equal(readFileSync(join(root, 'run/cloud-init/cloud-id-fakecloud'), 'utf8'), 'fakecloud\n');
  assert.equal(readlinkSync(join(root, 'run/cloud-init/cloud-id')), '/run/cloud-init/cloud-id-fakecloud');
  assert.match(
    readFileSync(join(root, 'var/lib/cloud/instances/i-1/boot-finished'), 'utf8'),
    new RegExp(`^12\\.50 - .* - v\\. ${KILN_CLOUD_INIT_VERSION.replaceAll('.', '\\.')}\n$`),
  );
  assert.match(
    readFileSync(join(root, 'var/lib/cloud/instances/i-1/datasource'), 'utf8'),
    /^DataSourceFake: DataSourceFake\n$/,
  );
  assert.equal(statSync(join(root, 'var/lib/cloud/instances/i-1/user-data.txt')).mode & 0o777, 0o600);
  assert.match(readFileSync(join(root, 'var/log/cloud-init-output.log'), 'utf8'), /final_mod ran with \{"x":1\}/);
  const events = readFileSync(join(root, 'var/log/kiln-events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.ok(events.some((e) => e.name === 'modules-final/config-final_mod' && e.result === 'SUCCESS'));
});

test('a failing module does not stop the others; the boot ends in error (status exit 1)', async (t) => {
  const root = sandbox(t);
  const rec: Recorder = { runs: [] };
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const outcomes = await boot(root, fakeDeps([fakeSource()], modulesFor(rec, true)), logger);
  assert.deepEqual(rec.runs, ['init_once_per_instance', 'cfg_always', 'cfg_override', 'cfg_once', 'final_mod']);
  assert.deepEqual(outcomes.find((o) => o.stage === 'modules-config')?.errors, [
    "('cfg_always', Error('cfg_always exploded'))",
  ]);
  assert.ok(sink.lines.some((l) => /\[WARNING\]: Running module cfg_always failed/.test(l)));
  assert.ok(
    sink.lines.some((l) => l.includes('sees admin password REDACTED')),
    'the admin password is scrubbed from the log',
  );
  assert.ok(!sink.lines.some((l) => l.includes('adm1nSecretPw')));
  const platform = new LinuxPlatform({ root, log: new Logger().for('t') });
  const s = await readBootStatus(platform, fakeDeps([], []).embeddedConfig, '');
  assert.equal(s.running, 'done');
  assert.equal(s.status, 'error');
  assert.equal(s.extended_status, 'error - done');
  assert.equal(statusExitCode(s), 1);
  assert.deepEqual(json(root, 'run/cloud-init/result.json').v1.errors, [
    "('cfg_always', Error('cfg_always exploded'))",
  ]);
});

test('no datasource at all: the init stage fails and status says error (exit 1)', async (t) => {
  const root = sandbox(
    t,
    'unused',
    'datasource_list: [Fake]\ncloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  writeFileSync(join(root, 'seed/fake/instance-id'), '');
  const { rmSync } = await import('node:fs');
  rmSync(join(root, 'seed/fake/instance-id'));
  await boot(root, fakeDeps([fakeSource()], []));
  const status = json(root, 'run/cloud-init/status.json');
  assert.equal(status.v1.init.failed, undefined, 'the error itself says the stage failed, as in cloud-init');
  assert.match(status.v1.init.errors[0], /No instance datasource found/);
  const s = await readBootStatus(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined, '');
  assert.equal(s.status, 'error');
  assert.equal(statusExitCode(s), 1);
});

test('config merge: system < datasource < vendor < user; vendor_data: {enabled: false} drops vendor data', async (t) => {
  for (const disabled of [false, true]) {
    const root = sandbox(
      t,
      'i-1',
      `datasource_list: [Fake]\ncloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: [final_mod]\nfinal_mod: {a: sys, b: sys, c: sys, d: sys}\n`,
    );
    writeFileSync(join(root, 'seed/fake/ds-config'), 'final_mod: {b: ds, c: ds, d: ds}\n');
    writeFileSync(join(root, 'seed/fake/vendor-data'), '#cloud-config\nfinal_mod: {c: vendor, d: vendor}\n');
    writeFileSync(
      join(root, 'seed/fake/user-data'),
      `#cloud-config\nfinal_mod: {d: user}\n${disabled ? 'vendor_data: {enabled: false}\n' : ''}`,
    );
    const rec: Recorder = { runs: [] };
    await boot(root, fakeDeps([fakeSource()], modulesFor(rec)));
    const merged = json(root, 'run/cloud-init/combined-cloud-config.json');
    assert.deepEqual(
      merged.final_mod,
      disabled ? { a: 'sys', b: 'ds', c: 'ds', d: 'user' } : { a: 'sys', b: 'ds', c: 'vendor', d: 'user' },
    );
  }
});

test('kernel cmdline cc: … end_cc sits above the files; cloud-init=disabled and the marker file stop every stage', async (t) => {
  const root = sandbox(t);
  const rec: Recorder = { runs: [] };
  const cmdline = 'ro quiet cc: cloud_final_modules: [[init_once_per_instance, always], final_mod] end_cc';
  await boot(root, fakeDeps([fakeSource()], modulesFor(rec), { kernelCmdline: async () => cmdline }));
  assert.deepEqual(
    rec.runs.slice(-2),
    ['init_once_per_instance', 'final_mod'],
    'the final list comes from the kernel command line',
  );

  const off = sandbox(t);
  const rec2: Recorder = { runs: [] };
  const out = await boot(
    off,
    fakeDeps([fakeSource()], modulesFor(rec2), { kernelCmdline: async () => 'ro cloud-init=disabled' }),
  );
  assert.equal(out[0]?.disabled, true);
  assert.deepEqual(rec2.runs, []);
  assert.ok(!existsSync(join(off, 'run/cloud-init/status.json')));

  const marked = sandbox(t);
  writeFileSync(join(marked, 'etc/cloud/cloud-init.disabled'), '');
  const rec3: Recorder = { runs: [] };
  await boot(marked, fakeDeps([fakeSource()], modulesFor(rec3)));
  assert.deepEqual(rec3.runs, []);
  const s = await readBootStatus(new LinuxPlatform({ root: marked, log: new Logger().for('t') }), undefined, '');
  assert.equal(s.status, 'disabled');
  assert.equal(s.boot_status_code, 'disabled-by-marker-file');
});

test('manual_cache_clean trusts the cached instance even when the seed changes', async (t) => {
  const root = sandbox(t, 'i-1', `${CFG}manual_cache_clean: true\n`);
  const rec: Recorder = { runs: [] };
  const deps = fakeDeps([fakeSource()], modulesFor(rec));
  await boot(root, deps);
  assert.ok(existsSync(join(root, 'var/lib/cloud/instances/i-1/manual-clean')));
  setSeed(root, 'i-2');
  rec.runs = [];
  await boot(root, deps);
  assert.equal(readFileSync(join(root, 'var/lib/cloud/data/instance-id'), 'utf8'), 'i-1\n');
  assert.deepEqual(rec.runs, ['cfg_always', 'cfg_override']);
});

test('separate stage processes share state through the files (systemd units)', async (t) => {
  const root = sandbox(t);
  setSeed(root, 'i-1', '#cloud-config\nfinal_mod: {from: user}\n');
  const rec: Recorder = { runs: [] };
  const deps = fakeDeps([fakeSource()], modulesFor(rec));
  const statuses: string[] = [];
  for (const stage of ['init-local', 'init', 'modules-config', 'modules-final'] as const) {
    const logger = new Logger();
    const platform = new LinuxPlatform({ root, log: logger.for('p') });
    await new StageRunner({ platform, logger, deps }).runStage(stage);
    statuses.push((await readBootStatus(platform, undefined, '')).status);
  }
  assert.deepEqual(statuses, ['running', 'running', 'running', 'done']);
  assert.match(
    readFileSync(join(root, 'var/log/cloud-init-output.log'), 'utf8'),
    /final_mod ran with \{"from":"user"\}/,
  );
  assert.equal(
    readFileSync(join(root, 'var/lib/cloud/data/previous-instance-id'), 'utf8'),
    'i-1\n',
    'the init stage re-reads the id the local stage wrote, as cloud-init does',
  );
});

test('status as cloud-init 26.x computes it: running from status.json without result.json, error over degraded, disabled first', () => {
  const base = {
    resultExists: false,
    bootStatusCode: 'enabled-by-generator' as const,
    bootDescription: 'Cloud-init enabled by systemd cloud-init-generator',
  };
  const none = computeBootStatus({ ...base, v1: undefined });
  assert.deepEqual(
    [none.status, none.extended_status, none.detail, none.datasource, statusExitCode(none)],
    ['not started', 'not started', 'Cloud-init enabled by systemd cloud-init-generator', '', 0],
  );
  const stage = (
    start: number | null,
    finished: number | null,
    errors: string[] = [],
    recoverable_errors: Record<string, string[]> = {},
  ) => ({ start, finished, errors, recoverable_errors });
  const v1 = (final: ReturnType<typeof stage>, extra: Record<string, unknown> = {}) => ({
    datasource: 'DataSourceNone',
    stage: null,
    'init-local': stage(1, 2),
    init: stage(2, 3),
    'modules-config': stage(3, 4),
    'modules-final': final,
    ...extra,
  });
  const early = computeBootStatus({
    ...base,
    v1: { datasource: null, stage: 'init-local', 'init-local': stage(1, null) },
  });
  assert.deepEqual([early.status, early.detail, early.datasource], ['running', 'Running in stage: init-local', null]);
  const running = computeBootStatus({ ...base, v1: v1(stage(4, null)) });
  assert.deepEqual([running.status, running.extended_status, statusExitCode(running)], ['running', 'running', 0]);
  const done = computeBootStatus({ ...base, resultExists: true, v1: v1(stage(4, 5)) });
  assert.deepEqual(
    [done.status, done.extended_status, done.datasource, done.detail, done.lastUpdate, statusExitCode(done)],
    ['done', 'done', 'none', 'DataSourceNone', 5, 0],
  );
  assert.equal('datasource' in done.v1, false, 'datasource is shown once, shortened');
  const failed = computeBootStatus({ ...base, resultExists: true, v1: v1(stage(4, 5, ['x'], { WARNING: ['w'] })) });
  assert.deepEqual(
    [failed.status, failed.extended_status, failed.running, statusExitCode(failed)],
    ['error', 'error - done', 'done', 1],
  );
  const failing = computeBootStatus({ ...base, v1: v1(stage(4, null, ['x'])) });
  assert.deepEqual([failing.status, failing.extended_status, statusExitCode(failing)], ['error', 'error - running', 1]);
  const warned = computeBootStatus({ ...base, resultExists: true, v1: v1(stage(4, 5, [], { WARNING: ['w'] })) });
  assert.deepEqual([warned.status, warned.extended_status, statusExitCode(warned)], ['done', 'degraded done', 2]);
  const deprecated = computeBootStatus({ ...base, v1: v1(stage(4, null, [], { DEPRECATED: ['d'] })) });
  assert.deepEqual(
    [deprecated.status, deprecated.extended_status, statusExitCode(deprecated)],
    ['running', 'degraded running', 2],
  );
  // Errors of every stage, stages in sorted key order (init before init-local), levels merged.
  const many = computeBootStatus({
    ...base,
    resultExists: true,
    v1: {
      ...v1(stage(4, 5, ['final'], { WARNING: ['w2'] })),
      'init-local': stage(1, 2, ['local'], { WARNING: ['w1'] }),
      init: stage(2, 3, ['init']),
    },
  });
  assert.deepEqual(many.errors, ['init', 'local', 'final']);
  assert.deepEqual(many.recoverable_errors, { WARNING: ['w1', 'w2'] });
  const off = computeBootStatus({
    ...base,
    bootStatusCode: 'disabled-by-marker-file',
    bootDescription: 'Cloud-init disabled by /etc/cloud/cloud-init.disabled',
    v1: undefined,
  });
  assert.deepEqual(
    [off.status, off.detail, statusExitCode(off)],
    ['disabled', 'Cloud-init disabled by /etc/cloud/cloud-init.disabled', 0],
  );
});

test('prepare hooks: in --all-stages an init module is prepared before the source search on a root no instance has booted in, as soon as init-local knows the instance is new, again with the final config; separate stages prepare in their own stage only', async (t) => {
  const calls: string[] = [];
  const preparing = (rec: Recorder) => ({
    ...recordingModule(rec, 'init_once_per_instance', 'init', 'once-per-instance'),
    prepare(_ctx: unknown, cfg: Record<string, unknown>) {
      calls.push(`prepare ${JSON.stringify(cfg.marker ?? null)} after ${rec.runs.length} runs`);
    },
  });
  const rec: Recorder = { runs: [] };
  const root = sandbox(t);
  setSeed(root, 'i-1', '#cloud-config\nmarker: from-user-data\n');
  await boot(root, fakeDeps([fakeSource()], [preparing(rec), ...modulesFor(rec).slice(1)]));
  // No instance before: prepared from the system config before the search, then with the datasource's config
  // once the instance is known, then by the init stage itself with user data.
  assert.deepEqual(calls, [
    'prepare null after 0 runs',
    'prepare null after 0 runs',
    'prepare "from-user-data" after 0 runs',
  ]);

  // A second boot of the same instance: nothing new, so nothing is prepared early, and the module has run.
  calls.length = 0;
  await boot(root, fakeDeps([fakeSource()], [preparing(rec), ...modulesFor(rec).slice(1)]));
  assert.deepEqual(calls, []);

  // A new instance on a root that has booted before: not before the search (it might find the old instance),
  // but once the instance is known to be new.
  calls.length = 0;
  setSeed(root, 'i-3', '#cloud-config\nmarker: again\n');
  const before = rec.runs.length;
  await boot(root, fakeDeps([fakeSource()], [preparing(rec), ...modulesFor(rec).slice(1)]));
  assert.deepEqual(calls, [`prepare null after ${before} runs`, `prepare "again" after ${before} runs`]);

  // Stages in separate processes (the four systemd units): init-local prepares nothing for a later process.
  const root2 = sandbox(t, 'i-2');
  calls.length = 0;
  const logger = new Logger();
  const runner = new StageRunner({
    platform: new LinuxPlatform({ root: root2, log: logger.for('platform') }),
    logger,
    deps: fakeDeps([fakeSource()], [preparing({ runs: [] })]),
  });
  await runner.runStage('init-local');
  assert.deepEqual(calls, []);
  await runner.runStage('init');
  assert.deepEqual(calls, ['prepare null after 0 runs']);
});

test('release hook: work started ahead and not used is released once the modules of each stage ran, and when the run ends', async (t) => {
  const calls: string[] = [];
  const releasing = (rec: Recorder) => ({
    ...recordingModule(rec, 'init_once_per_instance', 'init', 'once-per-instance'),
    release() {
      calls.push(`release after ${rec.runs.length} runs`);
    },
  });
  const rec: Recorder = { runs: [] };
  const root = sandbox(t);
  setSeed(root, 'i-1');
  const logger = new Logger();
  const runner = new StageRunner({
    platform: new LinuxPlatform({ root, log: logger.for('platform') }),
    logger,
    deps: fakeDeps([fakeSource()], [releasing(rec), ...modulesFor(rec).slice(1)]),
  });
  await runner.runAllStages();
  // One release after each of the three module stages (each after more modules ran), one more when the run ends.
  const releasedAfter = calls.map((c) => Number(/^release after (\d+) runs$/.exec(c)?.[1]));
  assert.equal(releasedAfter.length, 4);
  assert.ok(
    (releasedAfter[0] as number) > 0 &&
      (releasedAfter[1] as number) > (releasedAfter[0] as number) &&
      (releasedAfter[2] as number) > (releasedAfter[1] as number),
  );
  assert.equal(releasedAfter[3], releasedAfter[2]);
});

test("at boot the distro comes from detect-distro's table: Linux Mint (ID_LIKE ubuntu) runs modules verified on ubuntu, and instance data names linuxmint", async (t) => {
  const root = sandbox(
    t,
    'i-mint',
    'datasource_list: [Fake]\ncloud_init_modules: [ubuntu_only, suse_only]\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  writeFileSync(join(root, 'etc/os-release'), readFileSync(join(FIXTURES, 'os-release', 'linuxmint-21.3'), 'utf8'));
  const rec: Recorder = { runs: [] };
  const deps = fakeDeps(
    [fakeSource()],
    [
      recordingModule(rec, 'ubuntu_only', 'init', 'once-per-instance', { distros: ['ubuntu'] }),
      recordingModule(rec, 'suse_only', 'init', 'once-per-instance', { distros: ['sles'] }),
    ],
  );
  await boot(root, deps);
  assert.deepEqual(rec.runs, ['ubuntu_only']);
  const data = json(root, 'run/cloud-init/instance-data.json');
  assert.equal(data.v1.distro, 'linuxmint');
  assert.equal(data.v1.distro_version, '21.3');
  assert.equal(data.v1.distro_release, 'virginia');
});

test("every WARNING logged during a stage is a recoverable error (degraded, exit 2), secrets scrubbed, as cloud-init's LogExporter", async (t) => {
  const root = sandbox(
    t,
    'i-1',
    'datasource_list: [Fake]\ncloud_init_modules: []\ncloud_config_modules: [loud]\ncloud_final_modules: []\n',
  );
  const loud = {
    ...recordingModule({ runs: [] }, 'loud', 'config', 'always'),
    async run(ctx: Parameters<ReturnType<typeof recordingModule>['run']>[0]) {
      ctx.log.info('only information');
      ctx.log.warn(`DEPRECATION: old key; the admin password is ${ctx.instance?.adminPassword ?? ''}`);
    },
  };
  await boot(root, fakeDeps([fakeSource()], [loud]));
  const status = json(root, 'run/cloud-init/status.json');
  assert.deepEqual(status.v1['modules-config'].recoverable_errors, {
    WARNING: ['DEPRECATION: old key; the admin password is REDACTED'],
  });
  assert.deepEqual(status.v1['modules-config'].errors, []);
  const s = await readBootStatus(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined, '');
  assert.deepEqual([s.status, s.extended_status, statusExitCode(s)], ['done', 'degraded done', 2]);
});

test('a listed module kiln does not implement is a WARNING naming it (degraded, exit 2); one cloud-init removed is INFO only', async (t) => {
  const root = sandbox(
    t,
    'i-1',
    'datasource_list: [Fake]\ncloud_init_modules: [migrator]\ncloud_config_modules: [snap, cfg_always]\ncloud_final_modules: []\n',
  );
  const rec: Recorder = { runs: [] };
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  await boot(root, fakeDeps([fakeSource()], modulesFor(rec)), logger);
  assert.deepEqual(rec.runs, ['cfg_always'], 'the other modules still run');
  const status = json(root, 'run/cloud-init/status.json');
  assert.deepEqual(status.v1['modules-config'].recoverable_errors.WARNING, [
    "Could not find module named cc_snap (kiln does not implement it; any 'snap' config is not applied)",
  ]);
  assert.deepEqual(status.v1.init.recoverable_errors, {}, 'migrator was removed from cloud-init itself: not a problem');
  assert.ok(sink.lines.some((l) => /\[INFO\]: Module `migrator` has been removed from cloud-init/.test(l)));
  const s = await readBootStatus(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined, '');
  assert.deepEqual([s.status, s.extended_status, statusExitCode(s)], ['done', 'degraded done', 2]);
});

test('an unknown frequency in a module list is a deprecation (degraded, exit 2): the module runs at its own frequency, the stage goes on', async (t) => {
  const root = sandbox(
    t,
    'i-1',
    'datasource_list: [Fake]\ncloud_init_modules: []\ncloud_config_modules: [[cfg_once, sometimes], cfg_always]\ncloud_final_modules: []\n',
  );
  const rec: Recorder = { runs: [] };
  await boot(root, fakeDeps([fakeSource()], modulesFor(rec)));
  assert.deepEqual(rec.runs, ['cfg_once', 'cfg_always']);
  assert.ok(existsSync(join(root, 'var/lib/cloud/sem/config_cfg_once.once')), "cfg_once's own frequency");
  const status = json(root, 'run/cloud-init/status.json');
  assert.deepEqual(status.v1['modules-config'].errors, []);
  assert.match(
    status.v1['modules-config'].recoverable_errors.DEPRECATED[0],
    /^Config specified module cfg_once has an unknown frequency sometimes is deprecated in 22\.1/,
  );
  const s = await readBootStatus(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined, '');
  assert.deepEqual([s.extended_status, statusExitCode(s)], ['degraded done', 2]);
});

test('init-local sets the hostname of a later boot from the cached user cloud-config too, as cloud-init does', async (t) => {
  // The first boot sets the meta-data hostname in init-local and the user's in the init stage's set_hostname
  // (per instance); on the next boot init-local must not put the meta-data one back for good.
  const root = sandbox(t, 'i-1', CFG.replace('[init_once_per_instance]', '[set_hostname]'));
  setSeed(root, 'i-1', '#cloud-config\nhostname: from-user-data\n');
  const seen: string[] = [];
  const setHostname = {
    ...recordingModule({ runs: [] }, 'set_hostname', 'init', 'once-per-instance'),
    async run(_ctx: unknown, cfg: Record<string, unknown>) {
      seen.push(String(cfg.hostname ?? 'meta-data'));
    },
  };
  await boot(root, fakeDeps([fakeSource()], [setHostname]));
  assert.deepEqual(seen, ['meta-data', 'from-user-data']);
  seen.length = 0;
  await boot(root, fakeDeps([fakeSource()], [setHostname]));
  assert.deepEqual(seen, ['from-user-data']);
});

test("modules get the found source's publishHostKeys with its settings from the config (ssh_publish_hostkeys); other sources give none", async (t) => {
  const root = sandbox(
    t,
    'i-1',
    'datasource_list: [Fake]\ndatasource: {Fake: {metadata_url: "http://127.0.0.1:9/"}}\ncloud_init_modules: [publisher]\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  const calls: Array<{ settings: Record<string, unknown>; iid: string; keys: unknown }> = [];
  const publishing = {
    ...fakeSource(),
    publishHostKeys: async (ctx: { settings: Record<string, unknown> }, data: { instanceId: string }, keys: unknown) =>
      void calls.push({ settings: ctx.settings, iid: data.instanceId, keys }),
  };
  const seen: boolean[] = [];
  const publisher = {
    ...recordingModule({ runs: [] }, 'publisher', 'init', 'always'),
    async run(ctx: import('../../src/modules/module').ModuleContext) {
      seen.push(ctx.publishHostKeys !== undefined);
      await ctx.publishHostKeys?.([{ type: 'ssh-ed25519', value: 'AAAA' }]);
    },
  };
  await boot(root, fakeDeps([publishing], [publisher]));
  assert.deepEqual(calls, [
    { settings: { metadata_url: 'http://127.0.0.1:9/' }, iid: 'i-1', keys: [{ type: 'ssh-ed25519', value: 'AAAA' }] },
  ]);
  const plain = sandbox(
    t,
    'i-2',
    'datasource_list: [Fake]\ncloud_init_modules: [publisher]\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  await boot(plain, fakeDeps([fakeSource()], [publisher]));
  assert.deepEqual(seen, [true, false]);
});

test("each stage in a process of its own names the source by the stage that found it (DataSourceEc2Local after the init stage's cache restore), as cloud-init's pickle keeps the class", async (t) => {
  const run = async (
    root: string,
    deps: RunnerDeps,
    stages: Array<'init-local' | 'init' | 'modules-config' | 'modules-final'>,
  ) => {
    for (const stage of stages) {
      const logger = new Logger();
      await new StageRunner({
        platform: new LinuxPlatform({ root, log: logger.for('platform') }),
        logger,
        deps,
      }).runStage(stage);
    }
  };
  const cfg = 'datasource_list: [Ec2]\ncloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: []\n';
  const local = sandbox(t, 'i-1', cfg);
  await run(local, fakeDeps([fakeSource('Ec2', 'local')], []), [
    'init-local',
    'init',
    'modules-config',
    'modules-final',
  ]);
  assert.equal(json(local, 'run/cloud-init/status.json').v1.datasource, 'DataSourceEc2Local');
  assert.equal(json(local, 'run/cloud-init/result.json').v1.datasource, 'DataSourceEc2Local');
  assert.equal(
    readFileSync(join(local, 'var/lib/cloud/instances/i-1/datasource'), 'utf8'),
    'DataSourceEc2Local: DataSourceEc2Local\n',
  );
  assert.equal(
    readFileSync(join(local, 'var/lib/cloud/data/previous-datasource'), 'utf8'),
    'DataSourceEc2Local: DataSourceEc2Local\n',
  );
  // Found only by the init stage (no init-local this boot): cloud-init's network class, DataSourceEc2.
  const network = sandbox(t, 'i-2', cfg);
  await run(network, fakeDeps([fakeSource('Ec2', 'local')], []), ['init', 'modules-config', 'modules-final']);
  assert.equal(json(network, 'run/cloud-init/status.json').v1.datasource, 'DataSourceEc2');
  assert.equal(
    readFileSync(join(network, 'var/lib/cloud/instances/i-2/datasource'), 'utf8'),
    'DataSourceEc2: DataSourceEc2\n',
  );
});

test("the init stage runs the found source's setup (cloud-init's setup_datasource) before user data, and instance-data.json shows what it added", async (t) => {
  const root = sandbox(
    t,
    'i-1',
    'datasource_list: [Fake]\ncloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  const calls: Array<string | undefined> = [];
  const base = fakeSource();
  const source = {
    ...base,
    async setup(_ctx: SetupContext, data: InstanceData) {
      calls.push(
        existsSync(join(root, 'run/cloud-init/status.json'))
          ? (json(root, 'run/cloud-init/status.json').v1.stage as string)
          : undefined,
      );
      return { ...data, metadata: { ...data.metadata, 'local-ipv4': '10.0.0.5' } };
    },
  };
  await boot(root, fakeDeps([source], []));
  assert.deepEqual(calls, ['init'], 'once, in the init stage');
  assert.equal(json(root, 'run/cloud-init/instance-data.json').ds.meta_data['local-ipv4'], '10.0.0.5');
});

test("a source's activate() may make per-instance modules run again on every boot of the same instance", async (t) => {
  const root = sandbox(t);
  const rec: Recorder = { runs: [] };
  const rerunning: Datasource = {
    ...fakeSource(),
    async activate(ctx) {
      await ctx.rerunModule('final_mod');
      await ctx.rerunModule('init_once_per_instance');
    },
  };
  const deps = fakeDeps([brokenSource(), rerunning], modulesFor(rec));
  await boot(root, deps);
  rec.runs = [];
  await boot(root, deps);
  assert.deepEqual(
    rec.runs,
    ['init_once_per_instance', 'cfg_always', 'cfg_override', 'final_mod'],
    'the per-instance modules it names ran again',
  );
});

test("Exoscale's activate(): set_passwords runs on every boot of the same instance (a console password reset applies at the next one); other per-instance modules do not", async (t) => {
  const root = sandbox(
    t,
    'i-1',
    `datasource_list: [Fake]
cloud_init_modules: [init_once_per_instance]
cloud_config_modules: [set_passwords]
cloud_final_modules: [final_mod]
`,
  );
  const rec: Recorder = { runs: [] };
  const exoscaleLike: Datasource = { ...fakeSource(), activate: exoscaleSource.activate };
  const modules = [
    recordingModule(rec, 'init_once_per_instance', 'init', 'once-per-instance'),
    recordingModule(rec, 'set_passwords', 'config', 'once-per-instance'),
    recordingModule(rec, 'final_mod', 'final', 'once-per-instance'),
  ];
  const deps = fakeDeps([exoscaleLike], modules);
  await boot(root, deps);
  assert.deepEqual(rec.runs, ['init_once_per_instance', 'set_passwords', 'final_mod']);
  for (const expected of [['set_passwords'], ['set_passwords']]) {
    rec.runs = [];
    await boot(root, deps);
    assert.deepEqual(rec.runs, expected, 'only set_passwords again');
  }
  assert.ok(
    existsSync(join(root, 'var/lib/cloud/instances/i-1/sem/config_set_passwords')),
    'its semaphore is written again after each run',
  );
});

test("the init stage validates the user's cloud-config as cloud-init 25.1: deprecations at DEPRECATED, errors as one WARNING without details, degraded done, every module still runs", async (t) => {
  const root = sandbox(t);
  setSeed(root, 'i-1', '#cloud-config\nhostnam: web1\nusers:\n  - default\n  - name: bob\n    lock-passwd: true\n');
  const rec: Recorder = { runs: [] };
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  await boot(root, fakeDeps([fakeSource()], modulesFor(rec)), logger);
  assert.deepEqual(
    rec.runs,
    ['init_once_per_instance', 'cfg_always', 'cfg_override', 'cfg_once', 'final_mod'],
    'the typo stops nothing',
  );
  const init = json(root, 'run/cloud-init/status.json').v1.init;
  // The words of Debian 13's cloud-init 25.1.4 on the same cloud-config (its validate_cloudconfig_schema, run in the
  // trixie rootfs).
  assert.deepEqual(init.recoverable_errors.DEPRECATED, [
    'Deprecated cloud-config provided: users.1.lock-passwd:  Deprecated in version 22.3. Use **lock_passwd** instead.',
  ]);
  assert.deepEqual(init.recoverable_errors.WARNING, [
    "cloud-config failed schema validation! You may run 'sudo cloud-init schema --system' to check the details.",
  ]);
  assert.ok(
    !sink.lines.some((l) => l.includes('hostnam') && l.includes('schema')),
    'no details: user data may hold secrets',
  );
  const s = await readBootStatus(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined, '');
  assert.deepEqual([s.status, s.extended_status, statusExitCode(s)], ['done', 'degraded done', 2]);
});

test('a valid cloud-config, or none, leaves the boot clean', async (t) => {
  for (const userData of ['#cloud-config\nhostname: web1\nusers: [default]\n', undefined]) {
    const root = sandbox(t);
    if (userData !== undefined) setSeed(root, 'i-1', userData);
    await boot(root, fakeDeps([fakeSource()], modulesFor({ runs: [] })));
    const init = json(root, 'run/cloud-init/status.json').v1.init;
    assert.deepEqual(init.recoverable_errors, {}, String(userData));
  }
});
