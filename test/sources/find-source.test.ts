// findSource: which candidates a stage crawls, the ephemeral lease around network sources in init-local, and fallbacks.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { DetectContext } from '../../src/sources/datasource';
import { LinuxEphemeralDhcp, type EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { findSource } from '../../src/sources/find-source';
import { ec2Source } from '../../src/sources/ec2/ec2';
import { gceSource } from '../../src/sources/gce';
import { noCloudSource } from '../../src/sources/nocloud';
import { noneSource } from '../../src/sources/none';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

function ctx(t: TestContext, config: Record<string, unknown> = {}): DetectContext {
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  return {
    platform,
    log,
    kernelCmdline: '',
    dmi: { sys_vendor: 'Amazon EC2' },
    config,
    finder: new FakeFinder(platform),
  };
}

test('init-local skips network sources and None without a lease; init takes None last', async (t) => {
  const c = ctx(t);
  assert.equal(await findSource(c, [ec2Source, noneSource], { stage: 'local' }), undefined);
  const found = await findSource(c, [noCloudSource, noneSource], { stage: 'network' });
  assert.equal(found?.source.name, 'None');
  assert.equal(found?.failures[0]?.name, 'NoCloud');
  assert.match(found?.failures[0]?.error ?? '', /no seed/);
});

test('init-local with an ephemeral network crawls Ec2 inside a lease, released afterwards', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'ec2',
    dir: join(FIXTURES, 'sources/ec2/imdsv2-required/tree'),
    imdsv2: 'required',
  });
  const events: string[] = [];
  const network: EphemeralNetwork = {
    up: async () => {
      events.push(`up (requests so far: ${server.requests.length})`);
      return {
        interface: 'eth0',
        release: async () => void events.push(`release (requests: ${server.requests.length > 0 ? 'some' : 'none'})`),
      };
    },
  };
  const found = await findSource(ctx(t, { datasource: { Ec2: { timeout: 2 } } }), [ec2Source, noneSource], {
    stage: 'local',
    network,
    baseUrl: server.url,
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(found?.source.name, 'Ec2');
  assert.equal(found?.data.instanceId, 'i-0123456789abcdef0');
  assert.deepEqual(events, ['up (requests so far: 0)', 'release (requests: some)']);
});

test('init-local takes no lease for a network source without local evidence, or with local_dhcp off', async (t) => {
  let ups = 0;
  const network: EphemeralNetwork = {
    up: async () => {
      ups++;
      return { interface: 'eth0', release: async () => undefined };
    },
  };
  // strict_id: false lets Ec2 be a candidate, but it is no evidence of AWS (cloud-init's Ec2Local does the same).
  const noDmi = { ...ctx(t, { datasource: { Ec2: { strict_id: false } } }), dmi: { sys_vendor: 'QEMU' } };
  assert.equal(await findSource(noDmi, [ec2Source, noneSource], { stage: 'local', network }), undefined);
  const off = ctx(t, { datasource: { Ec2: { local_dhcp: false } } });
  assert.equal(await findSource(off, [ec2Source, noneSource], { stage: 'local', network }), undefined);
  assert.equal(ups, 0);
});

test('a lease refused (a --root sandbox in the host network namespace) leaves the source to init without a warning', async (t) => {
  const c = ctx(t);
  const warnings: string[] = [];
  const log = Object.assign(Object.create(c.log) as typeof c.log, { warn: (m: string) => void warnings.push(m) });
  const network = new LinuxEphemeralDhcp({ platform: c.platform, log, sharesHostNetwork: async () => true });
  assert.equal(await findSource({ ...c, log }, [ec2Source, noneSource], { stage: 'local', network }), undefined);
  assert.deepEqual(warnings, []);
});

test("Ec2 passes cloud-init's apply_full_imds_network_config: false on with its network config", async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'ec2',
    dir: join(FIXTURES, 'sources/ec2/imdsv2-required/tree'),
    imdsv2: 'required',
  });
  const full = await findSource(ctx(t, { datasource: { Ec2: { timeout: 2 } } }), [ec2Source], {
    stage: 'network',
    baseUrl: server.url,
  });
  assert.equal(full?.data.networkConfig?.format, 'ec2');
  assert.equal(full?.data.networkConfig?.full, undefined);
  const primary = await findSource(
    ctx(t, { datasource: { Ec2: { timeout: 2, apply_full_imds_network_config: false } } }),
    [ec2Source],
    { stage: 'network', baseUrl: server.url },
  );
  assert.equal(primary?.data.networkConfig?.full, false);
});

test('init-local crawls GCE (GCELocal) inside a lease when DMI says Google, and takes none otherwise', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'gce', dir: join(FIXTURES, 'sources/gce/happy-path/tree') });
  const events: string[] = [];
  const network: EphemeralNetwork = {
    up: async () => {
      events.push(`up (requests so far: ${server.requests.length})`);
      return { interface: 'ens4', release: async () => void events.push('release') };
    },
  };
  const google = { ...ctx(t, { datasource: { GCE: { timeout: 2 } } }), dmi: { product_name: 'Google Compute Engine' } };
  const found = await findSource(google, [gceSource, noneSource], {
    stage: 'local',
    network,
    baseUrl: server.url,
    signal: AbortSignal.timeout(10_000),
  });
  assert.equal(found?.source.name, 'GCE');
  assert.equal(found?.data.availabilityZone, 'us-central1-a');
  assert.deepEqual(events, ['up (requests so far: 0)', 'release']);
  const qemu = { ...google, dmi: { product_name: 'Standard PC (Q35 + ICH9, 2009)' } };
  assert.equal(
    await findSource(qemu, [gceSource, noneSource], { stage: 'local', network, baseUrl: server.url }),
    undefined,
  );
  assert.equal(events.length, 2, 'no lease without Google DMI');
});

test('init-local leaves NoCloud with an http seedfrom (DMI serial) to the network stage: not a failure, no warning, as cloud-init logs it at debug', async (t) => {
  const logger = new Logger();
  const sink = new MemorySink('DEBUG');
  logger.addSink(sink);
  const log = logger.for('sources.py');
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const c: DetectContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: { product_serial: 'ds=nocloud;s=http://10.0.2.100/' },
    config: {},
    finder: new FakeFinder(platform),
  };
  assert.equal(await findSource(c, [noCloudSource, noneSource], { stage: 'local' }), undefined);
  assert.deepEqual(
    sink.lines.filter((l) => /WARNING|ERROR/.test(l)),
    [],
  );
  assert.ok(
    sink.lines.some((l) =>
      /NoCloud left to the init stage: NoCloud: seedfrom http:\/\/10\.0\.2\.100\/ needs the network/.test(l),
    ),
    sink.lines.join('\n'),
  );
});
