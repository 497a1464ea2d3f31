// Hetzner in init-local checks the metadata service before a temporary lease, as cloud-init's EphemeralDHCPv4 with
// connectivity_urls_data does (Hetzner, Oracle, NWCS and Vultr upstream; not Ec2, GCE or Azure).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { hetznerSource } from '../../src/sources/hetzner/hetzner';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const TREE = join(FIXTURES, 'sources/hetzner/happy-path/tree');

function crawlCtx(t: TestContext, url: string, network: EphemeralNetwork): CrawlContext {
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const dmi = { sys_vendor: 'Hetzner', product_serial: '42' };
  return {
    platform,
    log,
    kernelCmdline: '',
    dmi,
    config: {},
    finder: new FakeFinder(platform),
    settings: { timeout: 1, retries: 2, max_wait: 5 },
    baseUrl: url,
    network,
    stage: 'local',
    signal: AbortSignal.timeout(10_000),
  };
}

function countingNetwork(): EphemeralNetwork & { ups: number } {
  const n = {
    ups: 0,
    up: async () => {
      n.ups++;
      return { interface: 'eth0', release: async () => undefined };
    },
  };
  return n;
}

test('init-local: no temporary lease when metadata/instance-id already answers; a lease when it does not', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'hetzner', dir: TREE });
  const reachable = countingNetwork();
  const data = await hetznerSource.crawl(crawlCtx(t, server.url, reachable));
  assert.equal(reachable.ups, 0, 'the service answered: no lease');
  assert.equal(data.instanceId, '42');
  assert.ok(
    server.requests.some((r) => r.path === '/hetzner/v1/metadata/instance-id'),
    'the connectivity probe asks for metadata/instance-id',
  );
  // The first connection is dropped, as when nothing routes to 169.254.169.254 yet: the crawl runs inside a lease.
  const dropping = await mockMetadataServer(t, { kind: 'hetzner', dir: TREE, misbehave: [{ kind: 'drop', times: 1 }] });
  const needed = countingNetwork();
  await hetznerSource.crawl(crawlCtx(t, dropping.url, needed));
  assert.equal(needed.ups, 1);
});
