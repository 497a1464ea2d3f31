// Vultr beyond the fixtures: the request headers cloud-init sends, the lease in init-local, user data given as a list,
// and the mock's key paths.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { vultrInstanceData, vultrSource } from '../../src/sources/vultr/vultr';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const TREE = join(FIXTURES, 'sources/vultr/happy-path/tree');
const log = new Logger().for('test');

function crawlCtx(t: TestContext, url: string): CrawlContext {
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  return {
    platform,
    log,
    kernelCmdline: '',
    dmi: { sys_vendor: 'Vultr' },
    config: {},
    finder: new FakeFinder(platform),
    settings: { timeout: 1, max_wait: 5 },
    baseUrl: url,
    signal: AbortSignal.timeout(10_000),
  };
}

test('v1.json is asked for with Metadata-Token: cloudinit and a user agent, inside one temporary lease in init-local', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'vultr', dir: TREE });
  let ups = 0;
  const network: EphemeralNetwork = {
    up: async () => {
      ups++;
      return { interface: 'eth0', release: async () => undefined };
    },
  };
  await vultrSource.crawl({ ...crawlCtx(t, server.url), network, stage: 'local' });
  assert.equal(ups, 1);
  assert.deepEqual(
    server.requests.map((r) => [r.path, r.headers['metadata-token']]),
    [['/v1.json', 'cloudinit']],
  );
  assert.match(String(server.requests[0]?.headers['user-agent']), /^Cloud-Init\//);
});

test("user data: '' and [] are none, a list of parts becomes one multipart document; the region code is used without a country code", () => {
  const base = { 'instance-v2-id': 'id-1', hostname: '', region: { regioncode: 'EWR' } };
  const none = vultrInstanceData({ ...base, 'user-data': [], 'vendor-data': '' });
  assert.equal(none.userData, undefined);
  assert.equal(none.vendorData, undefined);
  assert.equal(none.localHostname, 'guest');
  assert.equal(none.region, 'ewr');
  assert.equal(vultrInstanceData({ ...base, 'user-data': '' }).userData, undefined);
  const parts = Buffer.from(
    vultrInstanceData({ ...base, 'user-data': ['#cloud-config\nruncmd: []\n', '#!/bin/sh\necho hi\n'] }).userData ?? [],
  ).toString();
  assert.match(parts, /^Content-Type: multipart\/mixed/);
  assert.match(parts, /text\/cloud-config[\s\S]*text\/x-shellscript/);
});

test('mock: v1.json as JSON, its keys below /v1/ as text, 404 for a missing one', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'vultr', dir: TREE });
  assert.equal((await fetch(`${server.url}/v1.json`)).headers.get('content-type'), 'application/json');
  assert.equal(await (await fetch(`${server.url}/v1/hostname`)).text(), 'vultr-web-1');
  assert.equal(await (await fetch(`${server.url}/v1/interfaces/1/mac`)).text(), '5a:00:03:1b:4e:ca');
  assert.equal((await fetch(`${server.url}/v1/nothing`)).status, 404);
});
