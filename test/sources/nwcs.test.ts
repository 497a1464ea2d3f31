// NWCS: init-local's temporary DHCP lease (taken only when the service does not answer already) and the NIC names taken
// from this machine's MACs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { nwcsInstanceData, nwcsSource } from '../../src/sources/nwcs';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { scriptedPlatform } from './scripted-platform';

const TREE = join(FIXTURES, 'sources/nwcs/happy-path/tree');

function fakeNetwork(): { network: EphemeralNetwork; events: string[] } {
  const events: string[] = [];
  return {
    events,
    network: {
      async up() {
        events.push('up');
        return { interface: 'eth0', release: async () => void events.push('release') };
      },
    },
  };
}

function ctxFor(baseUrl: string, network: EphemeralNetwork): CrawlContext {
  const { platform } = scriptedPlatform({ nics: [], answer: () => undefined });
  return {
    platform,
    log: new Logger().for('test'),
    kernelCmdline: '',
    dmi: { sys_vendor: 'NWCS' },
    config: {},
    finder: { find: async () => [] } as never,
    settings: { retries: 2, timeout: 2, max_wait: 10 },
    baseUrl,
    stage: 'local',
    network,
  };
}

test('init-local: a temporary lease around the read when the service does not answer on the link yet, released after', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'nwcs',
    dir: TREE,
    misbehave: [{ kind: 'drop', path: '/api/v1/metadata/instance-id', times: 1 }],
  });
  const { network, events } = fakeNetwork();
  const data = await nwcsSource.crawl(ctxFor(server.url, network));
  assert.equal(data.instanceId, 'test');
  assert.deepEqual(events, ['up', 'release']);
  assert.deepEqual(
    server.requests.map((r) => r.path),
    ['/api/v1/metadata/instance-id', '/api/v1/metadata'],
  );
});

test('init-local: no lease when the metadata service already answers (the connectivity check of cloud-init)', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'nwcs', dir: TREE });
  const { network, events } = fakeNetwork();
  await nwcsSource.crawl(ctxFor(server.url, network));
  assert.deepEqual(events, []);
});

test('NICs named in the metadata take the names this machine gives their MACs', () => {
  const md = {
    'instance-id': 'i',
    hostname: 'h',
    'public-keys': [],
    network: {
      version: 1,
      config: [
        { type: 'physical', name: 'eth0', mac_address: '96:00:00:08:19:DA', subnets: [{ type: 'dhcp' }] },
        { type: 'physical', name: 'eth1', mac_address: '96:00:00:08:19:db', subnets: [{ type: 'dhcp' }] },
      ],
    },
  };
  const data = nwcsInstanceData(md, 'http://x', new Map([['96:00:00:08:19:da', 'ens3']]));
  const cfg = data.networkConfig?.config as { config: Array<{ name: string }> };
  assert.deepEqual(
    cfg.config.map((c) => c.name),
    ['ens3', 'eth1'],
  );
  // The metadata itself is kept as the service gave it.
  assert.equal((md.network.config[0] as { name: string }).name, 'eth0');
  assert.throws(
    () => nwcsInstanceData({ 'instance-id': 'i', hostname: 'h', network: md.network }, 'http://x'),
    /has no 'public-keys'/,
  );
});
