// Seeds built by `kiln make-seed` are read correctly by the real tools (isoinfo, fsck.vfat, mdir, mcopy) and by us.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { openFat } from '../../src/devices/fat';
import { openIso9660 } from '../../src/devices/iso9660';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { kiln as runKiln } from './run-command';
import { assertSameTree, bytes, makeSourceTree, readSourceTree, run } from './image-tools';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { writeFileSync } from 'node:fs';

const kiln = (argv: string[]) => runKiln(argv, { SOURCE_DATE_EPOCH: '1700000000' });

test('make-seed --format iso: isoinfo -l -J -R lists every file, extracts them byte for byte', async (t) => {
  if (!need(t, hasCommand('isoinfo'), 'isoinfo (genisoimage) is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const iso = join(dir, 'cd.iso');
  const r = await kiln(['make-seed', '--kind', 'configdrive', '--format', 'iso', '-o', iso, src]);
  assert.equal(r.code, 0, r.err);
  const source = readSourceTree(src);
  const info = run('isoinfo', ['-d', '-i', iso]);
  assert.match(info, /Volume id: config-2/);
  assert.match(info, /Joliet with UCS level 3 found/);
  assert.match(info, /Rock Ridge signatures version 1 found/);
  for (const mode of ['-R', '-J']) {
    const listing = run('isoinfo', ['-l', mode, '-i', iso]);
    for (const path of source.keys()) {
      const name = path.split('/').pop() as string;
      assert.ok(listing.includes(`  ${name} `) || listing.includes(`  ${name}\n`), `isoinfo ${mode} lists '${name}'`);
      const extracted = spawnSync('isoinfo', [mode, '-x', `/${path}`, '-i', iso], { maxBuffer: 16 << 20 }).stdout;
      assert.ok(Buffer.compare(extracted, source.get(path) as Buffer) === 0, `isoinfo ${mode} -x /${path}`);
    }
  }
  const vol = await openIso9660(await PathBlockReader.open(iso));
  assert.equal(vol.label, 'config-2');
  assert.equal(vol.uuid, '2023-11-14-22-13-20-00');
  await assertSameTree(vol.tree, source, 'make-seed iso');
  if (hasCommand('blkid')) assert.equal(run('blkid', ['-o', 'value', '-s', 'LABEL', iso]).trim(), 'config-2');
});

for (const [fat, size] of [
  ['12', undefined],
  ['16', '20M'],
  ['32', '40M'],
] as const) {
  test(`make-seed --format vfat (FAT${fat}): fsck.vfat -n is clean, mdir and mcopy read every file`, async (t) => {
    if (!need(t, hasCommand('fsck.vfat') && hasCommand('mcopy'), 'dosfstools and mtools are not installed')) return;
    const dir = tempDir(t);
    const src = join(dir, 'src');
    makeSourceTree(src);
    const img = join(dir, 'seed.img');
    const r = await kiln([
      'make-seed',
      '--format',
      'vfat',
      '--fat',
      fat,
      ...(size ? ['--size', size] : []),
      '-o',
      img,
      src,
    ]);
    assert.equal(r.code, 0, r.err);
    const fsck = spawnSync('fsck.vfat', ['-n', img], { encoding: 'utf8' });
    assert.equal(fsck.status, 0, fsck.stdout + fsck.stderr);
    assert.doesNotMatch(fsck.stdout, /differ|invalid|bad|orphan|free cluster/i);
    const mdir = run('mdir', ['-i', img, '::/']);
    assert.match(mdir, /Volume in drive : is cidata/);
    assert.match(mdir, /meta-data/);
    const source = readSourceTree(src);
    for (const [path, data] of source) {
      const got = spawnSync('mcopy', ['-n', '-i', img, `::/${path}`, '-'], { maxBuffer: 16 << 20 }).stdout;
      assert.ok(Buffer.compare(got, data) === 0, `mcopy ::/${path}`);
    }
    const vol = await openFat(await PathBlockReader.open(img));
    assert.equal(vol.fatType, `FAT${fat}`);
    assert.equal(vol.label, 'cidata');
    await assertSameTree(vol.tree, source, `make-seed FAT${fat}`);
  });
}

test('make-seed from files one by one adds NoCloud meta-data like cloud-localds; bad input gives clear errors', async (t) => {
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const iso = join(dir, 'seed.iso');
  const r = await kiln(['make-seed', '-o', iso, join(src, 'user-data'), `network-config=${join(src, 'UPPER.TXT')}`]);
  assert.equal(r.code, 0, r.err);
  const { tree, label } = await openIso9660(await PathBlockReader.open(iso));
  assert.equal(label, 'cidata');
  assert.equal(Buffer.from((await tree.readFile('meta-data')) as Uint8Array).toString(), 'instance-id: iid-local01\n');
  assert.equal(Buffer.from((await tree.readFile('network-config')) as Uint8Array).toString(), 'upper\n');
  const noMd = await kiln(['make-seed', '--kind', 'configdrive', '-o', iso, join(src, 'user-data')]);
  assert.equal(noMd.code, 1);
  assert.match(noMd.err, /openstack\/latest\/meta_data\.json/);
  const badKind = await kiln(['make-seed', '--kind', 'azure', '-o', iso, src]);
  assert.equal(badKind.code, 2);
  const tooSmall = await kiln(['make-seed', '--format', 'vfat', '--fat', '32', '--size', '4M', '-o', iso, src]);
  assert.equal(tooSmall.code, 1);
  assert.match(tooSmall.err, /FAT32/);
  // A missing output folder is named (the image goes to a temp file beside it first, which was named instead).
  const noFolder = await kiln(['make-seed', '-o', join(dir, 'nowhere', 'seed.iso'), src]);
  assert.equal(noFolder.code, 2);
  assert.match(noFolder.err, /-o .*nowhere\/seed\.iso: the folder .*nowhere does not exist/);
  assert.doesNotMatch(noFolder.err, /kiln-tmp/);
});

test('make-seed warns about YAML the instance could not read, and still writes the seed as cloud-localds does', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'user-data'), '#cloud-config\npackages: [unclosed\n');
  writeFileSync(join(dir, 'meta-data'), 'instance-id: i-1\n');
  const iso = join(dir, 'seed.iso');
  const r = await kiln(['make-seed', '-o', iso, join(dir, 'user-data'), join(dir, 'meta-data')]);
  assert.equal(r.code, 0, r.err);
  assert.match(
    r.err,
    /^warning: user-data:\d+:\d+: invalid YAML: .*written as it is, but the instance will not be able to read it$/m,
  );
  assert.doesNotMatch(r.err, /meta-data/, 'valid YAML is not warned about');
  const { tree } = await openIso9660(await PathBlockReader.open(iso));
  assert.equal(
    Buffer.from((await tree.readFile('user-data')) as Uint8Array).toString(),
    '#cloud-config\npackages: [unclosed\n',
  );
  // A script is not YAML, and is not looked at.
  writeFileSync(join(dir, 'user-data'), '#!/bin/sh\necho [unclosed\n');
  assert.equal((await kiln(['make-seed', '-o', iso, join(dir, 'user-data'), join(dir, 'meta-data')])).err, '');
});

