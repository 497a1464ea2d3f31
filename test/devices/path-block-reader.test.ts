// A path's reader opens its file once for reads that follow one another and holds no descriptor once idle.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay, setImmediate as tick } from 'node:timers/promises';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { tempDir } from '../helpers/temp';

/**
 * How many of this process's descriptors are open on FILE (only FILE's: the runner's own pipes and sockets come and
 * go as they please).
 */
const descriptorsOn = (file: string): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false; // closed between the listing and the look: not open on FILE
    }
  }).length;

/**
 * descriptorsOn(FILE) once the reader has had its turn to close: the close is queued after the event loop goes idle
 * and done by libuv's thread pool, which a loaded machine may be slow to run, so this looks again for a while.
 */
async function descriptorsOnceIdle(file: string): Promise<number> {
  await tick();
  for (let look = 0; look < 500 && descriptorsOn(file) > 0; look++) await delay(10);
  return descriptorsOn(file);
}

test('PathBlockReader: a probe of several sectors in a row opens the file once, and the descriptor is closed once it is idle', async (t) => {
  const file = join(tempDir(t), 'disk.img');
  writeFileSync(file, Buffer.alloc(64 * 1024, 7));
  const reader = await PathBlockReader.open(file);
  const open = fsp.open;
  let opens = 0;
  t.mock.method(fsp, 'open', (...args: Parameters<typeof fsp.open>) => {
    opens++;
    return open(...args);
  });
  for (const sector of [0, 16, 17, 18, 64, 127]) assert.equal((await reader.read(sector * 512, 512))[0], 7);
  await Promise.all([reader.read(0, 512), reader.read(2048, 512), reader.read(32768, 2048)]);
  assert.equal(opens, 1, 'one open for reads that follow one another');
  assert.equal(await descriptorsOnceIdle(file), 0, 'no descriptor held once the reads are over');
  assert.equal((await reader.read(512, 4)).length, 4, 'a later read opens the file again');
  assert.equal(opens, 2);
  assert.equal(await descriptorsOnceIdle(file), 0);
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
