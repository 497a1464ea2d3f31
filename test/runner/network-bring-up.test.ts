// The runner asks for bring-up only where cloud-init does: the network stage applying a config (a source first found
// there, or none at all), never init-local, never with disable_network_activation; and it prints the ci-info tables.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { NetworkInput, RunnerDeps } from '../../src/runner/runner-deps';
import { StageRunner } from '../../src/runner/stage-runner';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { fakeDeps, fakeSource } from './fakes';

function root(t: Parameters<typeof tempDir>[0], cfg: string, seeds: Record<string, string>): string {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(dir, 'etc/cloud/cloud.cfg.d/50-test.cfg'),
    `cloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: []\n${cfg}`,
  );
  for (const [seed, iid] of Object.entries(seeds)) {
    mkdirSync(join(dir, seed), { recursive: true });
    writeFileSync(join(dir, seed, 'instance-id'), `${iid}\n`);
  }
  return dir;
}

function recordingNetwork(): {
  calls: Array<Pick<NetworkInput, 'stage' | 'bringUp'> & { iid?: string }>;
  deps: Partial<RunnerDeps>;
} {
  const calls: Array<Pick<NetworkInput, 'stage' | 'bringUp'> & { iid?: string }> = [];
  return {
    calls,
    deps: {
      async selectAndRenderNetwork(input) {
        calls.push({
          stage: input.stage,
          bringUp: input.bringUp,
          ...(input.instance ? { iid: input.instance.instanceId } : {}),
        });
        return { written: ['/etc/network/interfaces.d/50-cloud-init'] };
      },
      networkInfo: async () => 'ci-info: +++Net device info+++\nci-info: | eth0 |',
    },
  };
}

async function stages(dir: string, deps: RunnerDeps, names: Array<'init-local' | 'init'>, printed: string[] = []) {
  const logger = new Logger();
  for (const stage of names) {
    // One process per stage, as systemd runs them.
    const runner = new StageRunner({
      platform: new LinuxPlatform({ root: dir, log: logger.for('platform') }),
      logger,
      deps,
      print: (s) => void printed.push(s),
    });
    await runner.runStage(stage);
  }
}

test('a source first found in the network stage: init-local renders the fallback without bring-up, init renders and brings up', async (t) => {
  const dir = root(t, 'datasource_list: [NetOnly]\n', { 'seed/net': 'i-net' });
  const net = recordingNetwork();
  const deps = fakeDeps([fakeSource('NetOnly', 'network', '/seed/net')], [], net.deps);
  const printed: string[] = [];
  await stages(dir, deps, ['init-local', 'init'], printed);
  assert.deepEqual(net.calls, [
    { stage: 'local', bringUp: false },
    { stage: 'network', bringUp: true, iid: 'i-net' },
  ]);
  const info = printed.findIndex((s) => s.includes('ci-info: +++Net device info+++'));
  assert.ok(info > 0 && printed[info - 1]?.includes("running 'init'"), 'the tables come right after the init banner');
  assert.match(
    readFileSync(join(dir, 'var/log/cloud-init-output.log'), 'utf8'),
    /running 'init' at .*\nci-info: \+\+\+Net device info\+\+\+\nci-info: \| eth0 \|\n/,
  );
});

test('a source found in init-local: rendered there without bring-up, and the network stage does not render again', async (t) => {
  const dir = root(t, 'datasource_list: [Local]\n', { 'seed/local': 'i-local' });
  const net = recordingNetwork();
  await stages(dir, fakeDeps([fakeSource('Local', 'local', '/seed/local')], [], net.deps), ['init-local', 'init']);
  assert.deepEqual(net.calls, [{ stage: 'local', bringUp: false, iid: 'i-local' }]);
});

test('disable_network_activation: the network stage renders but brings nothing up', async (t) => {
  const dir = root(t, 'datasource_list: [NetOnly]\ndisable_network_activation: true\n', { 'seed/net': 'i-net' });
  const net = recordingNetwork();
  await stages(dir, fakeDeps([fakeSource('NetOnly', 'network', '/seed/net')], [], net.deps), ['init-local', 'init']);
  assert.deepEqual(
    net.calls.map((c) => c.bringUp),
    [false, false],
  );
});

test('no source at all: the network stage still applies and brings up the fallback before failing', async (t) => {
  const dir = root(t, 'datasource_list: [NetOnly]\n', {});
  const net = recordingNetwork();
  await stages(dir, fakeDeps([fakeSource('NetOnly', 'network', '/seed/net')], [], net.deps), ['init-local', 'init']);
  assert.deepEqual(net.calls, [
    { stage: 'local', bringUp: false },
    { stage: 'network', bringUp: true },
  ]);
});