test('multi-extent ISO9660 files: written in 4 KiB extents, read back by isoinfo and by our reader', async (t) => {
  if (!need(t, hasCommand('isoinfo'), 'isoinfo (genisoimage) is not installed')) return;
  const dir = tempDir(t);
  const data = bytes(50_000, 11);
  const iso = join(dir, 'multi.iso');
  writeFileSync(
    iso,
    writeIso9660(
      [
        { path: 'big/multi.bin', data },
        { path: 'small', data: Buffer.from('s') },
      ],
      { label: 'cidata', maxExtent: 4096 },
    ),
  );
  const listing = run('isoinfo', ['-l', '-R', '-i', iso]);
  assert.ok((listing.match(/multi\.bin/g) ?? []).length > 1, 'isoinfo shows one record per extent');
  const vol = await openIso9660(await PathBlockReader.open(iso));
  const entry = (await vol.tree.list('big'))?.find((e) => e.name === 'multi.bin');
  assert.equal(entry?.size, data.length);
  assert.ok(Buffer.compare(Buffer.from((await vol.tree.readFile('big/multi.bin')) as Uint8Array), data) === 0);
  for (const mode of ['-R', '-J']) {
    const extracted = spawnSync('isoinfo', [mode, '-x', '/big/multi.bin', '-i', iso], { maxBuffer: 1 << 20 }).stdout;
    assert.ok(Buffer.compare(extracted, data) === 0, `isoinfo ${mode} -x reads the multi-extent file`);
  }
});
