// Every target's binary exists, stays under the size budget, and the linux-arm64 one runs (under qemu).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';

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
  if (!need(t, hasCommand('qemu-aarch64'), 'qemu-aarch64 is not installed (apt-get install qemu-user libc6-arm64-cross libstdc++6-arm64-cross)')) return;
  const r = spawnSync('qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', path as string, 'version', '--long'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /target: linux-arm64/);
});
