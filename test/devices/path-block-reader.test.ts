// A path's reader opens its file once for reads that follow one another and holds no descriptor once idle.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { tempDir } from '../helpers/temp';

const openDescriptors = () => readdirSync('/proc/self/fd').length;

test('PathBlockReader: a probe of several sectors in a row opens the file once, and the descriptor is closed once it is idle', async (t) => {
  const file = join(tempDir(t), 'disk.img');
  writeFileSync(file, Buffer.alloc(64 * 1024, 7));
  const reader = await PathBlockReader.open(file);
  const before = openDescriptors();
  const open = fsp.open;
  let opens = 0;
  t.mock.method(fsp, 'open', (...args: Parameters<typeof fsp.open>) => {
    opens++;
    return open(...args);
  });
  for (const sector of [0, 16, 17, 18, 64, 127]) assert.equal((await reader.read(sector * 512, 512))[0], 7);
  await Promise.all([reader.read(0, 512), reader.read(2048, 512), reader.read(32768, 2048)]);
  assert.equal(opens, 1, 'one open for reads that follow one another');
  await tick();
  await tick();
  assert.equal(openDescriptors(), before, 'no descriptor held once the reads are over');
  assert.equal((await reader.read(512, 4)).length, 4, 'a later read opens the file again');
  assert.equal(opens, 2);
  await tick();
  await tick();
  assert.equal(openDescriptors(), before);
});

test('PathBlockReader: a file that cannot be opened fails the read that asked, and a later read tries again', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'disk.img');
  writeFileSync(file, Buffer.alloc(4096, 1));
  const reader = await PathBlockReader.open(file);
  const open = fsp.open;
  let fail = true;
  t.mock.method(fsp, 'open', (...args: Parameters<typeof fsp.open>) =>
    fail ? Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' })) : open(...args),
  );
  await assert.rejects(reader.read(0, 16), /cannot open for reading/);
  fail = false;
  assert.equal((await reader.read(0, 16))[0], 1);
});
