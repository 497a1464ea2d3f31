// `cloud-init status` asks systemd about the stage units as cloud-init 23.x+ does: a boot that looks running while
// a unit failed is an error, `status --wait` ends instead of waiting for ever; never under --root. systemctl's
// answers are scripted; the files are a sandbox root that the platform presents as the live system.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { buildFacts } from '../../src/build-info';
import type { CommandContext } from '../../src/cli/command';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform, RunResult } from '../../src/platform/platform';
import { readBootStatus } from '../../src/runner/read-boot-status';
import { SYSTEMD_FAILURE_ERROR, systemdFailed } from '../../src/runner/systemd-failed';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

/** systemctl show's answer for one unit. */
function show(active: string, sub: string, fileState = 'enabled', mainPid = '0'): RunResult {
  return {
    code: 0,
    stdout: `ActiveState=${active}\nUnitFileState=${fileState}\nSubState=${sub}\nMainPID=${mainPid}\n`,
    stderr: '',
  };
}
const EXITED = show('active', 'exited');

type Answers = Record<string, RunResult | (() => RunResult)>;

/**
 * A sandbox root with a boot in progress (status.json, no result.json) and systemd's run folder, seen as '/':
 * files come from the sandbox, `systemctl show … UNIT` from ANSWERS (a unit not named: exit 1).
 */
