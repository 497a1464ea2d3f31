// obj.json names the user and vendor data blobs beside it by size and hash instead of copying them; a blob that
// is missing or changed makes the cache untrusted (the source is read again), never silently different.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { restoreInstance, serializeInstance, CACHE_FILE } from '../../src/runner/instance-cache';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

const data: InstanceData = {
  instanceId: 'iid-1',
  cloudName: 'nocloud',
  platform: 'nocloud',
  subplatform: 'seed-dir (/x)',
  publicKeys: ['ssh-ed25519 AAAA k'],
  userData: new Uint8Array(Buffer.from('#cloud-config\nhostname: h\n')),
  vendorData: new Uint8Array(Buffer.from('#cloud-config\n{}\n')),
  files: [{ path: '/etc/x', content: new Uint8Array([1, 2, 3]) }],
  metadata: { 'instance-id': 'iid-1' },
};

async function saved(t: Parameters<typeof tempDir>[0]) {
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log: new Logger().for('t') });
  const dir = '/var/lib/cloud/instances/iid-1';
  await platform.writeFile(`${dir}/user-data.txt`, data.userData as Uint8Array);
  await platform.writeFile(`${dir}/vendor-data.txt`, data.vendorData as Uint8Array);
  await platform.writeFile(`${dir}/${CACHE_FILE}`, serializeInstance('NoCloud', data));
  return { root, platform, dir };
}

test('obj.json holds no copy of the blobs, and restores them from the files beside it', async (t) => {
  const { root, platform, dir } = await saved(t);
  const text = readFileSync(join(root, dir, CACHE_FILE), 'utf8');
  assert.doesNotMatch(text, /hostname: h|aG9zdG5hbWU/, 'neither the text nor its base64');
  const back = await restoreInstance(platform, dir);
  assert.equal(back?.source, 'NoCloud');
  assert.deepEqual(Buffer.from(back?.data.userData ?? []).toString(), '#cloud-config\nhostname: h\n');
  assert.deepEqual(Buffer.from(back?.data.vendorData ?? []).toString(), '#cloud-config\n{}\n');
  assert.equal(back?.data.vendorData2, undefined);
  assert.deepEqual([...(back?.data.files?.[0]?.content ?? [])], [1, 2, 3]);
  assert.deepEqual(back?.data.publicKeys, data.publicKeys);
});

test('a changed or missing blob, or an older cache, is not trusted', async (t) => {
  const { root, platform, dir } = await saved(t);
  writeFileSync(join(root, dir, 'user-data.txt'), '#cloud-config\nhostname: H\n');
  assert.equal(await restoreInstance(platform, dir), undefined, 'same size, other content');
  writeFileSync(join(root, dir, 'user-data.txt'), '');
  assert.equal(await restoreInstance(platform, dir), undefined, 'empty (a crash before it was written)');
  writeFileSync(
    join(root, dir, CACHE_FILE),
    JSON.stringify({ version: 1, source: 'NoCloud', data: { instanceId: 'iid-1' } }),
  );
  assert.equal(await restoreInstance(platform, dir), undefined);
});
