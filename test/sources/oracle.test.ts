// Oracle beyond the fixtures: the mock's v2 header rule, the header on every v2 request, and when the temporary lease
// and the vnics are skipped.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { buildInstanceData } from '../../src/runner/instance-data';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { findSource } from '../../src/sources/find-source';
import { noneSource } from '../../src/sources/none';
import { oracleSource } from '../../src/sources/oracle/oracle';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';
import { hostUname } from '../../src/platform/host-uname';

const TREE = join(FIXTURES, 'sources/oracle/happy-v2/tree');
const DMI = { chassis_asset_tag: 'OracleCloud.com' };

function crawlCtx(
  t: TestContext,
  url: string,
  root = tempDir(t),
  settings: Record<string, unknown> = {},
): CrawlContext {
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  return {
    platform,
    log,
    kernelCmdline: '',
    dmi: DMI,
    config: {},
    finder: new FakeFinder(platform),
    settings: { timeout: 1, max_wait: 5, ...settings },
    baseUrl: url,
    signal: AbortSignal.timeout(10_000),
  };
}

function countingNetwork(): EphemeralNetwork & { ups: number } {
  const n = {
    ups: 0,
    up: async () => {
      n.ups++;
      return { interface: 'ens3', release: async () => undefined };
    },
  };
  return n;
}

test('the mock answers /opc/v2/ only with Authorization: Bearer Oracle; v1 only where the tree has it', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'oracle', dir: TREE });
  assert.equal((await fetch(`${server.url}/opc/v2/instance/`)).status, 401);
  assert.equal(
    (await fetch(`${server.url}/opc/v2/instance/`, { headers: { Authorization: 'Bearer Other' } })).status,
    401,
  );
  const ok = await fetch(`${server.url}/opc/v2/instance/`, { headers: { Authorization: 'Bearer Oracle' } });
  assert.equal(ok.status, 200);
  assert.equal(((await ok.json()) as { id: string }).id, 'ocid1.instance.oc1.iad.anuwcljtkiln0000');
  assert.equal((await fetch(`${server.url}/opc/v1/instance/`)).status, 404);
});

test('every v2 request carries the Bearer header; instance then vnics', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'oracle', dir: TREE });
  const data = await oracleSource.crawl(crawlCtx(t, server.url));
  assert.equal(data.instanceId, 'ocid1.instance.oc1.iad.anuwcljtkiln0000');
  assert.deepEqual(
    server.requests.map((r) => [r.path, r.headers.authorization, r.status]),
    [
      ['/opc/v2/instance/', 'Bearer Oracle', 200],
      ['/opc/v2/vnics/', 'Bearer Oracle', 200],
    ],
  );
});

test('the v1 fallback sends no Authorization header', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'oracle',
    dir: join(FIXTURES, 'sources/oracle/v1-fallback/tree'),
  });
  await oracleSource.crawl(crawlCtx(t, server.url));
  const v1 = server.requests.filter((r) => r.path.startsWith('/opc/v1/'));
  assert.deepEqual(
    v1.map((r) => r.path),
    ['/opc/v1/instance/', '/opc/v1/vnics/'],
  );
  for (const r of v1) assert.equal(r.headers.authorization, undefined);
});

test('iSCSI root (klibc /run/net-*.conf): no vnics request and no temporary lease, whose release would cut the root disk off', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'oracle', dir: TREE });
  const root = tempDir(t);
  mkdirSync(join(root, 'run'), { recursive: true });
  writeFileSync(join(root, 'run/net-ens3.conf'), "DEVICE='ens3'\nPROTO='dhcp'\n");
  const network = countingNetwork();
  const data = await oracleSource.crawl({ ...crawlCtx(t, server.url, root), network, stage: 'local' });
  assert.equal(network.ups, 0);
  assert.deepEqual(
    server.requests.map((r) => r.path),
    ['/opc/v2/instance/'],
  );
  assert.deepEqual(data.networkConfig?.config, { configureSecondaryNics: false });
  // configure_secondary_nics needs the vnics even on iSCSI root.
  server.requests.length = 0;
  await oracleSource.crawl(crawlCtx(t, server.url, root, { configure_secondary_nics: true }));
  assert.deepEqual(
    server.requests.map((r) => r.path),
    ['/opc/v2/instance/', '/opc/v2/vnics/'],
  );
});

test('init-local: a lease only when the metadata service does not already answer', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'oracle', dir: TREE });
  const reachable = countingNetwork();
  await oracleSource.crawl({ ...crawlCtx(t, server.url), network: reachable, stage: 'local' });
  assert.equal(reachable.ups, 0, 'the service answered: no lease, as cloud-init checks connectivity first');
  // The first connection is dropped, as when nothing routes to 169.254.169.254 yet: the crawl runs inside a lease.
  const dropping = await mockMetadataServer(t, { kind: 'oracle', dir: TREE, misbehave: [{ kind: 'drop', times: 1 }] });
  const needed = countingNetwork();
  const data = await oracleSource.crawl({ ...crawlCtx(t, dropping.url), network: needed, stage: 'local' });
  assert.equal(needed.ups, 1);
  assert.equal(data.cloudName, 'oracle');
});

test('findSource in init-local crawls Oracle on its asset tag alone, and not without it', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'oracle', dir: TREE });
  const base = crawlCtx(t, server.url);
  const found = await findSource(base, [oracleSource, noneSource], {
    stage: 'local',
    network: countingNetwork(),
    baseUrl: server.url,
  });
  assert.equal(found?.source.name, 'Oracle');
  assert.equal(
    await findSource({ ...base, dmi: { chassis_asset_tag: 'No Asset Tag' } }, [oracleSource, noneSource], {
      stage: 'local',
      network: countingNetwork(),
      baseUrl: server.url,
    }),
    undefined,
  );
});

test("instance-data.json's ds is the crawled instance document alone, as cloud-init's _crawled_metadata makes it (no meta_data beside it)", async (t) => {
  const server = await mockMetadataServer(t, { kind: 'oracle', dir: TREE });
  const data = await oracleSource.crawl(crawlCtx(t, server.url));
  const doc = buildInstanceData({
    kernel: hostUname(),
    instance: data,
    distro: { name: 'debian', family: 'debian', version: '12' },
    mergedConfig: {},
    systemConfig: {},
  }) as { ds: Record<string, unknown> };
  const instance = JSON.parse(readFileSync(join(TREE, 'opc/v2/instance'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(doc.ds).sort(), [...Object.keys(instance), '_doc'].sort());
  assert.equal(doc.ds.id, 'ocid1.instance.oc1.iad.anuwcljtkiln0000');
});
