// The built binaries: `kiln probe` on partitioned disk images (Linux), and drive letters found under wine (Windows).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWine } from '../helpers/wine';

const linux = builtBinary('kiln-linux-x64');
const windows = builtBinary('kiln-win-x64.exe');

function sh(cmd: string, args: string[], input?: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', input });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
}

function place(disk: string, image: string, offset: number): void {
  const fd = openSync(disk, 'r+');
  writeSync(fd, readFileSync(image), 0, undefined, offset);
  closeSync(fd);
}

interface ProbeJson {
  device: string;
  fsType?: string;
  label?: string;
  partitionTable?: string;
  partitions?: Array<{ number: number; fsType?: string; label?: string; name?: string }>;
}

test('kiln probe --json lists each partition of MBR (extended) and GPT disk images with its filesystem and label', (t) => {
  if (!need(t, linux !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  if (
    !need(
      t,
      ['sfdisk', 'sgdisk', 'mkfs.vfat', 'mcopy'].every(hasCommand),
      'fdisk, gdisk, dosfstools, mtools are needed',
    )
  )
    return;
  const dir = tempDir(t);
  const seed = join(dir, 'seed');
  mkdirSync(join(seed, 'openstack/latest'), { recursive: true });
  writeFileSync(join(seed, 'openstack/latest/meta_data.json'), '{"uuid": "e2e"}');
  writeFileSync(join(seed, 'user-data'), '#cloud-config\n');
  const iso = join(dir, 'cd.iso');
  let r = spawnSync(linux as string, ['make-seed', '--kind', 'configdrive', '-o', iso, seed], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const fat = join(dir, 'nc.img');
  r = spawnSync(linux as string, ['make-seed', '--format', 'vfat', '-o', fat, join(seed, 'user-data')], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);

  const mbr = join(dir, 'mbr.img');
  sh('truncate', ['-s', '32M', mbr]);
  sh(
    'sfdisk',
    ['--quiet', mbr],
    'label: dos\nstart=2048, size=4096, type=c\nstart=8192, type=5\nstart=10240, size=8192, type=83\n',
  );
  place(mbr, fat, 2048 * 512);
  place(mbr, iso, 10240 * 512);
  const gpt = join(dir, 'gpt.img');
  sh('truncate', ['-s', '32M', gpt]);
  sh('sgdisk', ['-n', '1:2048:+4M', '-c', '1:seed', '-n', '2:0:+4M', '-c', '2:empty', gpt]);
  place(gpt, iso, 2048 * 512);

  r = spawnSync(linux as string, ['probe', '--json', mbr, gpt], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const [m, g] = JSON.parse(r.stdout) as ProbeJson[];
  assert.equal(m?.partitionTable, 'dos');
  assert.deepEqual(
    m?.partitions?.map((p) => [p.number, p.fsType ?? null, p.label ?? null]),
    [
      [1, 'vfat', 'cidata'],
      [2, null, null],
      [5, 'iso9660', 'config-2'],
    ],
  );
  assert.equal(g?.partitionTable, 'gpt');
  assert.deepEqual(
    g?.partitions?.map((p) => [p.number, p.name, p.fsType ?? null, p.label ?? null]),
    [
      [1, 'seed', 'iso9660', 'config-2'],
      [2, 'empty', null, null],
    ],
  );

  r = spawnSync(linux as string, ['probe', mbr], { encoding: 'utf8' });
  assert.match(r.stdout, /mbr\.img:5 .*iso9660 .*config-2/);
  r = spawnSync(linux as string, ['devel', 'fs-cat', `${mbr}:5`, 'openstack/latest/meta_data.json'], {
    encoding: 'utf8',
  });
  assert.equal(r.stdout, '{"uuid": "e2e"}');
  r = spawnSync(linux as string, ['devel', 'fs-ls', '-R', '--partition', '1', mbr], { encoding: 'utf8' });
  assert.match(r.stdout, /\/meta-data\n/);
  r = spawnSync(
    linux as string,
    ['probe', '--label', 'config-2', '--must-contain', 'openstack/latest/meta_data.json', mbr, gpt],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(
    r.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0])
      .join(' '),
    `${mbr}:5 ${gpt}:1`,
  );
  r = spawnSync(linux as string, ['probe', '--label', 'nope', mbr], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  r = spawnSync(linux as string, ['devel', 'fs-cat', mbr, 'x'], { encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /holds no ISO9660, UDF or FAT filesystem \(a partitioned disk\? give a partition/);
});

test('kiln-win-x64.exe probe finds a wine drive letter labelled config-2 (GetLogicalDriveStringsW, GetVolumeInformationW)', (t) => {
  if (!need(t, windows !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs linux-x64 win-x64)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed')) return;
  const dir = tempDir(t);
  const drive = join(dir, 'drive');
  mkdirSync(join(drive, 'openstack/latest'), { recursive: true });
  writeFileSync(join(drive, 'openstack/latest/meta_data.json'), '{"uuid": "wine"}');
  writeFileSync(join(drive, '.windows-label'), 'config-2\n');
  const plain = join(dir, 'plain');
  mkdirSync(plain);
  writeFileSync(join(plain, '.windows-label'), 'DATA\n');
  const prefix = privateWinePrefix(dir, { q: drive, r: plain }, ['q']);
  const env = { WINEPREFIX: prefix };

  let r = runUnderWine(windows as string, ['probe'], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Q:\\\s+-\s+iso9660\s+cdrom \S+\s+config-2/m);
  assert.match(r.stdout, /^R:\\\s+.*fixed .*DATA/m);
  r = runUnderWine(windows as string, ['probe', '--json'], env);
  const q = (JSON.parse(r.stdout) as ProbeJson[]).find((x) => x.device === 'Q:\\');
  assert.equal(q?.label, 'config-2');

  // The finder's cdrom location: label config-2 and the metadata file, as cloudbase-init checks both.
  r = runUnderWine(
    windows as string,
    ['probe', '--label', 'config-2', '--must-contain', 'openstack/latest/meta_data.json'],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Q:\\\tiso9660\tconfig-2/m);
  r = runUnderWine(
    windows as string,
    ['probe', '--label', 'config-2', '--must-contain', 'openstack/latest/nothing.json'],
    env,
  );
  assert.equal(r.code, 1);
});

test('kiln-win-x64.exe make-seed writes a config drive ISO that isoinfo reads', (t) => {
  if (!need(t, windows !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs linux-x64 win-x64)')) return;
  if (!need(t, hasCommand('wine') && hasCommand('isoinfo'), 'wine and isoinfo are needed')) return;
  const dir = tempDir(t);
  const seed = join(dir, 'seed');
  mkdirSync(join(seed, 'openstack/latest'), { recursive: true });
  writeFileSync(join(seed, 'openstack/latest/meta_data.json'), '{"uuid": "from-windows"}');
  const out = join(dir, 'cd.iso');
  // Z: maps to / in every wine prefix.
  const r = runUnderWine(windows as string, ['make-seed', '--kind', 'configdrive', '-o', `Z:${out}`, `Z:${seed}`]);
  assert.equal(r.code, 0, r.stderr);
  const x = spawnSync('isoinfo', ['-R', '-x', '/openstack/latest/meta_data.json', '-i', out], { encoding: 'utf8' });
  assert.equal(x.stdout, '{"uuid": "from-windows"}');
  assert.match(spawnSync('isoinfo', ['-d', '-i', out], { encoding: 'utf8' }).stdout, /Volume id: config-2/);
});
