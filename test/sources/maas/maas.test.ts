// MAAS beyond the fixtures: the header on the wire, the mock's signature rules, and the clock skew learnt from a 401's
// Date, kept in /run/oauth_skew.json for the next run.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../../src/sources/datasource';
import { maasSource } from '../../../src/sources/maas/maas';
import { oauthAuthorization } from '../../../src/sources/maas/oauth1';
import { Logger, MemorySink } from '../../../src/util/log';
import { mockMetadataServer } from '../../helpers/mock-metadata-server';
import { FIXTURES } from '../../helpers/repo';
import { tempDir } from '../../helpers/temp';
import { FakeFinder } from '../fake-finder';

const TREE = join(FIXTURES, 'sources/maas/happy-path/tree');
const SKEWED = join(FIXTURES, 'sources/maas/clock-skew/tree');
const AUTH = JSON.parse(readFileSync(join(TREE, 'oauth.json'), 'utf8')) as {
  consumer_key: string;
  token_key: string;
  token_secret: string;
};
const SETTINGS = {
  consumer_key: AUTH.consumer_key,
  token_key: AUTH.token_key,
  token_secret: AUTH.token_secret,
  max_wait: 10,
  timeout: 2,
};

function crawlCtx(
  root: string,
  url: string,
  settings: Record<string, unknown> = SETTINGS,
): { ctx: CrawlContext; sink: MemorySink } {
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const platform = new LinuxPlatform({ root, log });
  return {
    ctx: {
      platform,
      log,
      kernelCmdline: '',
      dmi: {},
      config: {},
      finder: new FakeFinder(platform),
      settings,
      baseUrl: url,
      signal: AbortSignal.timeout(20_000),
    },
    sink,
  };
}

const get = (url: string, authorization?: string) => fetch(url, authorization ? { headers: { authorization } } : {});
const creds = {
  consumerKey: AUTH.consumer_key,
  consumerSecret: '',
  tokenKey: AUTH.token_key,
  tokenSecret: AUTH.token_secret,
};

test('the mock refuses a missing, wrong, stale or replayed signature with 401 and its Date; a good one passes, oauth.json is never served', async (t: TestContext) => {
  const server = await mockMetadataServer(t, { kind: 'maas', dir: TREE });
  const url = `${server.url}/2012-03-01/meta-data/instance-id`;
  // An HTTP Date has whole seconds: the answer's lies between the second the request left and the moment it came back.
  const within = (date: number, before: number, after: number, skew = 0) =>
    date >= Math.floor((before + skew) / 1000) * 1000 && date <= after + skew;
  let before = Date.now();
  const none = await get(url);
  assert.equal(none.status, 401);
  assert.ok(
    within(Date.parse(none.headers.get('date') ?? ''), before, Date.now()),
    none.headers.get('date') ?? 'no Date',
  );
  assert.equal((await get(url, oauthAuthorization({ ...creds, tokenSecret: 'wrong' }))).status, 401);
  assert.equal(
    (await get(url, oauthAuthorization(creds, { timestamp: Math.trunc(Date.now() / 1000) - 3600 }))).status,
    401,
  );
  const header = oauthAuthorization(creds, { nonce: 'once' });
  const ok = await get(url, header);
  assert.equal(ok.status, 200);
  assert.equal(await ok.text(), 'node-4y3h7n');
  assert.equal((await get(url, header)).status, 401, 'a replayed nonce is refused');
  assert.equal((await get(`${server.url}/oauth.json`, oauthAuthorization(creds))).status, 404);
  assert.equal(
    await (await get(`${server.url}/2012-03-01/meta-data/`, oauthAuthorization(creds))).text(),
    'instance-id\nlocal-hostname\npublic-keys\nvendor-data',
  );
  // A server whose clock is an hour ahead says so in its Date.
  const skewed = await mockMetadataServer(t, { kind: 'maas', dir: SKEWED });
  before = Date.now();
  const date = Date.parse((await get(`${skewed.url}/2012-03-01/meta-data/instance-id`)).headers.get('date') ?? '');
  assert.ok(within(date, before, Date.now(), 3600_000), new Date(date).toISOString());
});

