// Hand-made corruptions that must give a clear FilesystemError quickly: loops, sizes past the end, absurd counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferBlockReader } from '../../src/devices/block-reader';
import { openFat } from '../../src/devices/fat';
import { writeFat } from '../../src/devices/fat-writer';
import { FilesystemError } from '../../src/devices/filesystem-error';
import { openIso9660 } from '../../src/devices/iso9660';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { readPartitionTable } from '../../src/devices/partition-table';
import { resolveName } from '../../src/devices/name-resolution';

const time = new Date(Date.UTC(2024, 0, 1));
const files = [
  { path: 'user-data', data: Buffer.alloc(5000, 0x61) },
  { path: 'sub/dir/meta-data', data: Buffer.from('instance-id: x\n') },
];

async function rejectsClearly(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => err instanceof FilesystemError && pattern.test(err.message));
}

test('FAT: a cluster chain that loops is reported, not followed forever', async () => {
  const img = writeFat(files, { label: 'cidata', time });
  const reserved = img.readUInt16LE(14);
  const fat = reserved * 512;
  const vol = await openFat(new BufferBlockReader('loop.img', img));
  assert.ok(await vol.tree.readFile('user-data'));
  // Make the user-data file's last cluster point back to its first (FAT12 entries: 1.5 bytes).
  const img2 = Buffer.from(img);
  const root = (reserved + 2 * img.readUInt16LE(22)) * 512;
  let first = 0;
  for (let p = root; p < root + 512 * 32; p += 32)
    if (
      img2
        .subarray(p, p + 8)
        .toString('latin1')
        .startsWith('USER-D')
    )
      first = img2.readUInt16LE(p + 26);
  assert.ok(first >= 2);
  const setFat12 = (c: number, v: number) => {
    const p = fat + c + (c >> 1);
    const cur = img2.readUInt16LE(p);
    img2.writeUInt16LE(c & 1 ? (cur & 0x000f) | (v << 4) : (cur & 0xf000) | v, p);
  };
  for (let c = first; c < first + 9; c++) setFat12(c, c + 1);
  setFat12(first + 9, first);
  // The file claims more than the chain holds before it loops: with 10 clusters in a cycle, a 4 GiB size ends quickly.
  for (let p = root; p < root + 512 * 32; p += 32)
    if (
      img2
        .subarray(p, p + 8)
        .toString('latin1')
        .startsWith('USER-D')
    )
      img2.writeUInt32LE(200 * 1024, p + 28);
  await rejectsClearly(
    (await openFat(new BufferBlockReader('loop.img', img2))).tree.readFile('user-data'),
    /loop|longer than the volume|outside/,
  );
});

test('FAT: a folder whose cluster chain loops forever is bounded', { timeout: 60_000 }, async () => {
  const img = writeFat(files, { label: 'cidata', time, size: 40 << 20, fatBits: 32 });
  const fat = img.readUInt16LE(14) * 512;
  const rootCluster = img.readUInt32LE(44);
  img.writeUInt32LE(rootCluster, fat + rootCluster * 4); // root → root → …
  await rejectsClearly(openFat(new BufferBlockReader('dirloop.img', img)), /loop|longer/);
});

