// Bigstep: the URL file, the JSON at it (the `bigstep` mock kind), and a metadata service that misbehaves (errors,
// delays, cut and huge bodies, drops, redirects).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { bigstepInstanceData, bigstepSource, BIGSTEP_URL_FILE } from '../../src/sources/bigstep';
import type { CrawlContext } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { mockMetadataServer, type Misbehaviour, type RunningMetadataServer } from '../helpers/mock-metadata-server';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const ANSWER = {
  metadata: {
    'instance-id': 'bs-4711',
    'local-hostname': 'bigstep-node',
    'public-keys': ['ssh-ed25519 AAAAbig big@x'],
  },
  vendordata_raw: '#cloud-config\npackages: [htop]\n',
  userdata_raw: '#!/bin/sh\necho hi\n',
};

/** The bigstep mock's folder for ANSWER: metadata.json and the two raw blobs. */
function bigstepTree(t: TestContext): string {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'metadata.json'), JSON.stringify(ANSWER.metadata));
  writeFileSync(join(dir, 'vendordata_raw'), ANSWER.vendordata_raw);
  writeFileSync(join(dir, 'userdata_raw'), ANSWER.userdata_raw);
  return dir;
}

/**
 * A root whose url file points at /bs.json of a mock, misbehaving as asked: the bigstep kind (ANSWER) when BODY
 * is undefined, else a nocloud mock serving BODY as it is (documents the bigstep kind never assembles).
 */
async function setup(
  t: TestContext,
  body: string | undefined,
  misbehave: Misbehaviour[] = [],
  settings: Record<string, unknown> = {},
) {
  let server: RunningMetadataServer;
  if (body === undefined) server = await mockMetadataServer(t, { kind: 'bigstep', dir: bigstepTree(t), misbehave });
  else {
    const served = tempDir(t);
    writeFileSync(join(served, 'bs.json'), body);
    server = await mockMetadataServer(t, { kind: 'nocloud', dir: served, misbehave });
  }
  const root = tempDir(t);
  mkdirSync(join(root, BIGSTEP_URL_FILE, '..'), { recursive: true });
  writeFileSync(join(root, BIGSTEP_URL_FILE), `${server.url}/bs.json\n`);
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  const ctx: CrawlContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform),
    settings,
    signal: AbortSignal.timeout(20_000),
  };
  return { ctx, server };
}

test('Bigstep: detected by the url file only; its JSON gives metadata, vendor data and user data', async (t) => {
  const { ctx, server } = await setup(t, undefined);
  assert.equal(await bigstepSource.detect(ctx), true);
  const data = await bigstepSource.crawl(ctx);
  assert.equal(data.instanceId, 'bs-4711');
  assert.equal(data.localHostname, 'bigstep-node');
  assert.equal(data.subplatform, `metadata (${server.url}/bs.json)`);
  assert.deepEqual(data.publicKeys, ['ssh-ed25519 AAAAbig big@x']);
  assert.equal(Buffer.from(data.vendorData ?? []).toString(), ANSWER.vendordata_raw);
  assert.equal(Buffer.from(data.userData ?? []).toString(), ANSWER.userdata_raw);
  const empty = tempDir(t);
  const log = new Logger().for('test');
  const elsewhere = new LinuxPlatform({ root: empty, log });
  assert.equal(
    await bigstepSource.detect({
      platform: elsewhere,
      log,
      kernelCmdline: '',
      dmi: {},
      config: {},
      finder: new FakeFinder(elsewhere),
    }),
    false,
  );
});

test('Bigstep: a missing key or a non-JSON answer is an error naming it', async (t) => {
  for (const [body, why] of [
    [JSON.stringify({ metadata: {}, vendordata_raw: '' }), "no 'userdata_raw'"],
    [JSON.stringify({ vendordata_raw: '', userdata_raw: '' }), "no 'metadata'"],
    ['{"metadata": ', 'not JSON'],
    [JSON.stringify({ metadata: {}, vendordata_raw: 5, userdata_raw: '' }), "'vendordata_raw' must be a string"],
  ] as const) {
    const { ctx } = await setup(t, body);
    await assert.rejects(
      bigstepSource.crawl(ctx),
      (e: Error) => e.name === 'SourceError' && e.message.includes(why),
      why,
    );
  }
});

test('Bigstep: a misbehaving service ends in a SourceError within its budget; retries, when configured, get past a 503', {
  timeout: 60_000,
}, async (t) => {
  const cases: Array<[string, Misbehaviour[], Record<string, unknown>]> = [
    ['status 500', [{ kind: 'status', value: 500 }], {}],
    ['delay past the timeout', [{ kind: 'delay', value: 4000 }], { timeout: 1 }],
    ['truncated body', [{ kind: 'truncate' }], {}],
    ['oversized body', [{ kind: 'oversize', value: 20 * 1024 * 1024 }], {}],
    ['dropped connection', [{ kind: 'drop' }], {}],
    ['redirect to another host', [{ kind: 'redirect-other-host' }], {}],
  ];
  for (const [what, misbehave, settings] of cases) {
    const { ctx } = await setup(t, undefined, misbehave, settings);
    await assert.rejects(bigstepSource.crawl(ctx), (e: Error) => e.name === 'SourceError', what);
  }
  const { ctx, server } = await setup(t, undefined, [{ kind: 'status', value: 503, times: 2 }], { retries: 2 });
  assert.equal((await bigstepSource.crawl(ctx)).instanceId, 'bs-4711');
  assert.equal(server.requests.length, 3);
});

test('the bigstep mock kind: the document at any path, raw blobs absent as empty strings, no metadata.json a 404', async (t) => {
  const dir = tempDir(t);
  const server = await mockMetadataServer(t, { kind: 'bigstep', dir });
  assert.equal((await fetch(`${server.url}/instances/17`)).status, 404);
  writeFileSync(join(dir, 'metadata.json'), JSON.stringify({ 'instance-id': 17 }));
  const res = await fetch(`${server.url}/instances/17`);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.deepEqual(await res.json(), { metadata: { 'instance-id': 17 }, vendordata_raw: '', userdata_raw: '' });
  assert.equal((await fetch(`${server.url}/`, { method: 'POST', body: 'x' })).status, 405);
  writeFileSync(join(dir, 'metadata.json'), '{"instance-id": ');
  assert.equal((await fetch(`${server.url}/x`)).status, 500);
});

test("Bigstep: the zone, region and cloud-name come from the metadata, as cloud-init's DataSource base class reads them", () => {
  const url = 'http://10.0.0.1/x';
  const base = { vendordata_raw: '', userdata_raw: '' };
  const given = bigstepInstanceData(
    {
      ...base,
      metadata: { 'instance-id': 'a', 'availability-zone': 'z1', region: 'r1', 'cloud-name': 'BigStep-Private' },
    },
    url,
  );
  assert.equal(given.availabilityZone, 'z1');
  assert.equal(given.region, 'r1');
  assert.equal(given.cloudName, 'bigstep-private');
  assert.equal(bigstepInstanceData({ ...base, metadata: { availability_zone: 'z2' } }, url).availabilityZone, 'z2');
  assert.equal(
    bigstepInstanceData({ ...base, metadata: { placement: { 'availability-zone': 'z3' } } }, url).availabilityZone,
    'z3',
  );
  const none = bigstepInstanceData({ ...base, metadata: { 'cloud-name': 5 } }, url);
  assert.equal(none.availabilityZone, undefined);
  assert.equal(none.region, undefined);
  assert.equal(none.cloudName, 'bigstep');
});