test("every request carries oauthlib's PLAINTEXT header: fresh nonce, now as timestamp, no realm", async (t) => {
  const server = await mockMetadataServer(t, { kind: 'maas', dir: TREE });
  const { ctx } = crawlCtx(tempDir(t), server.url);
  const before = Math.floor(Date.now() / 1000);
  await maasSource.crawl(ctx);
  const after = Date.now() / 1000;
  const gets = server.requests.map((r) => [r.path, r.status, String(r.headers.authorization)] as const);
  assert.deepEqual(
    gets.map(([p, s]) => `${s} ${p}`),
    [
      '200 /2012-03-01/meta-data/instance-id',
      '200 /2012-03-01/meta-data/instance-id',
      '200 /2012-03-01/meta-data/local-hostname',
      '200 /2012-03-01/meta-data/public-keys',
      '200 /2012-03-01/meta-data/vendor-data',
      '200 /2012-03-01/user-data',
    ],
  );
  const nonces = new Set<string>();
  for (const [, , h] of gets) {
    const m =
      /^OAuth oauth_nonce="(\d+)", oauth_timestamp="(\d+)", oauth_version="1\.0", oauth_signature_method="PLAINTEXT", oauth_consumer_key="CKmaasKiln01", oauth_token="TKmaasKiln02", oauth_signature="%26TSmaasKiln03secret"$/.exec(
        h,
      );
    assert.ok(m, h);
    assert.ok(Number(m[2]) >= before && Number(m[2]) <= after, `timestamp ${m[2]} is not the time of the crawl`);
    assert.ok((m[1] as string).endsWith(m[2] as string), 'the nonce ends with the time, as oauthlib makes it');
    nonces.add(m[1] as string);
  }
  assert.equal(nonces.size, gets.length, 'no nonce is used twice');
});

test('clock skew: a 401 Date an hour ahead is learnt, written to /run/oauth_skew.json by host, and used from the first request of the next run', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'maas', dir: SKEWED });
  const root = tempDir(t);
  const first = crawlCtx(root, server.url);
  const data = await maasSource.crawl(first.ctx);
  assert.equal(data.instanceId, 'node-4y3h7n');
  assert.equal(server.requests[0]?.status, 401);
  assert.ok(server.requests.slice(1).every((r) => r.status === 200));
  const host = new URL(server.url).host;
  const file = join(root, 'run/oauth_skew.json');
  assert.ok(existsSync(file));
  const text = readFileSync(file, 'utf8');
  assert.match(text, /^\{"[^"]+": \d+\}$/, "Python's json.dumps spacing");
  const skew = (JSON.parse(text) as Record<string, number>)[host] as number;
  assert.ok(Math.abs(skew - 3600) <= 2, String(skew));
  assert.match(
    first.sink.lines.join(''),
    new RegExp(`Setting oauth clockskew for ${host.replace(/\./g, '\\.')} to 3[56]\\d\\d`),
  );
  // The next run signs its first request with the recorded skew: no 401 at all.
  const before = server.requests.length;
  await maasSource.crawl(crawlCtx(root, server.url).ctx);
  assert.ok(
    server.requests.slice(before).every((r) => r.status === 200),
    JSON.stringify(server.requests.slice(before).map((r) => r.status)),
  );
});

test('clock skew: a 401 from a server whose clock is right records no skew (the crawl ends at max_wait); an unreadable skew file is ignored', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'run'), { recursive: true });
  writeFileSync(join(root, 'run/oauth_skew.json'), '{not json');
  const server = await mockMetadataServer(t, { kind: 'maas', dir: TREE });
  const data = await maasSource.crawl(crawlCtx(root, server.url).ctx);
  assert.equal(data.instanceId, 'node-4y3h7n');
  const { ctx, sink } = crawlCtx(tempDir(t), server.url, { ...SETTINGS, token_secret: 'wrong', max_wait: 1 });
  await assert.rejects(maasSource.crawl(ctx), /Giving up on md from .* after 1 seconds: .*401/);
  assert.doesNotMatch(sink.lines.join(''), /Setting oauth clockskew/);
});
