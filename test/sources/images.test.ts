// NoCloud and ConfigDrive read from real images made by genisoimage, mkfs.vfat + mcopy and kiln's make-seed, through
// the device readers.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { makeSeed } from '../../src/devices/make-seed';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { configDriveSource } from '../../src/sources/config-drive';
import type { CrawlContext, Datasource, InstanceData } from '../../src/sources/datasource';
import { noCloudSource } from '../../src/sources/nocloud';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const NOCLOUD_DIR = join(FIXTURES, 'sources/nocloud/cidata-drive/drive');
const CONFIG_DRIVE_DIR = join(FIXTURES, 'sources/configdrive/latest-full/drive');

function run(argv: string[]): void {
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
}

async function crawlImage(t: TestContext, source: Datasource, image: string): Promise<InstanceData> {
  const log = new Logger().for('test');
  const ctx: CrawlContext = {
    platform: new LinuxPlatform({ root: tempDir(t), log }),
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new ImageFilesFinder([image], log),
    settings: {},
  };
  assert.equal(await source.detect(ctx), true, 'detect() finds the labelled image');
  return source.crawl(ctx);
}

function genisoimage(dir: string, label: string, out: string): void {
  run(['genisoimage', '-quiet', '-output', out, '-volid', label, '-joliet', '-rock', dir]);
}

function vfat(dir: string, label: string, out: string): void {
  run(['truncate', '-s', '8M', out]);
  run(['mkfs.vfat', '-n', label, out]);
  run([
    'mcopy',
    '-s',
    '-i',
    out,
    ...spawnSync('sh', ['-c', `ls -A '${dir}'`], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((n) => join(dir, n)),
    '::',
  ]);
}

function checkNoCloud(data: InstanceData, device: string): void {
  assert.equal(data.instanceId, 'iid-cidata');
  assert.equal(data.localHostname, 'cidata-host');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nhostname: from-user-data\n');
  assert.match(data.subplatform, new RegExp(`^config-disk \\(${device.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
}

function checkConfigDrive(data: InstanceData): void {
  assert.equal(data.instanceId, '83679162-1378-4288-a2d4-70e13ec132aa');
  assert.equal(data.publicKeys.length, 3);
  assert.equal(data.adminPassword, 's3cret-Admin-Pass');
  assert.equal(Buffer.from(data.vendorData2 ?? []).toString(), '#cloud-config\nruncmd: [vd2]\n');
  assert.deepEqual(
    data.files?.map((f) => [f.path, Buffer.from(f.content).toString()]),
    [['/etc/motd', 'hello from content\n']],
  );
  assert.equal(data.networkConfig?.format, 'openstack');
}

test('NoCloud from a cidata ISO made by genisoimage', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const img = join(tempDir(t), 'seed.iso');
  genisoimage(NOCLOUD_DIR, 'cidata', img);
  checkNoCloud(await crawlImage(t, noCloudSource, img), img);
});

test('NoCloud from a CIDATA FAT image made by mkfs.vfat + mcopy', async (t) => {
  if (
    !need(
      t,
      hasCommand('mkfs.vfat') && hasCommand('mcopy'),
      'mkfs.vfat and mcopy (dosfstools, mtools) are not installed',
    )
  )
    return;
  const img = join(tempDir(t), 'seed.img');
  vfat(NOCLOUD_DIR, 'CIDATA', img);
  checkNoCloud(await crawlImage(t, noCloudSource, img), img);
});

test('ConfigDrive from a config-2 ISO made by genisoimage', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const img = join(tempDir(t), 'cd.iso');
  genisoimage(CONFIG_DRIVE_DIR, 'config-2', img);
  checkConfigDrive(await crawlImage(t, configDriveSource, img));
});

test('ConfigDrive from a config-2 FAT image made by mkfs.vfat + mcopy', async (t) => {
  if (
    !need(
      t,
      hasCommand('mkfs.vfat') && hasCommand('mcopy'),
      'mkfs.vfat and mcopy (dosfstools, mtools) are not installed',
    )
  )
    return;
  const img = join(tempDir(t), 'cd.img');
  vfat(CONFIG_DRIVE_DIR, 'config-2', img);
  checkConfigDrive(await crawlImage(t, configDriveSource, img));
});

for (const format of ['iso', 'vfat'] as const) {
  test(`NoCloud and ConfigDrive from kiln make-seed (${format})`, async (t) => {
    const dir = tempDir(t);
    const nc = join(dir, `nocloud.${format}`);
    writeFileSync(nc, await makeSeed({ kind: 'nocloud', format, inputs: [NOCLOUD_DIR] }));
    checkNoCloud(await crawlImage(t, noCloudSource, nc), nc);
    const cd = join(dir, `configdrive.${format}`);
    writeFileSync(cd, await makeSeed({ kind: 'configdrive', format, inputs: [CONFIG_DRIVE_DIR] }));
    checkConfigDrive(await crawlImage(t, configDriveSource, cd));
  });
}
