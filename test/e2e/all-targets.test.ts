// Every target's binary exists, stays under the size budget, and the linux-arm64 one runs (under qemu).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const NAMES = ['kiln-linux-x64', 'kiln-linux-arm64', 'kiln-win-x64.exe', 'kiln-win-arm64.exe'];
const MAX_BYTES = 120 * 1024 * 1024;

for (const name of NAMES) {
  test(`${name} is built and under 120 MB`, (t) => {
    const path = builtBinary(name);
    if (!need(t, path !== undefined, `dist/${name} is not built (npm run build)`)) return;
    const size = statSync(path as string).size;
    assert.ok(size < MAX_BYTES, `${name} is ${(size / 1048576).toFixed(1)} MB`);
  });
}

test('the stripped linux-arm64 binary still runs (qemu-aarch64)', (t) => {
  const path = builtBinary('kiln-linux-arm64');
  if (!need(t, path !== undefined, 'dist/kiln-linux-arm64 is not built')) return;
  if (
    !need(
      t,
      hasCommand('qemu-aarch64'),
      'qemu-aarch64 is not installed (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)',
    )
  )
    return;
  const r = spawnSync('qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', path as string, 'version', '--long'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /target: linux-arm64/);
});

test('the linux-arm64 binary starts a script with posix_spawn, through the koffi addon it carries (qemu-aarch64)', (t) => {
  const path = builtBinary('kiln-linux-arm64');
  if (!need(t, path !== undefined, 'dist/kiln-linux-arm64 is not built')) return;
  if (
    !need(
      t,
      hasCommand('qemu-aarch64'),
      'qemu-aarch64 is not installed (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)',
    )
  )
    return;
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('ldd'),
      'needs root, unshare and ldd (the script runs in a chroot)',
    )
  )
    return;
  // A root holding only this host's /bin/sh and the libraries it needs: the script runs there, natively.
  const dir = tempDir(t);
  const root = join(dir, 'root');
  const needed = ['/bin/sh', ...(spawnSync('ldd', ['/bin/sh'], { encoding: 'utf8' }).stdout.match(/\/\S+/g) ?? [])];
  for (const file of needed) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    copyFileSync(file, join(root, file));
  }
  writeFileSync(join(dir, 'user-data'), '#!/bin/sh\necho hello from the script\n');
  const r = spawnSync(
    'qemu-aarch64',
    [
      '-L',
      '/usr/aarch64-linux-gnu',
      path as string,
      '--root',
      root,
      '--debug',
      'devel',
      'run-user-data',
      join(dir, 'user-data'),
    ],
    {
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KILN_FACE: '' },
    },
  );
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /commands are started with posix_spawn/);
  assert.doesNotMatch(r.stdout + r.stderr, /started with Node's spawn/);
  assert.match(readFileSync(join(root, 'var/log/cloud-init-output.log'), 'utf8'), /hello from the script/);
});
