import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { diskSetup, gptLayout, mbrLayout } from '../../src/modules/disk-setup';
import { copyRootfs } from '../helpers/debian-rootfs';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

function image(root: string, name: string, mib: number): string {
  const p = join(root, name);
  writeFileSync(p, '');
  truncateSync(p, mib * 2 ** 20);
  return p;
}

function table(path: string): { label: string; partitions: Array<{ type: string; size: number }> } {
  const r = spawnSync('sfdisk', ['--json', path], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return (
    JSON.parse(r.stdout) as { partitiontable: { label: string; partitions: Array<{ type: string; size: number }> } }
  ).partitiontable;
}

function blkid(path: string): string {
  return spawnSync('blkid', ['-c', '/dev/null', '-p', '-o', 'export', path], { encoding: 'utf8' }).stdout;
}

test('layout arithmetic follows cloud-init', () => {
  assert.equal(mbrLayout(1000, true), '0,');
  assert.equal(mbrLayout(1000, [33, [66, 82]]), ',330,83\n,,82');
  assert.deepEqual(gptLayout(1000, [25, [75, 8200]]), [
    [undefined, '0', '+250'],
    ['8200', '0', '0'],
  ]);
  assert.throws(() => mbrLayout(1000, [10, 10, 10, 10, 10]), /simply/);
});

test("gpt partition types are right-padded with 0 to 4 characters, as 25.1's exec_mkpart_gpt (82 -> 8200)", () => {
  assert.deepEqual(
    gptLayout(1000, [
      [50, 82],
      [50, 'Linux'],
    ]),
    [
      ['8200', '0', '+500'],
      ['Linux', '0', '0'],
    ],
  );
});

test('disk_setup partitions MBR and GPT images and fs_setup makes labelled filesystems, once', async (t) => {
  if (
    !need(
      t,
      isRoot() &&
        hasCommand('unshare') &&
        hasCommand('debootstrap') &&
        hasCommand('sfdisk') &&
        hasCommand('blkid') &&
        hasCommand('mkfs.vfat'),
      'needs root, unshare, debootstrap, sfdisk, blkid and mkfs.vfat',
    )
  )
    return;
  const root = copyRootfs(tempDir(t, 'kiln-disk-'));
  const mbr = image(root, 'mbr.img', 64);
  const gpt = image(root, 'gpt.img', 64);
  const raw = image(root, 'raw.img', 32);
  const ctx = moduleContext(root);
  const cfg = {
    device_aliases: { data: '/mbr.img' },
    disk_setup: {
      data: { table_type: 'mbr', layout: [50, [50, 82]], overwrite: false },
      '/gpt.img': { table_type: 'gpt', layout: true },
      '/nothing.img': { layout: true },
    },
    fs_setup: [
      { device: '/raw.img', filesystem: 'ext4', label: 'rawfs', partition: 'any' },
      { device: '/raw2.img', filesystem: 'ext4', label: 'x', partition: 'none' },
    ],
  };
  await diskSetup.run(ctx, cfg);
  const m = table(mbr);
  assert.equal(m.label, 'dos');
  assert.deepEqual(
    m.partitions.map((p) => p.type),
    ['83', '82'],
  );
  const g = table(gpt);
  assert.equal(g.label, 'gpt');
  assert.equal(g.partitions.length, 1);
  assert.match(blkid(raw), /^LABEL=rawfs$/m);
  assert.match(blkid(raw), /^TYPE=ext4$/m);
  assert.ok(
    ctx.problems.some((p) => p.includes('disk_setup./nothing.img') && p.includes('not a disk device')),
    ctx.problems.join('\n'),
  );
  assert.ok(
    ctx.problems.some((p) => p.startsWith('ERROR: fs_setup[1]')),
    'a missing device is reported and the rest still done',
  );

  // Second run: layouts match and the filesystem exists, so nothing is rewritten.
  const uuid = /^UUID=(.*)$/m.exec(blkid(raw))?.[1];
  const again = moduleContext(root);
  await diskSetup.run(again, { ...cfg, fs_setup: [cfg.fs_setup[0]] });
  assert.equal(/^UUID=(.*)$/m.exec(blkid(raw))?.[1], uuid, 'the filesystem was not recreated');
  assert.deepEqual(
    table(mbr).partitions.map((p) => p.type),
    ['83', '82'],
  );

  // A used disk is not repartitioned without overwrite; with overwrite it is.
  await diskSetup.run(moduleContext(root), { disk_setup: { '/mbr.img': { table_type: 'mbr', layout: [100] } } });
  assert.equal(table(mbr).partitions.length, 2);
  await diskSetup.run(moduleContext(root), {
    disk_setup: { '/mbr.img': { table_type: 'mbr', layout: [100], overwrite: true } },
  });
  assert.equal(table(mbr).partitions.length, 1);

  // replace_fs names the type to replace with partition 'any' (find_device_node compares it with the device's).
  const vfat = image(root, 'vfat.img', 32);
  assert.equal(spawnSync('mkfs.vfat', [vfat]).status, 0);
  const replace = { device: '/vfat.img', filesystem: 'ext4', label: 'newfs', partition: 'any', overwrite: true };
  await diskSetup.run(moduleContext(root), { fs_setup: [{ ...replace, replace_fs: 'xfs' }] });
  assert.match(blkid(vfat), /^TYPE=vfat$/m, 'another type is left alone');
  await diskSetup.run(moduleContext(root), { fs_setup: [{ ...replace, replace_fs: 'vfat' }] });
  assert.match(blkid(vfat), /^TYPE=ext4$/m);
});

test('an empty layout list or mapping leaves the disk unpartitioned, as a false one (25.1: `or not layout`)', async (t) => {
  const root = tempDir(t);
  const disk = image(root, 'empty.img', 8);
  for (const layout of [[], {}]) {
    const ctx = moduleContext(root);
    await diskSetup.run(ctx, { disk_setup: { [disk.slice(root.length)]: { table_type: 'mbr', layout } } });
    assert.ok(
      ctx.lines.some((l) => l.includes('Device is not to be partitioned, skipping')),
      JSON.stringify(layout),
    );
    assert.equal(
      ctx.lines.some((l) => l.includes('Partition layout is invalid')),
      false,
    );
  }
});
