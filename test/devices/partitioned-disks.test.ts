// Filesystems inside partitions: MBR with an extended partition (sfdisk) and GPT (sgdisk); the Linux finder
// over a fake /sys/class/block + /dev tree whose devices are these image files.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PathBlockReader } from '../../src/devices/block-reader';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { LinuxFilesystemFinder } from '../../src/devices/linux-finder';
import { probeLinuxMachine } from '../../src/devices/machine-probe';
import { probe } from '../../src/devices/probe';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { makeSourceTree, readSourceTree, run } from './image-tools';

const MiB = 1024 * 1024;

function place(disk: string, image: string, offset: number): void {
  const fd = openSync(disk, 'r+');
  try {
    writeSync(fd, readFileSync(image), 0, undefined, offset);
  } finally {
    closeSync(fd);
  }
}

/** A 64 MiB MBR disk: p1 FAT (CIDATA), p2 extended holding p5 (ISO config-2) and p6 (empty). */
function mbrDisk(dir: string, src: string): string {
  const disk = join(dir, 'mbr.img');
  writeFileSync(disk, Buffer.alloc(0));
  run('truncate', ['-s', '64M', disk]);
  run('sfdisk', ['--quiet', disk], {
    input:
      'label: dos\nstart=2048, size=16384, type=c\nstart=20480, type=5\nstart=22528, size=16384, type=83\nstart=40960, size=8192, type=83\n',
  });
  const fat = join(dir, 'p1.img');
  run('mkfs.vfat', ['-n', 'CIDATA', '-C', fat, '8192']);
  run('mcopy', ['-s', '-i', fat, join(src, 'user-data'), join(src, 'meta-data'), '::/']);
  place(disk, fat, 2048 * 512);
  const iso = join(dir, 'p5.iso');
  run('genisoimage', ['-quiet', '-J', '-R', '-V', 'config-2', '-o', iso, src]);
  place(disk, iso, 22528 * 512);
  return disk;
}

/** A 64 MiB GPT disk: partition 1 'data' (empty), partition 2 'configdrive' (FAT config-2). */
function gptDisk(dir: string, src: string): string {
  const disk = join(dir, 'gpt.img');
  writeFileSync(disk, Buffer.alloc(0));
  run('truncate', ['-s', '64M', disk]);
  run('sgdisk', ['-n', '1:2048:+8M', '-c', '1:data', '-n', '2:0:+16M', '-t', '2:0700', '-c', '2:configdrive', disk]);
  const fat = join(dir, 'gp2.img');
  run('mkfs.vfat', ['-n', 'config-2', '-C', fat, String(16 * 1024)]);
  run('mcopy', ['-s', '-i', fat, join(src, 'openstack'), '::/']);
  const start = Number(/First sector: (\d+)/.exec(run('sgdisk', ['-i', '2', disk]))?.[1]);
  place(disk, fat, start * 512);
  return disk;
}

function haveTools(t: Parameters<typeof need>[0]): boolean {
  return need(
    t,
    ['sfdisk', 'sgdisk', 'mkfs.vfat', 'mcopy', 'genisoimage'].every(hasCommand),
    'fdisk, gdisk, dosfstools, mtools, genisoimage are needed',
  );
}

test('MBR with an extended partition: each partition probed, files read from a logical one', async (t) => {
  if (!haveTools(t)) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const disk = mbrDisk(dir, src);
  const p = await probe(await PathBlockReader.open(disk));
  assert.equal(p.partitionTable, 'dos');
  const parts = new Map((p.partitions ?? []).map((x) => [x.number, x]));
  assert.deepEqual([...parts.keys()], [1, 2, 5, 6]);
  assert.equal(parts.get(1)?.fsType, 'vfat');
  assert.equal(parts.get(1)?.label, 'CIDATA');
  assert.equal(parts.get(5)?.fsType, 'iso9660');
  assert.equal(parts.get(5)?.label, 'config-2');
  assert.equal(parts.get(5)?.offset, 22528 * 512);
  assert.equal(parts.get(6)?.fsType, undefined);
  const found = await new ImageFilesFinder([disk]).find({
    labels: ['config-2', 'CONFIG-2'],
    mustContain: ['openstack/latest/meta_data.json'],
  });
  assert.equal(found.length, 1);
  assert.equal(found[0]?.device, `${disk}:5`);
  const md = await found[0]?.tree.readFile('openstack/latest/meta_data.json');
  assert.deepEqual(Buffer.from(md as Uint8Array), readSourceTree(src).get('openstack/latest/meta_data.json'));
});

test('GPT: partition names and types, the FAT config drive in partition 2', async (t) => {
  if (!haveTools(t)) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const disk = gptDisk(dir, src);
  const p = await probe(await PathBlockReader.open(disk));
  assert.equal(p.partitionTable, 'gpt');
  assert.equal(p.partitions?.length, 2);
  assert.equal(p.partitions?.[1]?.name, 'configdrive');
  assert.equal(p.partitions?.[1]?.type.toUpperCase(), 'EBD0A0A2-B9E5-4433-87C0-68B6B72699C7');
  assert.equal(p.partitions?.[1]?.fsType, 'vfat');
  assert.equal(p.partitions?.[1]?.label, 'config-2');
  const found = await new ImageFilesFinder([disk]).find({ labels: ['config-2'], fsTypes: ['vfat'] });
  assert.equal(found.length, 1);
  assert.ok(await found[0]?.tree.exists('openstack/latest/network_data.json'));
});

