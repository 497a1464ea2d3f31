// The CloudStack/Exoscale password server protocol against the mock: the acknowledgement, its absence, saved_password,
// bad_request and empty answers, under cloud-init's and cloudbase-init's rules.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fetchVmPassword, type PasswordServerOptions } from '../../src/sources/password-server';
import { SourceError } from '../../src/sources/source-error';
import { HttpClient } from '../../src/util/http';
import { Logger } from '../../src/util/log';
import { mockMetadataServer, type RunningMetadataServer } from '../helpers/mock-metadata-server';
import { tempDir } from '../helpers/temp';

const log = new Logger().for('test');

async function serve(
  t: TestContext,
  password: string | undefined,
  kind: 'cloudstack' | 'exoscale' = 'cloudstack',
): Promise<RunningMetadataServer> {
  const dir = tempDir(t);
  mkdirSync(dir, { recursive: true });
  if (password !== undefined) writeFileSync(join(dir, 'password'), `${password}\n`);
  return mockMetadataServer(t, { kind, dir });
}

function options(
  t: TestContext,
  server: RunningMetadataServer,
  flavour: PasswordServerOptions['flavour'],
  retries = 0,
): PasswordServerOptions {
  const client = new HttpClient({ log });
  t.after(() => client.close());
  return { source: 'CloudStack', url: `${server.url}/`, client, log, timeoutMs: 2000, retries, flavour };
}

const asked = (s: RunningMetadataServer) => s.requests.map((r) => r.headers.domu_request);

test('the password is handed out once and acknowledged with saved_password; the next boot gets none', async (t) => {
  const server = await serve(t, 's3cret');
  assert.equal(await fetchVmPassword(options(t, server, 'cloud-init')), 's3cret');
  assert.deepEqual(asked(server), ['send_my_password', 'saved_password']);
  assert.deepEqual(server.passwordServer, { handedOut: 1, acknowledged: true, strayAcks: 0 });
  assert.equal(
    await fetchVmPassword(options(t, server, 'cloud-init')),
    undefined,
    'after the acknowledgement the server answers saved_password',
  );
  assert.deepEqual(asked(server).slice(2), ['send_my_password'], 'no second acknowledgement without a password');
});

test('exoscale: the same protocol at /1.0/ on its password port', async (t) => {
  const server = await serve(t, 'exo-pass', 'exoscale');
  assert.equal(await fetchVmPassword({ ...options(t, server, 'cloud-init'), url: `${server.url}/1.0/` }), 'exo-pass');
  assert.ok(server.passwordServer?.acknowledged);
  assert.deepEqual(
    server.requests.map((r) => r.path),
    ['/1.0/', '/1.0/'],
  );
});

test('no password (an empty answer): none, and nothing acknowledged', async (t) => {
  const server = await serve(t, undefined);
  assert.equal(await fetchVmPassword(options(t, server, 'cloud-init')), undefined);
  assert.deepEqual(asked(server), ['send_my_password']);
});

test('bad_request: an error under cloud-init (the source logs it and goes on), no password under cloudbase-init', async (t) => {
  const server = await serve(t, 'bad_request');
  await assert.rejects(
    fetchVmPassword(options(t, server, 'cloud-init')),
    (e: unknown) => e instanceof SourceError && /bad_request/.test(e.message),
  );
  assert.equal(await fetchVmPassword(options(t, server, 'cloudbase-init', 3)), undefined);
  assert.deepEqual(asked(server), ['send_my_password', 'send_my_password'], 'cloudbase-init stops at bad_request');
});

test('cloudbase-init asks again on an empty answer, retry_count times in all', async (t) => {
  const server = await serve(t, undefined);
  assert.equal(await fetchVmPassword(options(t, server, 'cloudbase-init', 2)), undefined);
  assert.equal(asked(server).length, 3);
});

test('a server that does not answer: a SourceError naming it, not a hang', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'cloudstack', dir: tempDir(t), misbehave: [{ kind: 'drop' }] });
  await assert.rejects(
    fetchVmPassword(options(t, server, 'cloud-init')),
    (e: unknown) => e instanceof SourceError && e.message.includes('did not answer send_my_password'),
  );
});

test('the mock refuses an acknowledgement before any password was handed out', async (t) => {
  const server = await serve(t, 'x');
  const client = new HttpClient({ log });
  t.after(() => client.close());
  const res = await client.fetch(`${server.url}/`, { headers: { DomU_Request: 'saved_password' } });
  assert.equal(res.text(), 'bad_request');
  assert.equal(server.passwordServer?.strayAcks, 1);
});
