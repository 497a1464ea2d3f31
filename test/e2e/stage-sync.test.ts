// cloud-init-main.service's protocol with the built binary and real sockets: `cloud-init --all-stages`, started as
// systemd starts a notify service (NOTIFY_SOCKET set, stdin not a terminal), binds the four stage sockets, says
// READY=1, and runs each stage only when that stage's unit sends "start" (the unit's own ExecStart line, run by sh
// with nc, pointed at the sandbox root); the unit prints the answer and exits with the stage's error count.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { UnixDatagramSocket } from '../../src/platform/platform';
import { bindUnixDatagrams } from '../../src/platform/linux/unix-datagram';
import { testKoffi } from '../helpers/koffi';
import { builtBinary, REPO } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');
const koffi = testKoffi();
const UNITS: Record<string, string> = {
  local: 'cloud-init-local.service',
  network: 'cloud-init-network.service',
  config: 'cloud-config.service',
  final: 'cloud-final.service',
};
const STAGE_OF: Record<string, string> = {
  local: 'init-local',
  network: 'init',
  config: 'modules-config',
  final: 'modules-final',
};

/** The unit's ExecStart, with /run/cloud-init/ moved into ROOT. */
function unitCommand(unit: string, root: string): string {
  const line = readFileSync(join(REPO, 'images/systemd', unit), 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ExecStart='));
  assert.ok(line, `${unit} has an ExecStart`);
  return line.slice('ExecStart='.length).replaceAll('/run/cloud-init/', `${root}/run/cloud-init/`);
}

/** Runs UNIT's ExecStart as systemd would (a shell line): its output and exit code. */
function startUnit(unit: string, root: string): { code: number | null; out: string } {
  const cmd = unitCommand(unit, root);
  const r = spawnSync('sh', ['-c', cmd], { encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, out: r.stdout + r.stderr };
}

function status(
  root: string,
): { v1: Record<string, { start: number | null; finished: number | null; errors: string[] } | string> } | undefined {
  const path = join(root, 'run/cloud-init/status.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

/** Collects what the process sends to its NOTIFY_SOCKET. */
function notifySocket(
  t: TestContext,
  dir: string,
): { socket: UnixDatagramSocket; messages: string[]; next: () => Promise<string> } {
  const socket = bindUnixDatagrams(koffi as NonNullable<typeof koffi>).bind(join(dir, 'notify.sock'));
  t.after(() => socket.close());
  const messages: string[] = [];
  const next = async () => {
    const m = (await socket.receive(4096)).data.toString('utf8');
    messages.push(m);
    return m;
  };
  return { socket, messages, next };
}

function startKiln(t: TestContext, root: string, notify: string) {
  const child = spawn(binary as string, ['--root', root, '--all-stages'], {
    env: { ...process.env, KILN_FACE: 'cloud-init', NOTIFY_SOCKET: notify },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return { child, exit, output: () => out };
}

function skip(t: TestContext): boolean {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return true;
  if (!need(t, koffi !== undefined, 'KILN_KOFFI_ADDON is not set (test/run.mjs sets it)')) return true;
  if (!need(t, hasCommand('nc'), 'nc is not installed (netcat-openbsd: the stage units send "start" with it)'))
    return true;
  return false;
}

test("--all-stages under systemd: READY=1 once the sockets are bound, each stage only after its unit starts, the unit exits with the stage's error count", {
  timeout: 300_000,
}, async (t) => {
  if (skip(t)) return;
  const root = tempDir(t);
  const notify = notifySocket(t, root);
  const kiln = startKiln(t, root, join(root, 'notify.sock'));
  while ((await notify.next()) !== 'READY=1') {
    /* the log's notes before it */
  }
  for (const name of ['local', 'network', 'config', 'final']) {
    assert.ok(existsSync(join(root, `run/cloud-init/share/${name}.sock`)), `${name}.sock is bound before READY=1`);
  }
  const initLocal = status(root)?.v1['init-local'] as { start: number | null } | undefined;
  assert.equal(initLocal?.start ?? null, null, 'no stage ran before its unit started');
  let previous: string | undefined;
  for (const name of ['local', 'network', 'config', 'final']) {
    if (previous) {
      const s = status(root);
      const next = s?.v1[STAGE_OF[name] as string] as { start: number | null } | undefined;
      assert.equal(next?.start ?? null, null, `${STAGE_OF[name]} waits for ${UNITS[name]} (after ${previous})`);
    }
    const unit = startUnit(UNITS[name] as string, root);
    const record = status(root)?.v1[STAGE_OF[name] as string] as { finished: number | null; errors: string[] };
    assert.notEqual(record.finished, null, `${STAGE_OF[name]} finished before ${UNITS[name]} returned`);
    assert.match(unit.out, new RegExp(`^Completed socket interaction for boot stage ${name}$`, 'm'));
    assert.equal(
      unit.code,
      record.errors.length,
      `${UNITS[name]} exits with ${STAGE_OF[name]}'s error count (${unit.out})`,
    );
    previous = UNITS[name];
  }
  // An empty root has no datasource: the network stage records that error, so the process exits 1 and says so.
  assert.equal(await kiln.exit, 1, kiln.output());
  while (!notify.messages.includes('STOPPING=1')) await notify.next();
  assert.ok(
    notify.messages.includes('STATUS=Waiting on external services to complete before starting the local stage.'),
    notify.messages.join('\n'),
  );
  assert.ok(notify.messages.includes('STATUS=Running (final stage)'), notify.messages.join('\n'));
  assert.ok(
    notify.messages.some((m) => m.startsWith('STATUS=Completed with failure, a stage of cloud-init exited non-zero.')),
    notify.messages.join('\n'),
  );
});

test('--all-stages under systemd refuses a "start" that does not come from the stage\'s -return socket', {
  timeout: 120_000,
}, async (t) => {
  if (skip(t)) return;
  const root = tempDir(t);
  const notify = notifySocket(t, root);
  const kiln = startKiln(t, root, join(root, 'notify.sock'));
  while ((await notify.next()) !== 'READY=1') {
    /* the log's notes before it */
  }
  const elsewhere = join(root, 'run/cloud-init/share/other-return.sock');
  const r = spawnSync('sh', ['-c', `echo start | nc -Uu -W1 ${root}/run/cloud-init/share/local.sock -s ${elsewhere}`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  const code = await kiln.exit;
  assert.notEqual(code, 0);
  assert.match(
    kiln.output(),
    new RegExp(`Unexpected path to unix socket: ${elsewhere.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
  );
  assert.doesNotMatch(kiln.output(), /\n\s+at /, 'no stack trace');
  const initLocal = status(root)?.v1['init-local'] as { start: number | null } | undefined;
  assert.equal(initLocal?.start ?? null, null, 'the stage did not run');
});

test('--all-stages with stdin a pipe but no NOTIFY_SOCKET (no systemd to start the units) runs the four stages back to back', {
  timeout: 120_000,
}, async (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (node build.mjs linux-x64)')) return;
  const root = tempDir(t);
  const env: NodeJS.ProcessEnv = { ...process.env, KILN_FACE: 'cloud-init' };
  delete env.NOTIFY_SOCKET;
  const r = spawnSync(binary as string, ['--root', root, '--all-stages'], {
    env,
    encoding: 'utf8',
    input: '',
    timeout: 120_000,
  });
  assert.equal(r.status, 1, r.stderr);
  const final = status(root)?.v1['modules-final'] as { finished: number | null } | undefined;
  assert.ok(final, 'status.json records modules-final');
  assert.notEqual(final.finished, null);
  assert.equal(existsSync(join(root, 'run/cloud-init/share/local.sock')), false, 'no socket bound');
});
