// Seeds built by `kiln make-seed` are read whole by the tools that consume seeds: libarchive (bsdtar, which
// cloudbase-init extracts config drives with), the Linux kernel's isofs and vfat, isoinfo, xorriso, 7-Zip.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { openFat } from '../../src/devices/fat';
import { openIso9660 } from '../../src/devices/iso9660';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { kernelMountUnavailable, readWithKernel, type KernelImage } from '../helpers/kernel-mount';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { kiln as runKiln } from './run-command';
import { assertSameTree, bytes, makeSourceTree, readSourceTree, run } from './image-tools';
import { spawnSync } from 'node:child_process';

const kiln = (argv: string[]) => runKiln(argv, { SOURCE_DATE_EPOCH: '1700000000' });

const LONGEST = 'l'.repeat(253);

/**
 * The files of a seed of KIND, plus what stresses a writer: the longest name Linux reads whole, long names
 * whose Rock Ridge entries spill into continuation areas (300 of them in one folder, so the areas fill
 * several blocks), a path 14 folders deep, files of 3 MB, 2048 and 2049 bytes, an empty file, non-ASCII
 * names, names that collide once cut to Joliet's 64 characters, and characters Joliet forbids.
 */
function seedFiles(kind: 'nocloud' | 'configdrive'): Record<string, Buffer> {
  const files: Record<string, Buffer> =
    kind === 'nocloud'
      ? {
          'meta-data': Buffer.from('instance-id: iid-readers\nlocal-hostname: kiln\n'),
          'user-data': Buffer.from('#cloud-config\nhostname: kiln\n'),
          'network-config': Buffer.from('version: 2\nethernets: {}\n'),
          'vendor-data': Buffer.from('#cloud-config\n{}\n'),
        }
      : {
          'openstack/latest/meta_data.json': Buffer.from(
            '{"uuid": "83679162-1378-4288-a2d4-70e13ec132aa", "hostname": "kiln"}',
          ),
          'openstack/latest/user_data': Buffer.from('#cloud-config\nhostname: kiln\n'),
          'openstack/latest/network_data.json': Buffer.from('{"links": [], "networks": [], "services": []}'),
          'openstack/2015-10-15/meta_data.json': Buffer.from('{"uuid": "old"}'),
          'ec2/latest/meta-data.json': Buffer.from('{}'),
        };
  files[LONGEST] = Buffer.from('longest\n');
  files[`long/${'m'.repeat(200)}.json`] = Buffer.from('{"long": true}');
  files[`${'abcdefghijklmn'.split('').join('/')}/deep.txt`] = Buffer.from('deep\n');
  files['big/three-megs.bin'] = bytes(3_000_000, 21);
  files['big/exactly-2048.bin'] = bytes(2048, 22);
  files['big/2049.bin'] = bytes(2049, 23);
  files.empty = Buffer.alloc(0);
  files['unicode/ünïcødé-名前.txt'] = Buffer.from('unicode\n');
  files[`joliet/${'j'.repeat(70)}-a.txt`] = Buffer.from('a\n');
  files[`joliet/${'j'.repeat(70)}-b.txt`] = Buffer.from('b\n');
  files['odd/what?is:this;name*.txt'] = Buffer.from('odd\n');
  for (let i = 0; i < 300; i++)
    files[`many/${'n'.repeat(180)}-${String(i).padStart(4, '0')}.txt`] = Buffer.from(`${i}\n`);
  return files;
}

function writeTree(dir: string, files: Record<string, Buffer>): void {
  for (const [p, data] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), data);
  }
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Path → SHA-256 of the source, to compare with what a reader returns. */
function hashes(source: Map<string, Buffer>): Map<string, string> {
  return new Map([...source].map(([k, v]) => [k, sha256(v)]));
}

/** Rock Ridge readers must return the source exactly: every name, every byte. */
function assertExact(got: Map<string, string>, want: Map<string, string>, what: string): void {
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), `${what}: file names`);
  for (const [k, v] of want) assert.equal(got.get(k), v, `${what}: content of '${k}'`);
}

/**
 * Joliet readers see names cut to 64 UCS-2 units and forbidden characters replaced, so: every file is
 * there once with its content, names within Joliet's rules are unchanged, and no name is longer than 64.
 */
