// The HTTP client against the misbehaving server: budgets, backoff, size limits, redirects, proxies.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { HttpClient, HttpError, isLocalHost } from '../../src/util/http';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer, type Misbehaviour } from '../helpers/mock-metadata-server';
import { tempDir } from '../helpers/temp';

async function setup(t: TestContext, misbehave: Misbehaviour[] = []) {
  const dir = tempDir(t);
  mkdirSync(join(dir, 'a'), { recursive: true });
  writeFileSync(join(dir, 'a/file'), 'hello');
  const server = await mockMetadataServer(t, { kind: 'nocloud', dir, misbehave });
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const sleeps: number[] = [];
  const client = new HttpClient({
    log: logger.for('http.ts'),
    random: () => 1,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  t.after(() => client.close());
  return { server, client, sleeps, sink };
}

async function rejects(p: Promise<unknown>, kind: HttpError['kind']): Promise<HttpError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof HttpError, `expected HttpError, got ${String(err)}`);
    assert.equal(err.kind, kind, err.message);
    return err;
  }
  assert.fail(`expected a ${kind} error`);
}

test('exponential backoff with jitter between retries, capped', async (t) => {
  const { server, client, sleeps } = await setup(t, [{ kind: 'status', value: 503, times: 4 }]);
  const res = await client.fetch(`${server.url}/a/file`, { retries: 5, backoffMs: 100, maxBackoffMs: 500 });
  assert.equal(res.text(), 'hello');
  assert.deepEqual(sleeps, [100, 200, 400, 500]);
});

test('404 is not retried; accepted statuses are returned', async (t) => {
  const { server, client, sleeps } = await setup(t);
  const err = await rejects(client.fetch(`${server.url}/missing`, { retries: 3 }), 'status');
  assert.equal(err.status, 404);
  assert.deepEqual(sleeps, []);
  assert.equal((await client.fetch(`${server.url}/missing`, { acceptStatuses: [404] })).status, 404);
});

test('the total budget stops retries and waits, whatever the retry count', { timeout: 60_000 }, async (t) => {
  const { server } = await setup(t, [{ kind: 'delay', value: 10_000 }]);
  const client = new HttpClient({ log: new Logger().for('http.ts') });
  t.after(() => client.close());
  // Ends (the server would answer only after 10 s, and 100 retries of 200 ms would take 20 s): by the budget, not a
  // retry.
  await rejects(
    client.fetch(`${server.url}/a/file`, { retries: 100, timeoutMs: 200, signal: AbortSignal.timeout(700) }),
    'budget',
  );
});

test('per-request timeout', async (t) => {
  const { server, client } = await setup(t, [{ kind: 'delay', value: 5000 }]);
  await rejects(client.fetch(`${server.url}/a/file`, { timeoutMs: 150 }), 'timeout');
});

test('bodies over the limit are refused, declared or streamed', async (t) => {
  const { server, client } = await setup(t, [{ kind: 'oversize', value: 2 * 1024 * 1024 }]);
  const err = await rejects(client.fetch(`${server.url}/a/file`, { maxBytes: 1024 * 1024 }), 'too-large');
  assert.match(err.message, /over the 1048576-byte limit/);
  const small = await setup(t);
  await rejects(small.client.fetch(`${small.server.url}/a/file`, { maxBytes: 3 }), 'too-large');
});

test('same-host redirects are followed, other hosts and loops refused', async (t) => {
  const { server, client } = await setup(t, [{ kind: 'redirect-loop', path: '/a', times: 1 }]);
  // /a redirects once to /a/ (a listing), which then answers
  assert.equal((await client.fetch(`${server.url}/a`)).text(), 'file');
  const other = await setup(t, [{ kind: 'redirect-other-host' }]);
  const err = await rejects(other.client.fetch(`${other.server.url}/a/file`), 'redirect');
  assert.match(err.message, /another host/);
  assert.equal(other.server.requests.length, 1, 'nothing was sent after the refused redirect');
  const loop = await setup(t, [{ kind: 'redirect-loop' }]);
  await rejects(loop.client.fetch(`${loop.server.url}/a/file`), 'redirect');
});

test('truncated bodies and dropped connections are errors, retried', async (t) => {
  const { server, client } = await setup(t, [{ kind: 'truncate', times: 1 }]);
  assert.equal((await client.fetch(`${server.url}/a/file`, { retries: 1 })).text(), 'hello');
  const drop = await setup(t, [{ kind: 'drop' }]);
  await rejects(drop.client.fetch(`${drop.server.url}/a/file`, { retries: 2 }), 'truncated');
  assert.equal(drop.server.requests.length, 3);
});

test('token headers are redacted in the log', async (t) => {
  const { server, client, sink } = await setup(t);
  await client.fetch(`${server.url}/a/file`, {
    headers: { 'X-aws-ec2-metadata-token': 'TOPSECRETTOKEN' },
    secretHeaders: ['x-aws-ec2-metadata-token'],
  });
  assert.ok(sink.lines.some((l) => l.includes('REDACTED')));
  assert.ok(!sink.lines.join('').includes('TOPSECRETTOKEN'));
});

test('link-local and loopback hosts never go through a proxy', async (t) => {
  assert.ok(isLocalHost('169.254.169.254'));
  assert.ok(isLocalHost('[fd00:ec2::254]'));
  assert.ok(isLocalHost('127.0.0.1'));
  assert.ok(!isLocalHost('seed.example.org'));
  const { server } = await setup(t);
  // A proxy that does not exist: the request still succeeds because loopback bypasses it.
  const client = new HttpClient({ log: new Logger().for('http.ts'), env: { http_proxy: 'http://127.0.0.1:9' } });
  t.after(() => client.close());
  assert.equal((await client.fetch(`${server.url}/a/file`)).text(), 'hello');
});
