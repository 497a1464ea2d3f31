// The cloudbase-init flow against the Win32 layer faked at the binding boundary: stages, state, discovery, reboots.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import type { Plugin } from '../../src/plugins/plugin';
import { pluginsKey } from '../../src/plugins/plugin-state';
import { runCloudbaseInit, SYSPREP_KEY, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import { CLOUDBASE_SERVICES_PACKAGE, sourceService } from '../../src/sources/cloudbase-metadata-service';
import type { Datasource, InstanceData } from '../../src/sources/datasource';
import { CLOUDBASE_SERVICES } from '../../src/sources/registry';
import { Logger, MemorySink } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const CD = 'cloudbaseinit.metadata.services.configdrive.ConfigDriveService';
const EC2 = 'cloudbaseinit.metadata.services.ec2service.EC2Service';
const GCE = 'cloudbaseinit.metadata.services.gceservice.GCEService';

function source(name: string, instance: Partial<InstanceData> | undefined, seen: string[] = []): Datasource {
  return {
    name,
    kind: 'local',
    detect: async () => {
      seen.push(name);
      return instance !== undefined;
    },
    crawl: async () => ({
      instanceId: 'i-0123',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'config-disk (D:\\)',
      publicKeys: [],
      metadata: {},
      ...instance,
    }),
  };
}

/** Every registered service, with its settings and route, reading through the test's fake datasource of its cloud. */
const THROUGH_FAKES = CLOUDBASE_SERVICES.map((s) =>
  sourceService(s.classPath.slice(CLOUDBASE_SERVICES_PACKAGE.length), s.datasource, {
    settings: s.settings,
    ...(s.routeSection ? { routeSection: s.routeSection } : {}),
  }),
);

function setup(conf: string, datasources: Datasource[], win = new FakeWindows()) {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const files = new FakeFiles();
  const deps: CloudbaseRunnerDeps = {
    platform: files,
    windows: win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: conf }]),
    sources: datasources,
    services: THROUGH_FAKES,
    finder: { find: async () => [] },
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows' },
    sleep: async () => undefined,
  };
  return { deps, win, files, sink };
}

const BASE = `[DEFAULT]\nmetadata_services=${CD}\nplugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.windows.createuser.CreateUserPlugin\nusername=kiln\ngroups=Administrators\nallow_reboot=false\n`;

test('MAIN plugins run, their state is written under the instance id, and a second run honours it', async () => {
  const { deps, win } = setup(BASE, [source('ConfigDrive', { localHostname: 'web-01.example.com' })]);
  const first = await runCloudbaseInit(deps);
  assert.deepEqual(first.errors, []);
  assert.equal(first.service?.datasource, 'ConfigDrive');
  assert.deepEqual(
    first.plugins.map((p) => [p.name, p.outcome]),
    [
      ['SetHostNamePlugin', 'done'],
      ['CreateUserPlugin', 'done'],
    ],
  );
  assert.equal(
    first.rebootSuppressed,
    true,
    'the host name change asks for a reboot, which allow_reboot=false suppresses',
  );
  assert.deepEqual(win.getValue('HKLM', pluginsKey('i-0123'), 'SetHostNamePlugin'), { type: 'REG_DWORD', data: 1 });
  assert.deepEqual(
    win.getValue('HKLM', 'SOFTWARE\\Cloudbase Solutions\\Cloudbase-Init\\i-0123\\Plugins', 'CreateUserPlugin'),
    { type: 'REG_DWORD', data: 1 },
  );
  assert.ok(win.users.has('kiln'));
  assert.deepEqual(win.groups.get('administrators'), ['kiln']);

  const calls = win.calls.length;
  const second = await runCloudbaseInit(deps);
  assert.deepEqual(
    second.plugins.map((p) => p.outcome),
    ['already-done', 'already-done'],
  );
  assert.equal(win.calls.length, calls, 'nothing is called again');
});