function liveBoot(
  t: TestContext,
  answers: Answers,
  opts: { asLive?: boolean } = {},
): { platform: Platform; runs: string[]; root: string } {
  const root = tempDir(t);
  mkdirSync(join(root, 'run/cloud-init'), { recursive: true });
  mkdirSync(join(root, 'run/systemd/system'), { recursive: true });
  writeFileSync(
    join(root, 'run/cloud-init/status.json'),
    JSON.stringify({
      v1: {
        stage: 'modules-final',
        datasource: 'DataSourceNoCloud [seed=/dev/sr0]',
        'modules-final': { start: 100, finished: null, errors: [], recoverable_errors: {} },
      },
    }),
  );
  const real = new LinuxPlatform({ root, log: new Logger().for('t') });
  const runs: string[] = [];
  const run = async (cmd: string[] | string): Promise<RunResult> => {
    const argv = typeof cmd === 'string' ? [cmd] : cmd;
    runs.push(argv.join(' '));
    assert.deepEqual(argv.slice(0, 3), ['systemctl', 'show', '--property=ActiveState,UnitFileState,SubState,MainPID']);
    const a = answers[argv[3] as string];
    if (a === undefined) return { code: 1, stdout: '', stderr: 'Failed to connect to bus: No such file or directory' };
    return typeof a === 'function' ? a() : a;
  };
  const asLive = opts.asLive ?? true;
  const platform = new Proxy(real, {
    get: (target, key) => {
      if (key === 'root') return asLive ? '/' : root;
      if (key === 'run') return run;
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as Platform;
  return { platform, runs, root };
}

test('a failed stage unit makes a running boot done with an error, as cloud-init reports it', async (t) => {
  const { platform, runs } = liveBoot(t, {
    'cloud-final.service': show('failed', 'failed'),
    'cloud-config.service': EXITED,
  });
  const warnings: string[] = [];
  const s = await readBootStatus(platform, undefined, '', { wait: false, warn: (l) => warnings.push(l) });
  assert.equal(s.running, 'done');
  assert.equal(s.status, 'error');
  assert.equal(s.extended_status, 'error - done');
  assert.equal(s.detail, 'Failed due to systemd unit failure');
  assert.deepEqual(s.errors, [SYSTEMD_FAILURE_ERROR]);
  assert.deepEqual(warnings, []);
  // The last stage is asked first; a failure there is the answer.
  assert.deepEqual(
    runs.map((r) => r.split(' ')[3]),
    ['cloud-final.service'],
  );
});

test('while the final stage still runs (or its process is gone with a child lingering) the boot stays running; a disabled stage counts as failed', async (t) => {
  const warn = () => assert.fail('no warning expected');
  const running = liveBoot(t, { 'cloud-final.service': show('activating', 'start', 'enabled', '321') });
  assert.equal((await readBootStatus(running.platform, undefined, '', { wait: false, warn })).running, 'running');
  const lingering = liveBoot(t, { 'cloud-final.service': show('active', 'running', 'enabled', '0') });
  assert.equal(await systemdFailed(lingering.platform, { wait: false, warn }), false);
  // Every stage exited: nothing from systemd (result.json is what says done).
  const exited = liveBoot(t, {
    'cloud-final.service': EXITED,
    'cloud-config.service': EXITED,
    'cloud-init-network.service': EXITED,
    'cloud-init-local.service': show('active', 'exited', 'static'),
    'cloud-init-main.service': EXITED,
  });
  assert.equal(await systemdFailed(exited.platform, { wait: false, warn }), false);
  assert.equal(exited.runs.length, 5);
  const disabled = liveBoot(t, {
    'cloud-final.service': EXITED,
    'cloud-config.service': show('inactive', 'dead', 'disabled'),
  });
  assert.equal(await systemdFailed(disabled.platform, { wait: false, warn }), true);
});

test("cloud-init 25.1's units are asked, the last stage first and cloud-init-main.service last: a killed main process is a failure even when every stage unit exited", async (t) => {
  const warn = () => assert.fail('no warning expected');
  const stagesExited: Answers = {
    'cloud-final.service': EXITED,
    'cloud-config.service': EXITED,
    'cloud-init-network.service': EXITED,
    'cloud-init-local.service': EXITED,
  };
  const killed = liveBoot(t, { ...stagesExited, 'cloud-init-main.service': show('failed', 'failed') });
  const s = await readBootStatus(killed.platform, undefined, '', { wait: false, warn });
  assert.equal(s.status, 'error');
  assert.deepEqual(
    killed.runs.map((r) => r.split(' ')[3]),
    [
      'cloud-final.service',
      'cloud-config.service',
      'cloud-init-network.service',
      'cloud-init-local.service',
      'cloud-init-main.service',
    ],
  );
  // Debian 12's name is not asked about: an image without it is no failure.
  const ok = liveBoot(t, { ...stagesExited, 'cloud-init-main.service': show('activating', 'start', 'enabled', '77') });
  assert.equal(await systemdFailed(ok.platform, { wait: false, warn }), false);
  assert.ok(!ok.runs.some((r) => r.endsWith(' cloud-init.service')));
});

test('a systemctl that cannot answer: a warning and no verdict without --wait; asked again with --wait', async (t) => {
  const none = liveBoot(t, {});
  const warnings: string[] = [];
  const s = await readBootStatus(none.platform, undefined, '', { wait: false, warn: (l) => warnings.push(l) });
  assert.equal(s.running, 'running');
  assert.deepEqual(warnings, [
    'Failed to get status from systemd. Cloud-init status may be inaccurate. Error from systemctl: Failed to connect to bus: No such file or directory',
  ]);
  let calls = 0;
  const late = liveBoot(t, {
    'cloud-final.service': () =>
      ++calls < 3 ? { code: 1, stdout: '', stderr: 'not ready' } : show('failed', 'failed'),
  });
  assert.equal(
    await systemdFailed(late.platform, { wait: true, warn: () => assert.fail('waits instead'), retryMs: 1 }),
    true,
  );
  assert.equal(calls, 3);
});

test('not asked under --root, nor without systemd, nor once the boot is done', async (t) => {
  const underRoot = liveBoot(t, { 'cloud-final.service': show('failed', 'failed') }, { asLive: false });
  const s = await readBootStatus(underRoot.platform, undefined, '', { wait: false, warn: () => undefined });
  assert.equal(s.running, 'running');
  assert.deepEqual(underRoot.runs, []);
  const noSystemd = liveBoot(t, { 'cloud-final.service': show('failed', 'failed') });
  const { rmSync } = await import('node:fs');
  rmSync(join(noSystemd.root, 'run/systemd'), { recursive: true });
  assert.equal(
    (await readBootStatus(noSystemd.platform, undefined, '', { wait: false, warn: () => undefined })).running,
    'running',
  );
  assert.deepEqual(noSystemd.runs, []);
  const done = liveBoot(t, { 'cloud-final.service': show('failed', 'failed') });
  writeFileSync(
    join(done.root, 'run/cloud-init/result.json'),
    '{"v1": {"datasource": "DataSourceNoCloud", "errors": []}}',
  );
  assert.equal(
    (await readBootStatus(done.platform, undefined, '', { wait: false, warn: () => undefined })).status,
    'done',
  );
  assert.deepEqual(done.runs, []);
});

test('status --wait after the final stage was killed ends with status: error and exit 1 instead of waiting for ever', async (t) => {
  let polls = 0;
  // The unit runs for a few polls, then systemd reports it failed (SIGKILL): status.json stays "running".
  const { platform } = liveBoot(t, {
    'cloud-final.service': () =>
      ++polls < 4 ? show('activating', 'start', 'enabled', '900') : show('failed', 'failed'),
  });
  let out = '';
  let err = '';
  const logger = new Logger();
  const inv = parseInvocation(['status', '--wait', '--long'], COMMANDS, 'cloud-init');
  assert.ok(inv.command);
  const ctx: CommandContext = {
    face: 'cloud-init',
    argv0: 'cloud-init',
    facts: buildFacts,
    root: '/',
    dryRun: false,
    debug: false,
    logger,
    log: logger.for('test'),
    io: { out: (s) => void (out += s), err: (s) => void (err += s) },
    env: { KILN_STATUS_POLL_MS: '5' },
    platform: () => platform,
  };
  const code = await Promise.race([
    inv.command.run(ctx, inv.args),
    new Promise<string>((r) => setTimeout(() => r('still waiting after 10 s'), 10_000).unref()),
  ]);
  assert.equal(code, 1, out + err);
  assert.match(out, /^\.{3}status: error\nextended_status: error - done\n/);
  assert.match(out, /detail: Failed due to systemd unit failure\n/);
  assert.match(out, /errors:\n\t- Failed due to systemd unit failure\. Ensure all cloud-init services are enabled/);
  assert.equal(err, '');
});
