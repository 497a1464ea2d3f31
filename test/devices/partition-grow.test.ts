import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readSync, statSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { type DiskIo, growPartition, platformDiskIo } from '../../src/devices/partition-grow';
import { crc32 } from '../../src/util/crc32';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from '../modules/module-context';

function fileIo(path: string): DiskIo {
  return {
    async size() {
      return statSync(path).size;
    },
    async read(offset, length) {
      const fd = openSync(path, 'r');
      const b = Buffer.alloc(length);
      readSync(fd, b, 0, length, offset);
      closeSync(fd);
      return b;
    },
    async write(offset, data) {
      const fd = openSync(path, 'r+');
      writeSync(fd, data, 0, data.length, offset);
      closeSync(fd);
    },
  };
}

function sfdisk(args: string[], input?: string): string {
  const r = spawnSync('sfdisk', args, { input, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

function makeDisk(dir: string, label: 'gpt' | 'dos', parts: string): string {
  const img = join(dir, `${label}.img`);
  writeFileSync(img, '');
  truncateSync(img, 64 * 2 ** 20);
  sfdisk(['--no-reread', '--no-tell-kernel', img], `label: ${label}\n${parts}`);
  return img;
}

function partitions(img: string): Array<{ start: number; size: number }> {
  return (
    JSON.parse(sfdisk(['--json', img])) as { partitiontable: { partitions: Array<{ start: number; size: number }> } }
  ).partitiontable.partitions;
}

test('crc32 matches the standard check value', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
});

test('GPT: the last partition grows to the new end, both headers valid (sgdisk -v)', async (t) => {
  if (!need(t, hasCommand('sfdisk') && hasCommand('sgdisk'), 'sfdisk and sgdisk check the rewritten table')) return;
  const dir = tempDir(t);
  const img = makeDisk(dir, 'gpt', 'size=8MiB, type=linux\nsize=16MiB, type=linux\n');
  const before = partitions(img);
  truncateSync(img, 128 * 2 ** 20);
  const r = await growPartition(fileIo(img), 2);
  assert.equal(r.status, 'changed');
  const after = partitions(img);
  assert.equal(after[0]?.size, before[0]?.size);
  assert.equal(after[1]?.start, before[1]?.start);
  const lastUsable = 128 * 2048 - 34;
  assert.equal((after[1]?.start ?? 0) + (after[1]?.size ?? 0) - 1, lastUsable);
  const v = spawnSync('sgdisk', ['-v', img], { encoding: 'utf8' });
  assert.match(v.stdout, /No problems found/, v.stdout);
  assert.equal((await growPartition(fileIo(img), 2)).status, 'nochange', 'a second run has nothing to do');
  assert.equal((await growPartition(fileIo(img), 1)).status, 'nochange', 'a partition that is not last is not grown');
});

test('MBR: the last primary partition grows; the others are untouched', async (t) => {
  if (!need(t, hasCommand('sfdisk'), 'sfdisk checks the rewritten table')) return;
  const dir = tempDir(t);
  const img = makeDisk(dir, 'dos', 'size=8MiB, type=83\nsize=8MiB, type=83\n');
  const before = partitions(img);
  truncateSync(img, 100 * 2 ** 20);
  const r = await growPartition(fileIo(img), 2);
  assert.deepEqual(r, {
    status: 'changed',
    table: 'mbr',
    oldSectors: before[1]?.size,
    newSectors: 100 * 2048 - (before[1]?.start ?? 0),
  });
  const after = partitions(img);
  assert.equal(after[0]?.size, before[0]?.size);
  assert.equal((after[1]?.start ?? 0) + (after[1]?.size ?? 0), 100 * 2048);
  const v = spawnSync('sfdisk', ['--verify', img], { encoding: 'utf8' });
  assert.equal(v.status, 0, v.stdout + v.stderr);
});

test('no table, or a table that leaves no room, is reported rather than touched', async (t) => {
  const dir = tempDir(t);
  const img = join(dir, 'blank.img');
  writeFileSync(img, '');
  truncateSync(img, 4 * 2 ** 20);
  assert.equal((await growPartition(fileIo(img), 1)).status, 'unsupported');
});

test('the platform disk I/O (dd in the target root) grows an image inside a Debian rootfs', async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('debootstrap') && hasCommand('sfdisk'),
      'needs root, unshare, debootstrap and sfdisk',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-grow-'));
  const img = makeDisk(root, 'gpt', 'size=8MiB, type=linux\n');
  truncateSync(img, 40 * 2 ** 20);
  const ctx = moduleContext(root);
  const r = await growPartition(platformDiskIo(ctx.platform, '/gpt.img'), 1);
  assert.equal(r.status, 'changed');
  const v = spawnSync('sgdisk', ['-v', img], { encoding: 'utf8' });
  assert.match(v.stdout, /No problems found/, v.stdout);
});