function assertJoliet(got: Map<string, string>, want: Map<string, string>, what: string): void {
  assert.equal(got.size, want.size, `${what}: number of files`);
  const count = (m: Map<string, string>) => [...m.values()].sort().join(',');
  assert.equal(count(got), count(want), `${what}: the same contents`);
  for (const path of got.keys())
    for (const c of path.split('/')) assert.ok(c.length <= 64, `${what}: '${c}' is longer than 64`);
  for (const [path, h] of want) {
    if (path.split('/').every((c) => c.length <= 64 && !/[*:;?\\]/.test(c)))
      assert.equal(got.get(path), h, `${what}: '${path}' kept its name and content`);
  }
}

function hashesOfDir(dir: string): Map<string, string> {
  return hashes(readSourceTree(dir));
}

/** Every Rock Ridge CE entry of the primary tree: [lba, offset, size]. */
function continuationEntries(img: Buffer): Array<[number, number, number]> {
  const S = 2048;
  const out: Array<[number, number, number]> = [];
  const seen = new Set<number>();
  const walk = (lba: number, size: number) => {
    if (seen.has(lba)) return;
    seen.add(lba);
    for (let pos = lba * S; pos < lba * S + size; ) {
      const len = img[pos] as number;
      if (len === 0) {
        pos = (Math.floor(pos / S) + 1) * S;
        continue;
      }
      const rec = img.subarray(pos, pos + len);
      const nameLen = rec[32] as number;
      const su = rec.subarray(33 + nameLen + (nameLen % 2 === 0 ? 1 : 0));
      for (let i = 0; i + 4 <= su.length && (su[i + 2] as number) >= 4; i += su[i + 2] as number) {
        if (su.toString('latin1', i, i + 2) === 'CE')
          out.push([su.readUInt32LE(i + 4), su.readUInt32LE(i + 12), su.readUInt32LE(i + 20)]);
      }
      const dotOrDotDot = nameLen === 1 && (rec[33] as number) <= 1;
      if ((rec[25] as number) & 2 && !dotOrDotDot) walk(rec.readUInt32LE(2), rec.readUInt32LE(10));
      pos += len;
    }
  };
  const pvd = img.subarray(16 * S, 17 * S);
  walk(pvd.readUInt32LE(156 + 2), pvd.readUInt32LE(156 + 10));
  return out;
}

interface Built {
  kind: 'nocloud' | 'configdrive';
  label: string;
  iso: string;
  fat: string;
  /** What the ISO holds. */
  source: Map<string, Buffer>;
  /** What the FAT image holds: the same less the names FAT cannot hold ('?', ':', '*'). */
  fatSource: Map<string, Buffer>;
}

const FAT_FORBIDDEN = /[*:?]/;

async function build(t: TestContext, kind: 'nocloud' | 'configdrive'): Promise<Built> {
  const dir = tempDir(t, 'kiln-readers-');
  const src = join(dir, 'src');
  const files = seedFiles(kind);
  writeTree(src, files);
  const fatSrc = join(dir, 'fat-src');
  writeTree(fatSrc, Object.fromEntries(Object.entries(files).filter(([p]) => !FAT_FORBIDDEN.test(p))));
  const iso = join(dir, `${kind}.iso`);
  const fat = join(dir, `${kind}.img`);
  const r1 = await kiln(['make-seed', '--kind', kind, '--format', 'iso', '-o', iso, src]);
  assert.equal(r1.code, 0, r1.err);
  const r2 = await kiln(['make-seed', '--kind', kind, '--format', 'vfat', '-o', fat, fatSrc]);
  assert.equal(r2.code, 0, r2.err);
  return {
    kind,
    label: kind === 'nocloud' ? 'cidata' : 'config-2',
    iso,
    fat,
    source: readSourceTree(src),
    fatSource: readSourceTree(fatSrc),
  };
}

