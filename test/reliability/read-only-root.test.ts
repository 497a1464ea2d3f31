// A boot on a read-only root (issue 23: it printed `kiln: internal error` with a JavaScript stack) ends with
// one line per failure that names the path and says the file system is read-only; a full disk likewise names the
// file it could not write. Never a stack trace.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

test('every stage on a read-only root fails with a clear line naming the path, never a stack trace', (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && binary !== undefined,
      'needs root (a read-only bind mount in a private mount namespace), unshare and dist/kiln-linux-x64',
    )
  )
    return;
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/seed/nocloud'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/meta-data'), 'instance-id: iid-ro\n');
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/user-data'), '#cloud-config\nhostname: ro\n');
  const stages = ['init --local', 'init', 'modules --mode config', 'modules --mode final', 'init --all-stages'];
  const script = [
    `mount --bind ${root} ${root}`,
    `mount -o remount,bind,ro ${root}`,
    ...stages.map((s) => `${binary} --root ${root} ${s}; echo "exit $?"`),
  ].join('\n');
  const r = spawnSync('unshare', ['--mount', 'sh', '-c', script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(
    r.stdout.match(/^exit \d+$/gm),
    stages.map(() => 'exit 1'),
    r.stdout + r.stderr,
  );
  assert.doesNotMatch(r.stderr, /internal error|^\s+at /m, 'no JavaScript stack reaches the user');
  assert.match(r.stderr, new RegExp(`cannot mkdir ${root}/var/\\S+: the file system is read-only`));
  assert.match(r.stderr, /cannot write the log .*cloud-init\.log: cannot mkdir .*: the file system is read-only/);
});

test('a full disk ends each stage with a clear line naming the path, never a stack trace', (t) => {
  const binary = builtBinary('kiln-linux-x64');
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && binary !== undefined,
      'needs root (a small tmpfs in a private mount namespace), unshare and dist/kiln-linux-x64',
    )
  )
    return;
  const root = tempDir(t);
  const seed = `${root}/var/lib/cloud/seed/nocloud`;
  const script = [
    `mount -t tmpfs -o size=512k tmpfs ${root}`,
    `mkdir -p ${seed} ${root}/var/log`,
    `printf 'instance-id: iid-full\\n' > ${seed}/meta-data`,
    `printf '#cloud-config\\nhostname: full\\n' > ${seed}/user-data`,
    `dd if=/dev/zero of=${root}/filler bs=4k 2>/dev/null; true`,
    ...['init --local', 'init'].map((s) => `${binary} --root ${root} ${s}; echo "exit $?"`),
  ].join('\n');
  const r = spawnSync('unshare', ['--mount', 'sh', '-c', script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.match(/^exit \d+$/gm), ['exit 1', 'exit 1'], r.stdout + r.stderr);
  assert.doesNotMatch(r.stderr, /internal error|^\s+at /m, 'no JavaScript stack reaches the user');
  assert.match(
    r.stderr,
    /cannot write \/var\/lib\/cloud\/\S+: .*no space is left on the device \(free some, or grow the file system\) \[ENOSPC\]/,
  );
});
