// The built Linux binary: `kiln devel fs-cat IMG PATH | sha256sum` hashes the file's exact bytes; on a real
// terminal (a pty from script(1)) a binary file is refused with a message, not dumped.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { xorshift32 } from '../helpers/seeded-random';
import { tempDir } from '../helpers/temp';

const linux = builtBinary('kiln-linux-x64');

test('kiln devel fs-cat writes binary files to a pipe byte for byte, and refuses them on a terminal', (t) => {
  if (!need(t, linux !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const dir = tempDir(t);
  const seed = join(dir, 'seed');
  mkdirSync(join(seed, 'openstack/latest'), { recursive: true });
  writeFileSync(join(seed, 'openstack/latest/meta_data.json'), '{"uuid": "pipe"}');
  const next = xorshift32(5);
  const blob = Buffer.alloc(300_000);
  for (let i = 0; i < blob.length; i++) blob[i] = next() & 0xff;
  writeFileSync(join(seed, 'blob.bin'), blob);
  const want = createHash('sha256').update(blob).digest('hex');
  for (const format of ['iso', 'vfat']) {
    const img = join(dir, `seed-${format}.img`);
    const made = spawnSync(
      linux as string,
      ['make-seed', '--kind', 'configdrive', '--format', format, '-o', img, seed],
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    const piped = spawnSync('sh', ['-c', '"$0" devel fs-cat "$1" blob.bin | sha256sum', linux as string, img], {
      encoding: 'utf8',
    });
    assert.equal(piped.status, 0, piped.stderr);
    assert.equal(piped.stdout.split(' ')[0], want, `${format}: fs-cat | sha256sum`);
    const direct = spawnSync(linux as string, ['devel', 'fs-cat', img, 'blob.bin'], { maxBuffer: 1 << 20 });
    assert.equal(direct.status, 0);
    assert.ok(Buffer.compare(direct.stdout, blob) === 0, `${format}: bytes on a pipe`);
  }
  if (!need(t, hasCommand('script'), 'script (util-linux) is not installed')) return;
  const iso = join(dir, 'seed-iso.img');
  const tty = spawnSync('script', ['-qec', `"${linux}" devel fs-cat "${iso}" blob.bin`, '/dev/null'], {
    encoding: 'latin1',
  });
  assert.equal(tty.status, 1, tty.stdout);
  assert.match(tty.stdout, /'blob\.bin' is binary \(not UTF-8 text\) and standard output is a terminal/);
  assert.ok(tty.stdout.length < 1000, 'no binary reached the terminal');
  const text = spawnSync(
    'script',
    ['-qec', `"${linux}" devel fs-cat "${iso}" openstack/latest/meta_data.json`, '/dev/null'],
    { encoding: 'utf8' },
  );
  assert.equal(text.status, 0, text.stdout);
  assert.match(text.stdout, /\{"uuid": "pipe"\}/);
});
