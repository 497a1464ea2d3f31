// Bigstep: the URL file, the JSON at it, and a metadata service that misbehaves (errors, delays, cut and huge bodies, drops, redirects).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { bigstepSource, BIGSTEP_URL_FILE } from '../../src/sources/bigstep';
import type { CrawlContext } from '../../src/sources/datasource';
import { Logger } from '../../src/util/log';
import { mockMetadataServer, type Misbehaviour } from '../helpers/mock-metadata-server';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const ANSWER = {
  metadata: { 'instance-id': 'bs-4711', 'local-hostname': 'bigstep-node', 'public-keys': ['ssh-ed25519 AAAAbig big@x'] },
  vendordata_raw: '#cloud-config\npackages: [htop]\n',
  userdata_raw: '#!/bin/sh\necho hi\n',
};

/** A root whose url file points at a mock serving BODY at /bs.json, misbehaving as asked. */
async function setup(t: TestContext, body: string, misbehave: Misbehaviour[] = [], settings: Record<string, unknown> = {}) {
  const served = tempDir(t);
  writeFileSync(join(served, 'bs.json'), body);
  const server = await mockMetadataServer(t, { kind: 'nocloud', dir: served, misbehave });
  const root = tempDir(t);
  mkdirSync(join(root, BIGSTEP_URL_FILE, '..'), { recursive: true });
  writeFileSync(join(root, BIGSTEP_URL_FILE), `${server.url}/bs.json\n`);
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  const ctx: CrawlContext = { platform, log, kernelCmdline: '', dmi: {}, config: {}, finder: new FakeFinder(platform), settings, signal: AbortSignal.timeout(20_000) };
  return { ctx, server };
}

test('Bigstep: detected by the url file only; its JSON gives metadata, vendor data and user data', async (t) => {
  const { ctx, server } = await setup(t, JSON.stringify(ANSWER));
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
  assert.equal(await bigstepSource.detect({ platform: elsewhere, log, kernelCmdline: '', dmi: {}, config: {}, finder: new FakeFinder(elsewhere) }), false);
});

test('Bigstep: a missing key or a non-JSON answer is an error naming it', async (t) => {
  for (const [body, why] of [
    [JSON.stringify({ metadata: {}, vendordata_raw: '' }), "no 'userdata_raw'"],
    [JSON.stringify({ vendordata_raw: '', userdata_raw: '' }), "no 'metadata'"],
    ['{"metadata": ', 'not JSON'],
    [JSON.stringify({ metadata: {}, vendordata_raw: 5, userdata_raw: '' }), "'vendordata_raw' must be a string"],
  ] as const) {
    const { ctx } = await setup(t, body);
    await assert.rejects(bigstepSource.crawl(ctx), (e: Error) => e.name === 'SourceError' && e.message.includes(why), why);
  }
});

test('Bigstep: a misbehaving service ends in a SourceError within its budget; retries, when configured, get past a 503', async (t) => {
  const body = JSON.stringify(ANSWER);
  const cases: Array<[string, Misbehaviour[], Record<string, unknown>]> = [
    ['status 500', [{ kind: 'status', value: 500 }], {}],
    ['delay past the timeout', [{ kind: 'delay', value: 4000 }], { timeout: 1 }],
    ['truncated body', [{ kind: 'truncate' }], {}],
    ['oversized body', [{ kind: 'oversize', value: 20 * 1024 * 1024 }], {}],
    ['dropped connection', [{ kind: 'drop' }], {}],
    ['redirect to another host', [{ kind: 'redirect-other-host' }], {}],
  ];
  for (const [what, misbehave, settings] of cases) {
    const { ctx } = await setup(t, body, misbehave, settings);
    const started = performance.now();
    await assert.rejects(bigstepSource.crawl(ctx), (e: Error) => e.name === 'SourceError', what);
    assert.ok(performance.now() - started < 3000, `${what}: took ${Math.round(performance.now() - started)} ms`);
  }
  const { ctx, server } = await setup(t, body, [{ kind: 'status', value: 503, times: 2 }], { retries: 2 });
  assert.equal((await bigstepSource.crawl(ctx)).instanceId, 'bs-4711');
  assert.equal(server.requests.length, 3);
});