test('Linux finder: a fake /sys/class/block and /dev tree of image files, partitions without /dev nodes', async (t) => {
  if (!haveTools(t)) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  makeSourceTree(src);
  const root = join(dir, 'root');
  mkdirSync(join(root, 'dev'), { recursive: true });
  const mbr = mbrDisk(dir, src);
  const cd = join(root, 'dev', 'sr0');
  run('genisoimage', ['-quiet', '-J', '-R', '-V', 'cidata', '-o', cd, src]);
  run('cp', [mbr, join(root, 'dev', 'vdb')]);
  const sysDev = (path: string, files: Record<string, string>) => {
    mkdirSync(join(root, 'sys/devices', path), { recursive: true });
    for (const [k, v] of Object.entries(files)) writeFileSync(join(root, 'sys/devices', path, k), `${v}\n`);
    const name = path.split('/').pop() as string;
    mkdirSync(join(root, 'sys/class/block'), { recursive: true });
    symlinkSync(join('../../devices', path), join(root, 'sys/class/block', name));
  };
  sysDev('pci0000:00/ata1/block/sr0', { size: String(readFileSync(cd).length / 512), removable: '1' });
  sysDev('pci0000:00/virtio2/block/vdb', { size: String((64 * MiB) / 512), removable: '0' });
  sysDev('pci0000:00/virtio2/block/vdb/vdb1', { size: '16384', start: '2048', partition: '1' });
  sysDev('pci0000:00/virtio2/block/vdb/vdb5', { size: '16384', start: '22528', partition: '5' });
  sysDev('virtual/block/loop0', { size: '0' });

  const finder = new LinuxFilesystemFinder({ root });
  const nocloud = await finder.find({ labels: ['cidata', 'CIDATA'] });
  assert.deepEqual(
    nocloud.map((f) => [f.device, f.label, f.fsType]),
    [
      ['/dev/sr0', 'cidata', 'iso9660'],
      ['/dev/vdb1', 'CIDATA', 'vfat'],
    ],
  );
  assert.equal(
    Buffer.from((await nocloud[1]?.tree.readFile('user-data')) as Uint8Array).toString(),
    readSourceTree(src).get('user-data')?.toString(),
  );
  const cfg = await finder.find({ labels: ['config-2', 'CONFIG-2'], mustContain: ['openstack/latest/meta_data.json'] });
  assert.deepEqual(
    cfg.map((f) => f.device),
    ['/dev/vdb5'],
  );
  assert.deepEqual(await finder.find({ labels: ['config-2'], fsTypes: ['vfat'] }), []);
  assert.deepEqual(await finder.find({ labels: ['CIDATA'], mustContain: ['no-such-file'] }), []);

  // ds-identify asks for several sources' labels at once: each device is read once for all of them, where
  // KILN_DEVICE_PROBE_CACHE=0 (probeOnce: false) reads them again for every request; the answers are the same.
  const open = fsp.open;
  let opens = 0;
  t.mock.method(fsp, 'open', (...args: Parameters<typeof fsp.open>) => {
    opens++;
    return open(...args);
  });
  const requests = [
    { labels: ['cidata', 'CIDATA'] },
    { labels: ['config-2', 'CONFIG-2'], mustContain: ['openstack/latest/meta_data.json'] },
    { labels: ['CONTEXT', 'CDROM'] },
    { labels: ['OVF ENV', 'ovf env'], anyLabel: true, fsTypes: ['iso9660' as const] },
    { labels: ['config-2'], fsTypes: ['vfat' as const] },
  ];
  const answers = (found: Awaited<ReturnType<LinuxFilesystemFinder['find']>>[]) =>
    found.map((fs) => fs.map((f) => [f.device, f.label]));
  const sharedAnswers = answers(await Promise.all(requests.map((r) => new LinuxFilesystemFinder({ root }).find(r))));
  opens = 0;
  const once = new LinuxFilesystemFinder({ root });
  const onceAnswers = answers(await Promise.all(requests.map((r) => once.find(r))));
  const readOnce = opens;
  opens = 0;
  const every = new LinuxFilesystemFinder({ root, probeOnce: false });
  const everyAnswers = answers(await Promise.all(requests.map((r) => every.find(r))));
  assert.deepEqual(onceAnswers, sharedAnswers);
  assert.deepEqual(everyAnswers, sharedAnswers);
  assert.ok(readOnce * 3 <= opens, `${readOnce} opens for five requests at once with probeOnce, ${opens} without`);

  const all = await probeLinuxMachine(root);
  assert.deepEqual(
    all.map((r) => [r.device, r.fsType ?? r.partitionTable ?? '-', r.label ?? '']),
    [
      ['/dev/sr0', 'iso9660', 'cidata'],
      ['/dev/vdb', '-', ''],
      ['/dev/vdb1', 'vfat', 'CIDATA'],
      ['/dev/vdb5', 'iso9660', 'config-2'],
    ],
  );
});