test('a new instance id runs the plugins again', async () => {
  const win = new FakeWindows();
  await runCloudbaseInit(setup(BASE, [source('ConfigDrive', {})], win).deps);
  const again = await runCloudbaseInit(setup(BASE, [source('ConfigDrive', { instanceId: 'i-other' })], win).deps);
  assert.deepEqual(
    again.plugins.map((p) => p.outcome),
    ['done', 'done'],
  );
  assert.equal(again.instanceId, 'i-other');
});

test('metadata services are tried in order; those kiln lacks are skipped with a clear warning', async () => {
  const seen: string[] = [];
  const { deps } = setup(BASE.replace(`metadata_services=${CD}`, `metadata_services=${GCE},${EC2},${CD}`), [
    source('Ec2', undefined, seen),
    source('ConfigDrive', {}, seen),
  ]);
  const r = await runCloudbaseInit(deps);
  assert.deepEqual(seen, ['Ec2', 'ConfigDrive']);
  assert.equal(r.service?.classPath, CD);
  assert.match(r.warnings.join('\n'), /GCEService needs kiln's GCE datasource, which this build does not have yet/);
});

test('no metadata: MAIN does not run and the error says what was tried', async () => {
  const { deps } = setup(BASE, [source('ConfigDrive', undefined)]);
  const r = await runCloudbaseInit(deps);
  assert.deepEqual(r.plugins, []);
  assert.match(r.errors.join('\n'), /No available metadata service found \(tried ConfigDriveService\)/);
});

test('a failing metadata service is reported and the next one is tried', async () => {
  const broken: Datasource = {
    ...source('Ec2', {}),
    crawl: async () => Promise.reject(new Error('meta_data.json: unexpected end of JSON input')),
  };
  const { deps } = setup(BASE.replace(`metadata_services=${CD}`, `metadata_services=${EC2},${CD}`), [
    broken,
    source('ConfigDrive', {}),
  ]);
  const r = await runCloudbaseInit(deps);
  assert.equal(r.service?.datasource, 'ConfigDrive');
  assert.match(r.errors.join('\n'), /EC2Service: meta_data.json: unexpected end/);
});

test('HTTP services are tried whatever DMI says, as cloudbase-init does; one that does not answer there is no error', async () => {
  const crawled: string[] = [];
  const http = (name: string, ok: boolean): Datasource => ({
    name,
    kind: 'network',
    detect: async () => false,
    crawl: async () => {
      crawled.push(name);
      if (!ok) throw new Error('connect ECONNREFUSED 127.0.0.1:9');
      return {
        instanceId: 'i-gce',
        cloudName: 'gce',
        platform: 'gce',
        subplatform: 'metadata (http://127.0.0.1/)',
        publicKeys: [],
        metadata: {},
      };
    },
  });
  const { deps, sink } = setup(BASE.replace(`metadata_services=${CD}`, `metadata_services=${EC2},${GCE},${CD}`), [
    http('Ec2', false),
    http('GCE', true),
    source('ConfigDrive', {}),
  ]);
  const r = await runCloudbaseInit(deps);
  assert.deepEqual(crawled, ['Ec2', 'GCE']);
  assert.equal(r.service?.classPath, GCE);
  assert.equal(r.instanceId, 'i-gce');
  assert.deepEqual(r.errors, []);
  assert.match(
    sink.lines.join(''),
    /Metadata service cloudbaseinit\.metadata\.services\.ec2service\.EC2Service not available: .*ECONNREFUSED/,
  );
});

test('unknown plugins are reported, the others run', async () => {
  const conf = BASE.replace(
    'plugins=',
    'plugins=cloudbaseinit.plugins.windows.certificates.ServerCertificatesPlugin,nope.Nope,',
  );
  const r = await runCloudbaseInit(setup(conf, [source('ConfigDrive', {})]).deps);
  assert.deepEqual(
    r.warnings.filter((w) => /not implemented/.test(w)),
    [],
  );
  assert.match(r.errors.join('\n'), /unknown plugin 'nope.Nope'/);
  assert.deepEqual(r.plugins.map((p) => p.name).slice(0, 1), ['ServerCertificatesPlugin']);
  assert.equal(r.plugins.length, 3);
});

function fakePlugin(
  name: string,
  results: Array<{ status: 'done' | 'next-boot'; reboot: boolean }>,
  stage: Plugin['stage'] = 'main',
): Plugin & { runs: number } {
  const p = {
    classPath: `test.${name}`,
    name,
    stage,
    runs: 0,
    async execute() {
      const r = results[Math.min(p.runs, results.length - 1)] as { status: 'done' | 'next-boot'; reboot: boolean };
      p.runs++;
      return r;
    },
  };
  return p;
}

test('run-next-boot (2) runs the plugin again; a reboot stops the stage when allowed', async () => {
  const again = fakePlugin('AgainPlugin', [
    { status: 'next-boot', reboot: false },
    { status: 'done', reboot: false },
  ]);
  const rebooter = fakePlugin('RebootPlugin', [{ status: 'done', reboot: true }]);
  const after = fakePlugin('AfterPlugin', [{ status: 'done', reboot: false }]);
  const extra = [again, rebooter, after];
  {
    const conf = `[DEFAULT]\nmetadata_services=${CD}\nplugins=test.AgainPlugin,test.RebootPlugin,test.AfterPlugin\n`;
    const { deps, win } = setup(conf, [source('ConfigDrive', {})]);
    deps.plugins = extra;
    const r1 = await runCloudbaseInit(deps);
    assert.deepEqual(win.getValue('HKLM', pluginsKey('i-0123'), 'AgainPlugin'), { type: 'REG_DWORD', data: 2 });
    assert.equal(r1.rebooting, true);
    assert.equal(after.runs, 0, 'plugins after a reboot request wait for the next boot');
    assert.equal(win.shutdowns.length, 1);
    assert.ok(win.privileges.includes('SeShutdownPrivilege'));
    const r2 = await runCloudbaseInit(deps);
    assert.deepEqual(
      r2.plugins.map((p) => [p.name, p.outcome]),
      [
        ['AgainPlugin', 'done'],
        ['RebootPlugin', 'already-done'],
        ['AfterPlugin', 'done'],
      ],
    );
    assert.equal(again.runs, 2);
  }
});

test('the reboot-loop guard stops a plugin that asks for reboot and run-again too many times in a row', async () => {
  const looper = fakePlugin('LoopPlugin', [{ status: 'next-boot', reboot: true }]);
  const extra = [looper];
  {
    const conf = `[DEFAULT]\nmetadata_services=${CD}\nplugins=test.LoopPlugin\nmax_consecutive_reboots=2\n`;
    const { deps, win } = setup(conf, [source('ConfigDrive', {})]);
    deps.plugins = extra;
    assert.equal((await runCloudbaseInit(deps)).rebooting, true);
    assert.equal((await runCloudbaseInit(deps)).rebooting, true);
    const third = await runCloudbaseInit(deps);
    assert.equal(third.rebooting, false);
    assert.equal(third.plugins[0]?.outcome, 'stopped');
    assert.match(third.plugins[0]?.error ?? '', /3 times in a row \(max_consecutive_reboots=2\)/);
    assert.deepEqual(win.getValue('HKLM', pluginsKey('i-0123'), 'LoopPlugin'), { type: 'REG_DWORD', data: 1 });
    assert.equal((await runCloudbaseInit(deps)).plugins[0]?.outcome, 'already-done');
    assert.equal(win.shutdowns.length, 2);
  }
});

test('a failing plugin is reported, leaves no state and runs again next time', async () => {
  const failing: Plugin = {
    classPath: 'test.FailPlugin',
    name: 'FailPlugin',
    stage: 'main',
    execute: async () => Promise.reject(new Error('no disk')),
  };
  const extra = [failing];
  {
    const { deps, win } = setup(`[DEFAULT]\nmetadata_services=${CD}\nplugins=test.FailPlugin\n`, [
      source('ConfigDrive', {}),
    ]);
    deps.plugins = extra;
    const r = await runCloudbaseInit(deps);
    assert.deepEqual(
      r.plugins.map((p) => [p.outcome, p.error]),
      [['failed', 'no disk']],
    );
    assert.equal(win.getValue('HKLM', pluginsKey('i-0123'), 'FailPlugin'), undefined);
  }
});

test("plugins before metadata discovery keep no state and run at every boot, as cloudbase-init's (no instance id yet)", async () => {
  const early = fakePlugin('EarlyPlugin', [{ status: 'done', reboot: false }], 'pre-networking');
  const discovery = fakePlugin('DiscoveryPlugin', [{ status: 'done', reboot: false }], 'pre-metadata-discovery');
  const win = new FakeWindows();
  for (const boot of [1, 2]) {
    const { deps } = setup(
      `[DEFAULT]\nmetadata_services=${CD}\nplugins=test.EarlyPlugin,test.DiscoveryPlugin\n`,
      [source('ConfigDrive', {})],
      win,
    );
    deps.plugins = [early, discovery];
    const r = await runCloudbaseInit(deps);
    assert.deepEqual(
      r.plugins.map((p) => [p.name, p.outcome]),
      [
        ['EarlyPlugin', 'done'],
        ['DiscoveryPlugin', 'done'],
      ],
      `boot ${boot}`,
    );
  }
  assert.equal(early.runs, 2);
  assert.equal(discovery.runs, 2);
  assert.equal(
    win.getValue('HKLM', pluginsKey(undefined), 'EarlyPlugin'),
    undefined,
    'nothing under ...\\Cloudbase-Init\\Plugins',
  );
  assert.equal(win.getValue('HKLM', pluginsKey(undefined), 'DiscoveryPlugin'), undefined);
});

test('waits for sysprep GeneralizationState 7', async () => {
  const win = new FakeWindows();
  win.setValue('HKLM', SYSPREP_KEY, 'GeneralizationState', { type: 'REG_DWORD', data: 4 });
  const { deps } = setup(BASE, [source('ConfigDrive', {})], win);
  let sleeps = 0;
  deps.sleep = async () => {
    sleeps++;
    if (sleeps === 3) win.setValue('HKLM', SYSPREP_KEY, 'GeneralizationState', { type: 'REG_DWORD', data: 7 });
  };
  const r = await runCloudbaseInit(deps);
  assert.equal(sleeps, 3);
  assert.equal(r.plugins.length, 2);
});

test('MAIN plugins see the found service: the OpenStack HttpService takes a password, a config drive does not', async () => {
  const HTTP = 'cloudbaseinit.metadata.services.httpservice.HttpService';
  const seen: Array<{ classPath?: string; canPost: boolean }> = [];
  const probe: Plugin = {
    classPath: 'test.ProbePlugin',
    name: 'ProbePlugin',
    stage: 'main',
    async execute(ctx) {
      seen.push({ classPath: ctx.service?.classPath, canPost: typeof ctx.service?.postPassword === 'function' });
      return { status: 'next-boot', reboot: false };
    },
  };
  for (const [service, ds] of [
    [HTTP, 'OpenStack'],
    [CD, 'ConfigDrive'],
  ] as const) {
    const { deps } = setup(
      `[DEFAULT]\nmetadata_services=${service}\nplugins=test.ProbePlugin\n[openstack]\nmetadata_base_url=http://127.0.0.1:9/\n`,
      [source(ds, {})],
    );
    deps.plugins = [probe];
    await runCloudbaseInit(deps);
  }
  assert.deepEqual(seen, [
    { classPath: 'cloudbaseinit.metadata.services.httpservice.HttpService', canPost: true },
    { classPath: CD, canPost: false },
  ]);
});
