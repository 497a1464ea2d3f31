// The Linux finder and udev's database: a device whose /run/udev/data entry says it holds no filesystem the
// request can match is never opened; one udev has no word on is read as before; KILN_DEVICE_UDEV=0 reads them all.
import assert from 'node:assert/strict';
import fsp from 'node:fs/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createFilesystemFinder } from '../../src/devices/create-finder';
import { LinuxFilesystemFinder } from '../../src/devices/linux-finder';
import { udevFilesystemFacts } from '../../src/devices/udev-filesystem-facts';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { makeSourceTree, run } from './image-tools';

/**
 * A root with four ISO images as block devices: sr0 'cidata' (udev agrees), vda 'cidata' that udev took for ext4
 * 'root', sr1 'config-2' (no udev entry) and vdb 'my label' (udev's label escaped).
 */
function udevRoot(dir: string): string {
  const src = join(dir, 'src');
  makeSourceTree(src);
  const root = join(dir, 'root');
  mkdirSync(join(root, 'dev'), { recursive: true });
  mkdirSync(join(root, 'run/udev/data'), { recursive: true });
  const device = (name: string, label: string, majorMinor: string, udev?: string[]) => {
    const image = join(root, 'dev', name);
    run('genisoimage', ['-quiet', '-J', '-R', '-V', label, '-o', image, src]);
    const sys = join(root, 'sys/class/block', name);
    mkdirSync(sys, { recursive: true });
    writeFileSync(join(sys, 'size'), `${Math.ceil(Number(run('stat', ['-c', '%s', image]).trim()) / 512)}\n`);
    writeFileSync(join(sys, 'removable'), '0\n');
    writeFileSync(join(sys, 'dev'), `${majorMinor}\n`);
    if (udev) writeFileSync(join(root, 'run/udev/data', `b${majorMinor}`), `${udev.join('\n')}\nI:123456\n`);
  };
  device('sr0', 'cidata', '11:0', ['S:disk/by-label/cidata', 'E:ID_FS_TYPE=iso9660', 'E:ID_FS_LABEL=cidata']);
  device('vda', 'cidata', '254:0', ['E:ID_FS_TYPE=ext4', 'E:ID_FS_LABEL=root', 'E:ID_FS_LABEL_ENC=root']);
  device('sr1', 'config-2', '11:1');
  device('vdb', 'my label', '254:16', [
    'E:ID_FS_TYPE=iso9660',
    'E:ID_FS_LABEL=my_label',
    'E:ID_FS_LABEL_ENC=my\\x20label',
  ]);
  return root;
}

test("udev's facts: type and label (its escapes undone), none without an entry or a probe's mark", async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is needed')) return;
  const root = udevRoot(tempDir(t));
  assert.deepEqual(await udevFilesystemFacts(root, 'sr0'), { fsType: 'iso9660', label: 'cidata' });
  assert.deepEqual(await udevFilesystemFacts(root, 'vdb'), { fsType: 'iso9660', label: 'my label' });
  assert.equal(await udevFilesystemFacts(root, 'sr1'), undefined);
  // A CD-ROM drive without a medium: udev's entry has no filesystem and no partition table, so it is read.
  writeFileSync(join(root, 'run/udev/data/b11:1'), 'E:ID_CDROM=1\nE:ID_TYPE=cd\n');
  assert.equal(await udevFilesystemFacts(root, 'sr1'), undefined);
  // A whole disk with a partition table and no filesystem on it: udev's probe rules it out.
  writeFileSync(join(root, 'run/udev/data/b11:1'), 'E:ID_PART_TABLE_TYPE=dos\n');
  assert.deepEqual(await udevFilesystemFacts(root, 'sr1'), { fsType: '', label: '' });
});

test('the finder opens only the devices udev does not rule out; KILN_DEVICE_UDEV=0 opens them all', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is needed')) return;
  const root = udevRoot(tempDir(t));
  const open = fsp.open;
  const opened: string[] = [];
  t.mock.method(fsp, 'open', (...args: Parameters<typeof fsp.open>) => {
    opened.push(String(args[0]).slice(root.length));
    return open(...args);
  });
  const found = async (finder: LinuxFilesystemFinder, req: Parameters<LinuxFilesystemFinder['find']>[0]) =>
    (await finder.find(req)).map((f) => `${f.device} ${f.label}`);

  const withUdev = createFilesystemFinder({ os: 'linux', root, facts: {} as never, env: {} });
  assert.ok(withUdev instanceof LinuxFilesystemFinder);
  assert.deepEqual(await found(withUdev, { labels: ['cidata', 'CIDATA'] }), ['/dev/sr0 cidata']);
  assert.deepEqual([...new Set(opened)].sort(), ['/dev/sr0', '/dev/sr1']);
  assert.deepEqual(await found(withUdev, { labels: ['config-2'] }), ['/dev/sr1 config-2']);
  assert.deepEqual(await found(withUdev, { labels: ['my label'] }), ['/dev/vdb my label']);
  assert.deepEqual(await found(withUdev, { labels: ['x'], anyLabel: true, fsTypes: ['iso9660'] }), [
    '/dev/sr0 cidata',
    '/dev/sr1 config-2',
    '/dev/vdb my label',
  ]);
  assert.deepEqual(await found(withUdev, { labels: ['cidata'], fsTypes: ['vfat'] }), []);

  opened.length = 0;
  const everyDevice = createFilesystemFinder({ os: 'linux', root, facts: {} as never, env: { KILN_DEVICE_UDEV: '0' } });
  assert.ok(everyDevice instanceof LinuxFilesystemFinder);
  assert.deepEqual(await found(everyDevice, { labels: ['cidata'] }), ['/dev/sr0 cidata', '/dev/vda cidata']);
  assert.deepEqual([...new Set(opened)].sort(), ['/dev/sr0', '/dev/sr1', '/dev/vda', '/dev/vdb']);
});