test('ISO9660: an extent past the end of the image, and a folder that contains itself', async () => {
  const iso = writeIso9660(files, { label: 'cidata', time });
  const vol = await openIso9660(new BufferBlockReader('ok.iso', iso));
  assert.ok(await vol.tree.readFile('sub/dir/meta-data'));
  const truncated = iso.subarray(0, iso.length - 4096);
  await rejectsClearly(
    (await openIso9660(new BufferBlockReader('short.iso', truncated))).tree.readFile('user-data'),
    /past the end/,
  );
  // Point folder 'sub' at the root extent: paths may go round, but each lookup stays bounded by its length.
  const selfLoop = Buffer.from(iso);
  const rootLba = selfLoop.readUInt32LE(16 * 2048 + 156 + 2);
  const rootDir = selfLoop.subarray(rootLba * 2048, rootLba * 2048 + 2048);
  let p = 0;
  while (p < 2048 && rootDir[p]) {
    const len = rootDir[p] as number;
    if (rootDir.subarray(p + 33, p + 33 + (rootDir[p + 32] as number)).toString('latin1') === 'SUB')
      rootDir.writeUInt32LE(rootLba, p + 2);
    p += len;
  }
  const looped = await openIso9660(new BufferBlockReader('loop.iso', selfLoop));
  assert.ok(await looped.tree.readFile('sub/sub/sub/sub/user-data'));
  await rejectsClearly(looped.tree.readFile(`${'sub/'.repeat(80)}user-data`), /deeper than/);
});

test('partition tables: an EBR chain that loops, a GPT with an absurd entry count', async () => {
  const disk = Buffer.alloc(1024 * 512);
  const entry = (o: number, type: number, start: number, sectors: number) => {
    disk[o + 4] = type;
    disk.writeUInt32LE(start, o + 8);
    disk.writeUInt32LE(sectors, o + 12);
  };
  entry(446, 0x05, 100, 900);
  disk.writeUInt16LE(0xaa55, 510);
  entry(100 * 512 + 446, 0x83, 1, 10);
  entry(100 * 512 + 462, 0x05, 0 + 50, 20);
  disk.writeUInt16LE(0xaa55, 100 * 512 + 510);
  entry(150 * 512 + 446, 0x83, 1, 10);
  entry(150 * 512 + 462, 0x05, 0, 20); // links back to the first EBR (start 0 is "none") → use 50 again below
  disk.writeUInt16LE(0xaa55, 150 * 512 + 510);
  disk.writeUInt32LE(50, 150 * 512 + 462 + 8);
  await rejectsClearly(readPartitionTable(new BufferBlockReader('ebr.img', disk)), /loops/);

  const gpt = Buffer.alloc(64 * 512);
  gpt[446 + 4] = 0xee;
  gpt.writeUInt32LE(1, 446 + 8);
  gpt.writeUInt32LE(63, 446 + 12);
  gpt.writeUInt16LE(0xaa55, 510);
  gpt.write('EFI PART', 512, 'latin1');
  gpt.writeUInt32LE(2, 512 + 72);
  gpt.writeUInt32LE(0x7fffffff, 512 + 80);
  gpt.writeUInt32LE(128, 512 + 84);
  await rejectsClearly(readPartitionTable(new BufferBlockReader('gpt.img', gpt)), /partition entries/);
});

test('name resolution: exact, any case, ;1 versions, 8.3 manglings and ~N short names', () => {
  const entries = [
    { name: 'meta_dat', altNames: ['META_DAT.;1'] },
    { name: 'user_dat', altNames: ['USER_DAT.;1'] },
    { name: 'vendor-data', altNames: ['VENDOR~1'] },
    { name: 'vendor-data2', altNames: ['VENDOR~2'] },
  ];
  assert.equal(resolveName(entries, 'meta-data')?.name, 'meta_dat');
  assert.equal(resolveName(entries, 'META_DAT.;1')?.name, 'meta_dat');
  assert.equal(resolveName(entries, 'META_DA~1')?.name, 'meta_dat');
  assert.equal(resolveName(entries, 'USER-DATA')?.name, 'user_dat');
  assert.equal(resolveName(entries, 'vendor~2')?.name, 'vendor-data2');
  assert.equal(resolveName(entries, 'Vendor-Data')?.name, 'vendor-data');
  assert.equal(resolveName(entries, 'network-config'), undefined);
  assert.equal(
    resolveName(
      [
        { name: 'Meta', altNames: [] },
        { name: 'meta', altNames: [] },
      ],
      'meta',
    )?.name,
    'meta',
  );
});
