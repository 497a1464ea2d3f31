// The cached instance a stage starts from without a search: obj.json behind the instance link, with its source.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { restoreCachedSource } from '../../src/runner/cached-source';
import { CACHE_FILE, serializeInstance } from '../../src/runner/instance-cache';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { fakeSource } from './fakes';

const DATA: InstanceData = {
  instanceId: 'i-7',
  cloudName: 'fakecloud',
  platform: 'fake',
  subplatform: 'seed-dir (/seed/fake)',
  localHostname: 'h7',
  publicKeys: [],
  metadata: {},
};

test('a cached instance comes back with its source and the stage that found it; else none', async (t) => {
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log: new Logger().for('p') });
  const link = '/var/lib/cloud/instance';
  const fake = fakeSource('Fake');
  assert.equal(await restoreCachedSource(platform, link, [fake]), undefined);
  mkdirSync(join(root, 'var/lib/cloud/instances/i-7'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/instances/i-7', CACHE_FILE), serializeInstance('Fake', DATA, 'network'));
  symlinkSync('/var/lib/cloud/instances/i-7', join(root, 'var/lib/cloud/instance'));
  const found = await restoreCachedSource(platform, link, [fakeSource('Other'), fake]);
  assert.equal(found?.source, fake);
  assert.equal(found?.stage, 'network');
  assert.equal(found?.data.instanceId, 'i-7');
  assert.equal(found?.data.localHostname, 'h7');
  assert.equal(await restoreCachedSource(platform, link, [fakeSource('Other')]), undefined);
});