/** A reboot between stages: /run is a tmpfs, so the run dir (and its per-boot network semaphore) is gone. */
function reboot(dir: string): void {
  rmSync(join(dir, 'run'), { recursive: true, force: true });
}

test("RbxCloud (cloud-init 22.4's BOOT and BOOT_LEGACY defaults): rendered in init-local and again with bring-up in the network stage, on every boot", async (t) => {
  const dir = root(t, 'datasource_list: [RbxCloud]\n', { 'seed/rbx': 'i-rbx' });
  const net = recordingNetwork();
  const deps = fakeDeps([fakeSource('RbxCloud', 'local', '/seed/rbx')], [], net.deps);
  await stages(dir, deps, ['init-local', 'init']);
  reboot(dir);
  await stages(dir, deps, ['init-local', 'init']);
  const boot = [
    { stage: 'local', bringUp: false, iid: 'i-rbx' },
    { stage: 'network', bringUp: true, iid: 'i-rbx' },
  ];
  assert.deepEqual(net.calls, [...boot, ...boot]);
});

test("a source with the base class's events renders only the instance's first boot; the user's `updates` replace RbxCloud's defaults", async (t) => {
  const dir = root(t, 'datasource_list: [Local]\n', { 'seed/local': 'i-local' });
  const net = recordingNetwork();
  const deps = fakeDeps([fakeSource('Local', 'local', '/seed/local')], [], net.deps);
  await stages(dir, deps, ['init-local', 'init']);
  reboot(dir);
  await stages(dir, deps, ['init-local', 'init']);
  assert.deepEqual(net.calls, [{ stage: 'local', bringUp: false, iid: 'i-local' }]);

  const rbx = root(t, 'datasource_list: [RbxCloud]\nupdates: {network: {when: [boot-new-instance]}}\n', {
    'seed/rbx': 'i-rbx',
  });
  const rbxNet = recordingNetwork();
  const rbxDeps = fakeDeps([fakeSource('RbxCloud', 'local', '/seed/rbx')], [], rbxNet.deps);
  await stages(rbx, rbxDeps, ['init-local', 'init']);
  reboot(rbx);
  await stages(rbx, rbxDeps, ['init-local', 'init']);
  assert.deepEqual(rbxNet.calls, [{ stage: 'local', bringUp: false, iid: 'i-rbx' }]);
});

/** All four stages in one process (kiln-all-stages.service), as `--all-stages` runs them. */
async function allStages(dir: string, deps: RunnerDeps): Promise<void> {
  const logger = new Logger();
  await new StageRunner({
    platform: new LinuxPlatform({ root: dir, log: logger.for('platform') }),
    logger,
    deps,
  }).runAllStages();
}

test('in one process, the network stage first brings up what init-local wrote (no networking service ran after it), then a source found there is applied', async (t) => {
  const dir = root(t, 'datasource_list: [NetOnly]\n', { 'seed/net': 'i-net' });
  const net = recordingNetwork();
  await allStages(dir, fakeDeps([fakeSource('NetOnly', 'network', '/seed/net')], [], net.deps));
  assert.deepEqual(net.calls, [
    { stage: 'local', bringUp: false },
    { stage: 'network', bringUp: true },
    { stage: 'network', bringUp: true, iid: 'i-net' },
  ]);
});

test('in one process, a source found in init-local has its network brought up by the network stage; the next boot leaves that to the networking service', async (t) => {
  const dir = root(t, 'datasource_list: [Local]\n', { 'seed/local': 'i-local' });
  const net = recordingNetwork();
  const deps = fakeDeps([fakeSource('Local', 'local', '/seed/local')], [], net.deps);
  await allStages(dir, deps);
  assert.deepEqual(net.calls, [
    { stage: 'local', bringUp: false, iid: 'i-local' },
    { stage: 'network', bringUp: true, iid: 'i-local' },
  ]);
  reboot(dir);
  net.calls.length = 0;
  await allStages(dir, deps);
  assert.deepEqual(net.calls, [], 'the files written at the first boot are there for the networking service');
});

test('in one process with disable_network_activation, nothing is brought up', async (t) => {
  const dir = root(t, 'datasource_list: [Local]\ndisable_network_activation: true\n', { 'seed/local': 'i-local' });
  const net = recordingNetwork();
  await allStages(dir, fakeDeps([fakeSource('Local', 'local', '/seed/local')], [], net.deps));
  assert.ok(
    net.calls.every((c) => !c.bringUp),
    JSON.stringify(net.calls),
  );
});
