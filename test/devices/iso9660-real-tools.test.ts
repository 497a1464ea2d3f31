// ISO9660 images made by genisoimage, xorriso and cloud-localds, read back byte for byte by our reader.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { openIso9660 } from '../../src/devices/iso9660';
import { probe } from '../../src/devices/probe';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { assertSameTree, makeSourceTree, readSourceTree, run } from './image-tools';

const cases: Array<{ name: string; tool: string; args: string[]; names: string; exactNames: boolean }> = [
  {
    name: 'genisoimage -J -R',
    tool: 'genisoimage',
    args: ['-quiet', '-J', '-R', '-V', 'config-2'],
    names: 'rock-ridge',
    exactNames: true,
  },
  {
    name: 'genisoimage -J (Joliet only)',
    tool: 'genisoimage',
    args: ['-quiet', '-J', '-V', 'config-2'],
    names: 'joliet',
    exactNames: true,
  },
  {
    name: 'genisoimage -R (Rock Ridge only)',
    tool: 'genisoimage',
    args: ['-quiet', '-R', '-V', 'config-2'],
    names: 'rock-ridge',
    exactNames: true,
  },
  {
    name: 'genisoimage plain ISO9660',
    tool: 'genisoimage',
    args: ['-quiet', '-V', 'config-2'],
    names: 'iso9660',
    exactNames: false,
  },
  {
    name: 'xorriso -as mkisofs -J -R',
    tool: 'xorriso',
    args: ['-as', 'mkisofs', '-quiet', '-J', '-R', '-V', 'config-2'],
    names: 'rock-ridge',
    exactNames: true,
  },
  {
    name: 'xorriso -as mkisofs -J without Rock Ridge',
    tool: 'xorriso',
    args: ['-as', 'mkisofs', '-quiet', '-J', '--norock', '-V', 'config-2'],
    names: 'joliet',
    exactNames: true,
  },
];

for (const c of cases) {
  test(`ISO9660 from ${c.name}: every file read back byte for byte`, async (t) => {
    if (!need(t, hasCommand(c.tool), `${c.tool} is not installed`)) return;
    const dir = tempDir(t);
    const src = join(dir, 'src');
    makeSourceTree(src);
    const iso = join(dir, 'seed.iso');
    run(c.tool, [...c.args, '-o', iso, src]);
    const vol = await openIso9660(await PathBlockReader.open(iso));
    assert.equal(vol.label, 'config-2');
    assert.equal(vol.names, c.names);
    const source = readSourceTree(src);
    if (c.exactNames) await assertSameTree(vol.tree, source, c.name);
    // Whatever the names on disk, the names a person means find the files.
    for (const [path, data] of source) {
      const got = await vol.tree.readFile(path);
      assert.ok(got, `${c.name}: '${path}' not found`);
      assert.ok(Buffer.compare(Buffer.from(got), data) === 0, `${c.name}: '${path}' differs`);
    }
    const p = await probe(await PathBlockReader.open(iso));
    assert.equal(p.fsType, 'iso9660');
    assert.match(p.uuid ?? '', /^\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d-\d\d$/);
  });
}

test('8.3 and ;1 names resolve to the file meant (plain ISO9660)', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const iso = join(dir, 'plain.iso');
  run('genisoimage', ['-quiet', '-V', 'cidata', '-o', iso, src]);
  const { tree } = await openIso9660(await PathBlockReader.open(iso));
  const want = readSourceTree(src).get('meta-data') as Buffer;
  for (const name of ['meta-data', 'META-DATA', 'META_DAT.;1', 'META_DAT', 'meta_dat', 'META_DA~1', '/meta-data']) {
    const got = await tree.readFile(name);
    assert.ok(got && Buffer.compare(Buffer.from(got), want) === 0, `'${name}' should find meta-data`);
  }
  assert.equal(await tree.readFile('no-such-file'), undefined);
  assert.ok(await tree.readFile('OPENSTAC/LATEST/META_DAT.JSO;1'));
  assert.ok(await tree.readFile('openstack/latest/meta_data.json'));
});

test('a level-2 name with ;1 (META_DATA.;1) finds meta-data', async (t) => {
  if (!need(t, hasCommand('xorriso'), 'xorriso is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const iso = join(dir, 'l2.iso');
  run('xorriso', ['-as', 'mkisofs', '-quiet', '-iso-level', '2', '--norock', '-V', 'cidata', '-o', iso, src]);
  const { tree, names } = await openIso9660(await PathBlockReader.open(iso));
  assert.equal(names, 'iso9660');
  for (const name of ['meta-data', 'META_DATA.;1', 'META_DATA'])
    assert.ok(await tree.readFile(name), `'${name}' should resolve`);
});

test('cloud-localds seeds are found with label cidata', async (t) => {
  if (!need(t, hasCommand('cloud-localds'), 'cloud-localds is not installed (apt-get install cloud-image-utils)'))
    return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  for (const fmt of ['iso9660', 'vfat'] as const) {
    const img = join(dir, `seed-${fmt}.img`);
    run('cloud-localds', ['-f', fmt, img, join(src, 'user-data'), join(src, 'meta-data')]);
    const p = await probe(await PathBlockReader.open(img));
    assert.equal(p.fsType, fmt);
    assert.equal(p.label?.toLowerCase(), 'cidata');
  }
});

test('Rock Ridge: symbolic links (SL) and folders deeper than 8 levels relocated by genisoimage (CL/RE)', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  const deep = join(src, ...'abcdefghijk'.split(''));
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(deep, 'deep.txt'), 'deep\n');
  mkdirSync(join(src, 'openstack', 'latest'), { recursive: true });
  writeFileSync(join(src, 'openstack', 'latest', 'meta_data.json'), '{}');
  symlinkSync('latest', join(src, 'openstack', 'current'));
  symlinkSync('/openstack/latest/meta_data.json', join(src, 'abs-link'));
  const iso = join(dir, 'rr.iso');
  run('genisoimage', ['-quiet', '-R', '-V', 'cidata', '-o', iso, src]);
  const { tree } = await openIso9660(await PathBlockReader.open(iso));
  assert.equal(Buffer.from((await tree.readFile('a/b/c/d/e/f/g/h/i/j/k/deep.txt')) as Uint8Array).toString(), 'deep\n');
  assert.deepEqual(
    (await tree.list('/'))
      ?.map((e) => e.name)
      .sort()
      .filter((n) => n !== 'rr_moved'),
    ['a', 'abs-link', 'openstack'],
  );
  const links = await tree.list('openstack');
  assert.equal(links?.find((e) => e.name === 'current')?.type, 'symlink');
  assert.equal(Buffer.from((await tree.readFile('openstack/current/meta_data.json')) as Uint8Array).toString(), '{}');
  assert.equal(Buffer.from((await tree.readFile('abs-link')) as Uint8Array).toString(), '{}');
});
