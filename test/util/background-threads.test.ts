// Renicing the thread pool, checked in the Node that kiln's binaries carry: Node 22 names its pool threads
// "libuv-worker" (older Nodes, which may run the tests, do not), so the check runs there, in a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildSync } from 'esbuild';
import { REPO } from '../helpers/repo';
import { isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** The Node of the linux-x64 target, as build.mjs unpacks it from the npm registry. */
function targetNode(): string | undefined {
  const target = JSON.parse(readFileSync(join(REPO, 'targets/linux-x64.json'), 'utf8')) as { node: { package: string; version: string; file: string } };
  const path = join(REPO, '.cache/npm', `${target.node.package}@${target.node.version}`, target.node.file);
  return existsSync(path) ? path : undefined;
}

const PROBE = `
const { pbkdf2 } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { lowerPoolPriority, restorePoolPriority } = require('./background-threads.cjs');
const niceOf = (tid) => { const s = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8'); return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[16]); };
pbkdf2('x', 'y', 1, 8, 'sha256', () => {
  const threads = lowerPoolPriority();
  const lowered = threads.map(niceOf);
  const main = niceOf(process.pid);
  restorePoolPriority(threads);
  process.stdout.write(JSON.stringify({ count: threads.length, lowered, main, restored: threads.map(niceOf) }));
});
`;

test('pool workers are reniced to 19 and given their priority back; the main thread is left alone', (t) => {
  const node = targetNode();
  if (!need(t, node !== undefined && existsSync('/proc/self/task') && isRoot(), 'needs the built target Node (npm run build), procfs, and root to raise a priority back')) return;
  const dir = tempDir(t);
  buildSync({ entryPoints: [join(REPO, 'src/util/background-threads.ts')], outfile: join(dir, 'background-threads.cjs'), bundle: true, platform: 'node', format: 'cjs', logLevel: 'warning' });
  writeFileSync(join(dir, 'probe.cjs'), PROBE);
  const r = spawnSync(node as string, [join(dir, 'probe.cjs')], { encoding: 'utf8', cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  const seen = JSON.parse(r.stdout) as { count: number; lowered: number[]; main: number; restored: number[] };
  assert.equal(seen.count, 4, "libuv's default pool: four workers");
  assert.deepEqual(seen.lowered, [19, 19, 19, 19]);
  assert.equal(seen.main, 0);
  assert.deepEqual(seen.restored, [0, 0, 0, 0]);
});