test('bsdtar -tf lists a plain config-2 seed (it refused every make-seed ISO: "Invalid parameter in SUSP CE")', async (t) => {
  if (!need(t, hasCommand('bsdtar'), 'bsdtar is not installed (apt-get install libarchive-tools)')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const iso = join(dir, 'config-2.iso');
  const r = await kiln(['make-seed', '--kind', 'configdrive', '-o', iso, src]);
  assert.equal(r.code, 0, r.err);
  const list = spawnSync('bsdtar', ['-tf', iso], { encoding: 'utf8' });
  assert.equal(list.stderr, '');
  assert.equal(list.status, 0);
  const files = list.stdout.split('\n').filter((l) => l && !l.endsWith('/') && l !== '.');
  for (const path of readSourceTree(src).keys()) assert.ok(files.includes(path), `bsdtar lists '${path}'`);
});

for (const kind of ['nocloud', 'configdrive'] as const) {
  test(`make-seed --kind ${kind}: the ISO's Rock Ridge continuation areas are many, each inside one block, after its folder`, async (t) => {
    const b = await build(t, kind);
    const img = readFileSync(b.iso);
    const ce = continuationEntries(img);
    assert.ok(ce.length >= 300, `only ${ce.length} CE entries: the long names should spill into continuation areas`);
    assert.ok(new Set(ce.map(([lba]) => lba)).size >= 2, 'the continuation areas should fill more than one block');
    for (const [lba, offset, size] of ce) {
      assert.ok(offset + size <= 2048, `CE at ${lba}+${offset} (${size} bytes) crosses its block`);
      assert.ok(lba * 2048 < img.length, `CE at ${lba} lies outside the image`);
    }
    const vol = await openIso9660(await PathBlockReader.open(b.iso));
    assert.equal(vol.label, b.label);
    await assertSameTree(vol.tree, b.source, `kiln's own reader, ${kind}`);
  });

  test(`make-seed --kind ${kind}: bsdtar (libarchive) extracts the ISO exactly, by Rock Ridge and by Joliet`, async (t) => {
    if (!need(t, hasCommand('bsdtar'), 'bsdtar is not installed (apt-get install libarchive-tools)')) return;
    const b = await build(t, kind);
    const want = hashes(b.source);
    const out = tempDir(t, 'kiln-bsdtar-');
    for (const [mode, args] of [
      ['rock-ridge', []],
      ['joliet', ['--options', '!rockridge']],
    ] as const) {
      const dest = join(out, mode);
      mkdirSync(dest);
      const r = spawnSync('bsdtar', [...args, '-xf', b.iso, '-C', dest], { encoding: 'utf8' });
      assert.equal(r.status, 0, `bsdtar ${mode}: ${r.stderr}`);
      assert.equal(r.stderr, '', `bsdtar ${mode} warns`);
      if (mode === 'rock-ridge') assertExact(hashesOfDir(dest), want, `bsdtar ${mode}`);
      else assertJoliet(hashesOfDir(dest), want, `bsdtar ${mode}`);
    }
  });

  test(`make-seed --kind ${kind}: isovfy finds no error; isoinfo -R and -J list and extract every file`, async (t) => {
    if (
      !need(
        t,
        hasCommand('isoinfo') && hasCommand('isovfy'),
        'isoinfo and isovfy are not installed (apt-get install genisoimage)',
      )
    )
      return;
    const b = await build(t, kind);
    // isovfy checks every directory record, its Rock Ridge entries against the RR flags, and the path tables.
    const vfy = run('isovfy', ['-i', b.iso]);
    assert.match(vfy, /No errors found/);
    assert.doesNotMatch(vfy.replace('No errors found', ''), /!=|error|bad/i);
    const info = run('isoinfo', ['-d', '-i', b.iso]);
    assert.match(info, new RegExp(`Volume id: ${b.label}`));
    assert.match(info, /Joliet with UCS level 3 found/);
    assert.match(info, /Rock Ridge signatures version 1 found/);
    const listing = run('isoinfo', ['-l', '-R', '-i', b.iso]);
    for (const path of b.source.keys())
      assert.ok(listing.includes(`  ${path.split('/').pop()} `), `isoinfo -R lists '${path}'`);
    for (const [path, data] of b.source) {
      const got = spawnSync('isoinfo', ['-R', '-x', `/${path}`, '-i', b.iso], { maxBuffer: 16 << 20 }).stdout;
      assert.ok(Buffer.compare(got, data) === 0, `isoinfo -R -x /${path}`);
      // isoinfo converts Joliet names only to 8-bit charsets, so it is asked for the ASCII ones.
      if (path.split('/').every((c) => c.length <= 64 && /^[ -~]*$/.test(c) && !/[*:;?\\]/.test(c))) {
        const j = spawnSync('isoinfo', ['-J', '-x', `/${path}`, '-i', b.iso], { maxBuffer: 16 << 20 }).stdout;
        assert.ok(Buffer.compare(j, data) === 0, `isoinfo -J -x /${path}`);
      }
    }
  });

  test(`make-seed --kind ${kind}: xorriso reads every block and extracts the ISO exactly, with no warning`, async (t) => {
    if (!need(t, hasCommand('xorriso'), 'xorriso is not installed')) return;
    const b = await build(t, kind);
    // -return_with WARNING: any complaint of libisofs while loading the tree fails the run.
    const check = spawnSync(
      'xorriso',
      ['-abort_on', 'NEVER', '-return_with', 'WARNING', '32', '-indev', b.iso, '-check_media', '--'],
      { encoding: 'utf8' },
    );
    assert.equal(check.status, 0, check.stderr + check.stdout);
    assert.match(check.stderr + check.stdout, /Media region : +0 , +\d+ , \+ good/);
    const dest = join(tempDir(t, 'kiln-xorriso-'), 'x');
    const x = spawnSync(
      'xorriso',
      ['-abort_on', 'NEVER', '-return_with', 'WARNING', '32', '-indev', b.iso, '-osirrox', 'on', '-extract', '/', dest],
      { encoding: 'utf8' },
    );
    assert.equal(x.status, 0, x.stderr + x.stdout);
    assertExact(hashesOfDir(dest), hashes(b.source), 'xorriso -extract');
  });

  test(`make-seed --kind ${kind}: 7-Zip extracts the ISO by Joliet (as Windows reads it) and the FAT image exactly`, async (t) => {
    if (!need(t, hasCommand('7z'), '7z is not installed (apt-get install p7zip-full)')) return;
    const b = await build(t, kind);
    const out = tempDir(t, 'kiln-7z-');
    for (const [img, name] of [
      [b.iso, 'iso'],
      [b.fat, 'fat'],
    ] as const) {
      const r = spawnSync('7z', ['x', '-y', `-o${join(out, name)}`, img], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.doesNotMatch(r.stdout, /WARNING|ERROR/i);
    }
    assertJoliet(hashesOfDir(join(out, 'iso')), hashes(b.source), '7z ISO');
    assertExact(hashesOfDir(join(out, 'fat')), hashes(b.fatSource), '7z FAT');
  });

  test(`make-seed --kind ${kind} --format vfat: fsck.vfat is clean, mcopy and kiln's reader read every file`, async (t) => {
    if (!need(t, hasCommand('fsck.vfat') && hasCommand('mcopy'), 'dosfstools and mtools are not installed')) return;
    const b = await build(t, kind);
    const fsck = spawnSync('fsck.vfat', ['-n', b.fat], { encoding: 'utf8' });
    assert.equal(fsck.status, 0, fsck.stdout + fsck.stderr);
    assert.doesNotMatch(fsck.stdout, /differ|invalid|bad|orphan|free cluster/i);
    assert.match(run('mdir', ['-i', b.fat, '::/']), new RegExp(`Volume in drive : is ${b.label}`));
    for (const [path, data] of b.fatSource) {
      const got = spawnSync('mcopy', ['-n', '-i', b.fat, `::/${path}`, '-'], { maxBuffer: 16 << 20 }).stdout;
      assert.ok(Buffer.compare(got, data) === 0, `mcopy ::/${path}`);
    }
    const vol = await openFat(await PathBlockReader.open(b.fat));
    await assertSameTree(vol.tree, b.fatSource, `kiln's FAT reader, ${kind}`);
  });
}

test('multi-extent files (4 KiB extents) are read by bsdtar, xorriso and 7-Zip', async (t) => {
  if (
    !need(
      t,
      hasCommand('bsdtar') && hasCommand('xorriso') && hasCommand('7z'),
      'bsdtar, xorriso or 7z is not installed',
    )
  )
    return;
  const dir = tempDir(t);
  const data = bytes(50_000, 11);
  const source = new Map([
    ['big/multi.bin', data],
    [`big/${'x'.repeat(220)}.bin`, bytes(9000, 12)],
    ['small', Buffer.from('s')],
  ]);
  const iso = join(dir, 'multi.iso');
  writeFileSync(
    iso,
    writeIso9660(
      [...source].map(([path, d]) => ({ path, data: d })),
      { label: 'cidata', maxExtent: 4096 },
    ),
  );
  const want = hashes(source);
  const bsd = join(dir, 'bsdtar');
  mkdirSync(bsd);
  const r = spawnSync('bsdtar', ['-xf', iso, '-C', bsd], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assertExact(hashesOfDir(bsd), want, 'bsdtar multi-extent');
  const xo = spawnSync(
    'xorriso',
    [
      '-abort_on',
      'NEVER',
      '-return_with',
      'WARNING',
      '32',
      '-indev',
      iso,
      '-osirrox',
      'on',
      '-extract',
      '/',
      join(dir, 'xorriso'),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(xo.status, 0, xo.stderr);
  assertExact(hashesOfDir(join(dir, 'xorriso')), want, 'xorriso multi-extent');
  const z = spawnSync('7z', ['x', '-y', `-o${join(dir, '7z')}`, iso], { encoding: 'utf8' });
  assert.equal(z.status, 0, z.stdout);
  assert.equal(readSourceTree(join(dir, '7z')).get('big/multi.bin')?.length, data.length);
  assert.equal(sha256(readSourceTree(join(dir, '7z')).get('big/multi.bin') as Buffer), sha256(data));
});

test("make-seed's ISO and FAT seeds of both kinds mount with the Linux kernel's isofs (Rock Ridge and Joliet) and vfat", async (t) => {
  const why = kernelMountUnavailable('iso9660') ?? kernelMountUnavailable('vfat');
  if (!need(t, why === undefined, why ?? '')) return;
  const built = [await build(t, 'nocloud'), await build(t, 'configdrive')];
  const images: KernelImage[] = built.flatMap((b) => [
    { name: `${b.kind}-rr`, path: b.iso, fs: 'iso9660' as const },
    { name: `${b.kind}-joliet`, path: b.iso, fs: 'iso9660' as const, options: 'norock' },
    { name: `${b.kind}-fat`, path: b.fat, fs: 'vfat' as const, options: 'iocharset=utf8' },
  ]);
  const got = readWithKernel(images, tempDir(t, 'kiln-kernel-'));
  for (const b of built) {
    for (const suffix of ['rr', 'joliet', 'fat']) {
      const want = hashes(suffix === 'fat' ? b.fatSource : b.source);
      const r = got.get(`${b.kind}-${suffix}`);
      assert.ok(r?.mounted, `the kernel did not mount ${b.kind}-${suffix}: ${r?.kernelLog.join('\n')}`);
      assert.deepEqual(
        r.kernelLog.filter((l) => /error|corrupt|invalid|unable|bad|not properly|warning/i.test(l)),
        [],
        `kernel messages for ${b.kind}-${suffix}`,
      );
      if (suffix === 'joliet') assertJoliet(r.files, want, `kernel ${b.kind}-${suffix}`);
      else assertExact(r.files, want, `kernel ${b.kind}-${suffix}`);
    }
    const rr = got.get(`${b.kind}-rr`) as { kernelLog: string[] };
    if (rr.kernelLog.length > 0)
      assert.ok(
        rr.kernelLog.some((l) => /RRIP_1991A/.test(l)),
        'the kernel found the Rock Ridge extension',
      );
  }
});

test('make-seed --format vfat refuses names FAT cannot hold as given, saying which and what to do', async (t) => {
  const dir = tempDir(t);
  for (const [names, message] of [
    [['odd/what?.txt'], /seed path 'odd\/what\?\.txt': FAT names cannot hold "\?"/],
    [['a:b'], /FAT names cannot hold ":"/],
    [['trailing.'], /cannot end with a dot or a space/],
    [['dir/User-Data', 'dir/user-data'], /seed paths 'dir\/User-Data' and 'dir\/user-data' differ only in case/],
  ] as const) {
    const src = join(dir, `src-${names.length}-${names[0].replace(/\W/g, '')}`);
    writeTree(
      src,
      Object.fromEntries(
        [...names, 'user-data'].filter((n, i, a) => a.indexOf(n) === i).map((n) => [n, Buffer.from('x')]),
      ),
    );
    const r = await kiln(['make-seed', '--format', 'vfat', '-o', join(dir, 'seed.img'), src]);
    assert.equal(r.code, 1, `${names.join(', ')} should be refused`);
    assert.match(r.err, message);
    assert.match(r.err, /--format iso/);
    const iso = await kiln(['make-seed', '--format', 'iso', '-o', join(dir, 'seed.iso'), src]);
    assert.equal(iso.code, 0, `the ISO takes ${names.join(', ')}: ${iso.err}`);
  }
});
