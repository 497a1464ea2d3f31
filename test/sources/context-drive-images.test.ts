// OpenNebula's CONTEXT, RbxCloud's CLOUDMD and AltCloud's floppy read from real FAT images (mkfs.vfat + mcopy)
// through kiln's own device readers, as nothing is mounted at boot.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { altCloudSource } from '../../src/sources/altcloud';
import type { CrawlContext, Datasource, InstanceData } from '../../src/sources/datasource';
import { openNebulaSource } from '../../src/sources/opennebula/opennebula';
import { rbxCloudSource } from '../../src/sources/rbxcloud';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

function run(argv: string[]): void {
  const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
}

/** A FAT image of the files in DIR, labelled LABEL (none when empty), the size of a 1.44 MB floppy. */
function fatImage(t: TestContext, dir: string, label: string): string {
  const out = join(tempDir(t), 'fat.img');
  run(['truncate', '-s', '1440K', out]);
  run(['mkfs.vfat', ...(label ? ['-n', label] : []), out]);
  const names = spawnSync('sh', ['-c', `ls -A '${dir}'`], { encoding: 'utf8' })
    .stdout.trim()
    .split('\n');
  run(['mcopy', '-s', '-i', out, ...names.map((n) => join(dir, n)), '::']);
  return out;
}

async function crawl(
  t: TestContext,
  source: Datasource,
  image: string,
  dmi: Record<string, string> = {},
): Promise<InstanceData> {
  const log = new Logger().for('test');
  const ctx: CrawlContext = {
    platform: new LinuxPlatform({ root: tempDir(t), log }),
    log,
    kernelCmdline: '',
    dmi,
    config: {},
    finder: new ImageFilesFinder([image], log),
    settings: {},
  };
  assert.equal(await source.detect(ctx), true, `${source.name} detects the image`);
  return source.crawl(ctx);
}

const haveFatTools = () => hasCommand('mkfs.vfat') && hasCommand('mcopy');

test('OpenNebula: context.sh on a FAT filesystem labelled CONTEXT', async (t) => {
  if (!need(t, haveFatTools(), 'mkfs.vfat and mcopy (dosfstools, mtools) make the image')) return;
  const img = fatImage(t, join(FIXTURES, 'sources/opennebula/context-iso/drive'), 'CONTEXT');
  const data = await crawl(t, openNebulaSource, img);
  assert.equal(data.subplatform, `config-disk (${img})`);
  assert.equal(data.localHostname, 'one-vm-7');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nruncmd: [echo hi]\n');
});

test('RbxCloud: cloud.json and user.data on a FAT filesystem labelled CLOUDMD', async (t) => {
  if (!need(t, haveFatTools(), 'mkfs.vfat and mcopy (dosfstools, mtools) make the image')) return;
  const data = await crawl(t, rbxCloudSource, fatImage(t, join(FIXTURES, 'sources/rbxcloud/happy/drive'), 'CLOUDMD'));
  assert.equal(data.instanceId, '5be95b96-1ee2-4d5c-9b10-44d0b6fd9e1f');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nruncmd: [touch /rbx]\n');
});

test('AltCloud: user-data.txt on an unlabelled FAT floppy image (RHEV by DMI)', async (t) => {
  if (!need(t, haveFatTools(), 'mkfs.vfat and mcopy (dosfstools, mtools) make the image')) return;
  const data = await crawl(t, altCloudSource, fatImage(t, join(FIXTURES, 'sources/altcloud/rhev-dmi/floppy'), ''), {
    product_name: 'RHEV Hypervisor',
  });
  assert.equal(data.subplatform, 'rhev (/dev/fd0)');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nruncmd: [touch /rhev]');
});
