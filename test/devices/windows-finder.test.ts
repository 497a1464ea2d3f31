// The Windows finder's order and raw reads, with kernel32 replaced by image files (wine offers no PhysicalDriveN).
import assert from 'node:assert/strict';
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeFat } from '../../src/devices/fat-writer';
import { writeIso9660 } from '../../src/devices/iso9660-writer';
import { WindowsFilesystemFinder } from '../../src/devices/windows-finder';
import { DriveType, type Kernel32Disk } from '../../src/platform/windows/win32/kernel32';
import { tempDir } from '../helpers/temp';

const META = 'openstack/latest/meta_data.json';
const time = new Date(Date.UTC(2024, 0, 1));

/** kernel32 over files: DEVICES maps '\\\\.\\PhysicalDrive0' or '\\\\.\\D:' to an image; reads must be aligned. */
function fakeKernel32(
  devices: Record<string, string>,
  drives: Array<{ root: string; type: number; label?: string }>,
): Kernel32Disk & { reads: Array<[number, number]> } {
  const reads: Array<[number, number]> = [];
  return {
    reads,
    logicalDrives: () => drives.map((d) => d.root),
    driveType: (root) => drives.find((d) => d.root === root)?.type ?? DriveType.NoRootDir,
    volumeInformation: (root) => {
      const d = drives.find((x) => x.root === root);
      return d?.label === undefined ? undefined : { label: d.label, serial: 0x1234abcd, fsName: 'CDFS' };
    },
    openDevice: (path) => (devices[path] ? { handle: openSync(devices[path] as string, 'r') } : { error: 2 }),
    deviceLength: (h) => fstatSync(Number(h)).size,
    readAt: (h, offset, buf) => {
      assert.equal(offset % 512, 0, 'raw reads start on a sector boundary');
      assert.equal(buf.length % 512, 0, 'raw reads are whole sectors');
      reads.push([offset, buf.length]);
      return readSync(Number(h), buf, 0, buf.length, offset);
    },
    closeHandle: (h) => closeSync(Number(h)),
    lastErrorText: (code) => `error ${code}`,
  };
}

test('Windows finder: cloudbase-init order (vfat then iso; cdrom, hdd, partition), label and metadata file both checked', async (t) => {
  const dir = tempDir(t);
  const files = [{ path: META, data: Buffer.from('{"uuid":"w"}') }];
  const iso = join(dir, 'cd.iso');
  writeFileSync(iso, writeIso9660(files, { label: 'config-2', time }));
  const fatDisk = join(dir, 'fat.img');
  writeFileSync(fatDisk, writeFat(files, { label: 'config-2', time }));
  // A disk with an MBR whose partition 1 holds an ISO config drive.
  const isoBytes = writeIso9660(files, { label: 'config-2', time });
  const disk = Buffer.alloc(2048 * 512 + isoBytes.length);
  disk[446 + 4] = 0x83;
  disk.writeUInt32LE(2048, 446 + 8);
  disk.writeUInt32LE(isoBytes.length / 512, 446 + 12);
  disk.writeUInt16LE(0xaa55, 510);
  isoBytes.copy(disk, 2048 * 512);
  const partDisk = join(dir, 'part.img');
  writeFileSync(partDisk, disk);
  const wrong = join(dir, 'wrong.iso');
  writeFileSync(wrong, writeIso9660([{ path: 'other', data: Buffer.from('x') }], { label: 'config-2', time }));

  const k32 = fakeKernel32(
    { '\\\\.\\D:': iso, '\\\\.\\E:': wrong, '\\\\.\\PhysicalDrive0': partDisk, '\\\\.\\PhysicalDrive1': fatDisk },
    [
      { root: 'C:\\', type: DriveType.Fixed, label: 'Windows' },
      { root: 'D:\\', type: DriveType.CdRom, label: 'config-2' },
      { root: 'E:\\', type: DriveType.CdRom, label: 'config-2' },
      { root: 'F:\\', type: DriveType.CdRom },
    ],
  );
  const finder = new WindowsFilesystemFinder({ disk: k32, maxPhysicalDrives: 4 });
  const found = await finder.find({ labels: ['config-2', 'CONFIG-2'], mustContain: [META] });
  assert.deepEqual(
    found.map((f) => [f.device, f.fsType]),
    [
      ['\\\\.\\PhysicalDrive1', 'vfat'], // vfat × hdd
      ['D:\\', 'iso9660'], // iso × cdrom (E: lacks the metadata file)
      ['\\\\.\\PhysicalDrive0:1', 'iso9660'], // iso × partition
    ],
  );
  assert.equal(Buffer.from((await found[1]?.tree.readFile(META)) as Uint8Array).toString(), '{"uuid":"w"}');
  assert.ok(k32.reads.length > 0);

  const isoOnly = new WindowsFilesystemFinder({
    disk: k32,
    types: ['iso'],
    locations: ['partition'],
    maxPhysicalDrives: 4,
  });
  assert.deepEqual(
    (await isoOnly.find({ labels: ['config-2'] })).map((f) => f.device),
    ['\\\\.\\PhysicalDrive0:1'],
  );
  assert.deepEqual(await finder.find({ labels: ['cidata'] }), []);
});
