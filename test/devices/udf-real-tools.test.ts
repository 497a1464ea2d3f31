// UDF volumes made by mkudffs (udftools) and genisoimage -udf, read back by our reader and compared with blkid.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { probe } from '../../src/devices/probe';
import { looksLikeUdf, openUdf } from '../../src/devices/udf';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { assertSameTree, makeSourceTree, readSourceTree, run } from './image-tools';
import { stripIso9660 } from './udf-images';

/** blkid's view of IMAGE (low-level probe of the file), or undefined when blkid is missing. */
function blkid(image: string): Record<string, string> | undefined {
  const r = spawnSync('blkid', ['-p', '-o', 'export', image], { encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  return Object.fromEntries(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

test('UDF from genisoimage -udf: label, UUID and every file byte for byte through the UDF side', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const iso = join(dir, 'hybrid.iso');
  run('genisoimage', ['-quiet', '-udf', '-J', '-R', '-V', 'rd_rdfe_stable.0001', '-o', iso, src]);
  const vol = await openUdf(await PathBlockReader.open(iso));
  assert.equal(vol.label, 'rd_rdfe_stable.0001');
  assert.equal(vol.blockSize, 2048);
  assert.equal(vol.revision, '1.02');
  await assertSameTree(vol.tree, readSourceTree(src), 'genisoimage -udf');
  const want = blkid(iso);
  if (want) {
    assert.equal(want.TYPE, 'udf');
    assert.equal(vol.label, want.LABEL);
    assert.equal(vol.uuid, want.UUID);
  }
  // The hybrid is still read through its ISO9660 side by the finder, as before the UDF reader existed.
  assert.equal((await probe(await PathBlockReader.open(iso))).fsType, 'iso9660');
});

test('a UDF-only volume is found by label, read for ovf-env.xml, and probed as udf', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  writeFileSync(join(src, 'ovf-env.xml'), '<Environment/>\n');
  const img = join(dir, 'udf-only.img');
  run('genisoimage', ['-quiet', '-udf', '-V', 'rd_rdfe_stable.0002', '-o', img, src]);
  stripIso9660(img);
  const reader = await PathBlockReader.open(img);
  assert.equal(await looksLikeUdf(reader), true);
  const p = await probe(reader);
  assert.equal(p.fsType, 'udf');
  assert.equal(p.label, 'rd_rdfe_stable.0002');
  const want = blkid(img);
  if (want) assert.equal(want.TYPE, 'udf');
  const found = await new ImageFilesFinder([img]).find({
    labels: [],
    anyLabel: true,
    fsTypes: ['iso9660', 'udf'],
    mustContain: ['ovf-env.xml'],
  });
  assert.equal(found.length, 1);
  assert.equal(found[0]?.fsType, 'udf');
  assert.equal(Buffer.from((await found[0]?.tree.readFile('ovf-env.xml')) ?? []).toString(), '<Environment/>\n');
  const udf = found[0];
  assert.ok(udf);
  await assertSameTree(udf.tree, readSourceTree(src), 'UDF only');
  // Exact labels still rule when anyLabel is not asked for.
  assert.equal((await new ImageFilesFinder([img]).find({ labels: ['cidata'] })).length, 0);
});

for (const bs of [512, 1024, 2048, 4096]) {
  for (const rev of ['1.02', '1.50', '2.01']) {
    test(`mkudffs --blocksize=${bs} --udfrev=${rev}: label and UUID as blkid says, an empty root`, async (t) => {
      if (!need(t, hasCommand('mkudffs'), 'mkudffs is not installed (Debian package udftools)')) return;
      const dir = tempDir(t);
      const img = join(dir, 'udf.img');
      writeFileSync(img, Buffer.alloc(8 * 1024 * 1024));
      run('mkudffs', ['--media-type=hd', `--blocksize=${bs}`, `--udfrev=${rev}`, '--label=rd_rdfe_x', img]);
      const vol = await openUdf(await PathBlockReader.open(img));
      assert.equal(vol.label, 'rd_rdfe_x');
      assert.equal(vol.blockSize, bs);
      assert.equal(vol.revision, rev === '1.50' ? '1.50' : rev);
      assert.deepEqual(await vol.tree.list('/'), []);
      assert.equal(await vol.tree.readFile('ovf-env.xml'), undefined);
      const want = blkid(img);
      if (want) {
        assert.equal(want.LABEL, vol.label);
        assert.equal(want.UUID, vol.uuid);
      }
    });
  }
}

test('mkudffs --udfrev=2.50 (metadata partition): a clear error, not a wrong read', async (t) => {
  if (!need(t, hasCommand('mkudffs'), 'mkudffs is not installed (Debian package udftools)')) return;
  const dir = tempDir(t);
  const img = join(dir, 'udf250.img');
  writeFileSync(img, Buffer.alloc(8 * 1024 * 1024));
  // mkudffs writes 2.50 only for optical media types; bdr gives a type 1 map and a metadata partition map.
  run('mkudffs', ['--media-type=bdr', '--udfrev=2.50', '--label=new', img]);
  await assert.rejects(
    openUdf(await PathBlockReader.open(img)),
    /partition map \d is of type 2 \(\*UDF (Metadata|Virtual) Partition\)/,
  );
});

test('a damaged UDF directory identifier is named in the error', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const img = join(dir, 'bad.iso');
  run('genisoimage', ['-quiet', '-udf', '-V', 'x', '-o', img, src]);
  const vol = await openUdf(await PathBlockReader.open(img));
  assert.ok(vol);
  // Corrupt every File Identifier Descriptor tag checksum in the image: listing the root must fail cleanly.
  const b = readFileSync(img);
  for (let o = 0; o + 16 <= b.length; o += 4)
    if (b.readUInt16LE(o) === 257 && b.readUInt16LE(o + 2) === 2) b.writeUInt8((b.readUInt8(o + 4) + 1) & 0xff, o + 4);
  writeFileSync(img, b);
  const broken = await openUdf(await PathBlockReader.open(img));
  await assert.rejects(broken.tree.list('/'), /UDF directory '\/' has a damaged identifier/);
});
