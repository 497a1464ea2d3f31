import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/main';
import { tempDir } from '../helpers/temp';

async function runMain(argv: string[], argv0 = 'kiln') {
  let out = '';
  let err = '';
  const code = await main({ argv, argv0, env: {}, io: { out: (s) => void (out += s), err: (s) => void (err += s) } });
  return { code, out, err };
}

test('main dispatches in-process: help per face, usage errors exit 2', async () => {
  assert.match((await runMain(['--help'], '/usr/bin/cloud-init')).out, /^usage: cloud-init /);
  const bad = await runMain(['nope']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /unknown command 'nope'/);
  const group = await runMain(['devel']);
  assert.equal(group.code, 2);
  assert.match(group.err, /'devel' needs a subcommand/);
});

test('main applies --root and reports --dry-run effects', async (t) => {
  const root = tempDir(t);
  const r = await runMain(['--root', root, 'devel', 'write-file', '/etc/issue.d/kiln', '--content', 'x']);
  assert.equal(r.code, 0, r.err);
  assert.equal(readFileSync(join(root, 'etc/issue.d/kiln'), 'utf8'), 'x');
  const dry = await runMain(['--root', root, '--dry-run', 'devel', 'write-file', '/etc/other', '--content', 'y']);
  assert.match(dry.out, /write \/etc\/other \(1 bytes\)/);
});

test('a --root that is missing or not a folder is a usage error naming it, not a status of an empty machine', async (t) => {
  const missing = await runMain(['--root', '/nonexistent/kiln-root', 'status'], '/usr/bin/cloud-init');
  assert.equal(missing.code, 2);
  assert.equal(missing.out, '', 'no "status: not started"');
  assert.match(missing.err, /^cloud-init: error: --root \/nonexistent\/kiln-root: no such folder$/m);
  const file = join(tempDir(t), 'a-file');
  writeFileSync(file, 'x');
  const notDir = await runMain(['--root', file, 'status'], '/usr/bin/cloud-init');
  assert.equal(notDir.code, 2);
  assert.match(notDir.err, /--root .*a-file: not a folder/);
});
