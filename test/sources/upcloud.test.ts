// UpCloud beyond the fixtures: UpCloudLocal reads inside a temporary DHCP lease, UpCloud (init) without one; the mock's
// key paths.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { upCloudInstanceData, upCloudSource } from '../../src/sources/upcloud/upcloud';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const TREE = join(FIXTURES, 'sources/upcloud/happy-path/tree');
const log = new Logger().for('test');

function crawlCtx(t: TestContext, url: string): CrawlContext {
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const dmi = { sys_vendor: 'UpCloud', product_uuid: '00322b68-0096-4042-9406-faad61922128' };
  return {
    platform,
    log,
    kernelCmdline: '',
    dmi,
    config: {},
    finder: new FakeFinder(platform),
    settings: { timeout: 1, max_wait: 5 },
    baseUrl: url,
    signal: AbortSignal.timeout(10_000),
  };
}

test('UpCloudLocal takes one DHCP lease around the read and gives it back; UpCloud in init takes none', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'upcloud', dir: TREE });
  const events: string[] = [];
  const network: EphemeralNetwork = {
    up: async (o) => {
      events.push(`up ${JSON.stringify(o ?? {})}`);
      return { interface: 'eth0', release: async () => void events.push('release') };
    },
  };
  const local = await upCloudSource.crawl({ ...crawlCtx(t, server.url), network, stage: 'local' });
  assert.deepEqual(events, ['up {}', 'release']);
  assert.equal(local.instanceId, '00322b68-0096-4042-9406-faad61922128');
  const init = await upCloudSource.crawl({ ...crawlCtx(t, server.url), stage: 'network' });
  assert.equal(events.length, 2);
  assert.deepEqual(init.metadata, local.metadata);
});

test('a missing instance_id falls back to the DMI system UUID and a missing region to the zone "default", as cloud-init', () => {
  const data = upCloudInstanceData(
    { hostname: 'h' },
    '00322b68-0096-4042-9406-faad61922128',
    'http://x/metadata/v1.json',
  );
  assert.equal(data.instanceId, '00322b68-0096-4042-9406-faad61922128');
  assert.equal(data.availabilityZone, 'default');
  assert.equal(data.networkConfig, undefined);
});

test('mock: metadata/v1.json as JSON, its keys as plain-text paths, 404 for a missing one', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'upcloud', dir: TREE });
  const whole = await fetch(`${server.url}/metadata/v1.json`);
  assert.equal(whole.headers.get('content-type'), 'application/json');
  assert.equal(await (await fetch(`${server.url}/metadata/v1/hostname`)).text(), 'upcloud-web-1');
  assert.equal(await (await fetch(`${server.url}/metadata/v1/network/interfaces/0/mac`)).text(), '3a:d6:ba:4a:36:e7');
  assert.equal((await fetch(`${server.url}/metadata/v1/nothing`)).status, 404);
});
