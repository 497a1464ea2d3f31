// FAT12/16/32 images made by mkfs.vfat + mcopy (nested folders, long names, a fragmented file), read back byte for
// byte.
import assert from 'node:assert/strict';
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { openFat } from '../../src/devices/fat';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { assertSameTree, bytes, makeSourceTree, readSourceTree, run } from './image-tools';

const sizes: Record<12 | 16 | 32, number> = { 12: 4, 16: 32, 32: 64 };

for (const bits of [12, 16, 32] as const) {
  test(`FAT${bits} from mkfs.vfat + mcopy: labels, long names, nested folders, a fragmented file`, async (t) => {
    if (!need(t, hasCommand('mkfs.vfat') && hasCommand('mcopy'), 'dosfstools and mtools are not installed')) return;
    const dir = tempDir(t);
    const src = join(dir, 'src');
    makeSourceTree(src);
    const img = join(dir, 'fat.img');
    run('mkfs.vfat', ['-F', String(bits), '-n', 'CIDATA', '-i', '1234ABCD', '-C', img, String(sizes[bits] * 1024)]);
    // Fill the volume with small files and delete every other one, so the big file lands in the holes.
    for (let i = 0; i < 12; i++) {
      const f = join(dir, `filler${i}`);
      writeFileSync(f, bytes(3000, 100 + i));
      run('mcopy', ['-i', img, f, `::/filler${i}`]);
    }
    for (let i = 0; i < 12; i += 2) run('mdel', ['-i', img, `::/filler${i}`]);
    // FAT32's FSInfo 'next free' hint would send mtools past the holes: make it unknown so it starts at cluster 2.
    if (bits === 32) {
      const fd = openSync(img, 'r+');
      writeSync(fd, Buffer.from([0xff, 0xff, 0xff, 0xff]), 0, 4, 512 + 492);
      closeSync(fd);
    }
    writeFileSync(join(src, 'fragmented.bin'), bytes(40_000, 3));
    run('mcopy', ['-i', img, join(src, 'fragmented.bin'), '::/fragmented.bin']);
    const runs = run('mshowfat', ['-i', img, '::/fragmented.bin']).match(/<[^>]+>/g) ?? [];
    assert.ok(runs.length > 1, `fragmented.bin should be in several cluster runs, mshowfat says ${runs.join(' ')}`);
    for (let i = 1; i < 12; i += 2) run('mdel', ['-i', img, `::/filler${i}`]);
    run('mcopy', [
      '-s',
      '-i',
      img,
      ...['meta-data', 'user-data', 'openstack', 'ec2', 'deep', 'big', 'empty-file', 'UPPER.TXT'].map((n) =>
        join(src, n),
      ),
      '::/',
    ]);
    const vol = await openFat(await PathBlockReader.open(img));
    assert.equal(vol.fatType, `FAT${bits}`);
    assert.equal(vol.label, 'CIDATA');
    assert.equal(vol.uuid, '1234-ABCD');
    await assertSameTree(vol.tree, readSourceTree(src), `FAT${bits}`);
    // Short names reach the same files.
    assert.ok(await vol.tree.readFile('OPENST~1/LATEST/META_D~1.JSO'));
    assert.ok(await vol.tree.readFile('META-D~1'));
    assert.ok(await vol.tree.readFile('upper.txt'));
  });
}

test('FAT label: the root directory label entry wins over the boot sector, as blkid reports', async (t) => {
  if (!need(t, hasCommand('mkfs.vfat') && hasCommand('mlabel'), 'dosfstools and mtools are not installed')) return;
  const dir = tempDir(t);
  const img = join(dir, 'fat.img');
  run('mkfs.vfat', ['-n', 'OLDLABEL', '-C', img, '2048']);
  assert.equal((await openFat(await PathBlockReader.open(img))).label, 'OLDLABEL');
  run('mlabel', ['-i', img, '::config-2']);
  const label = (await openFat(await PathBlockReader.open(img))).label;
  assert.equal(label.toLowerCase(), 'config-2');
  const blkid = hasCommand('blkid') ? run('blkid', ['-o', 'value', '-s', 'LABEL', img]).trim() : label;
  assert.equal(label, blkid);
});
