// Walks test/fixtures/sources/<source>/<scenario>/scenario.json: detect and crawl each, against folders and the mock
// server.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext, DetectContext, InstanceData } from '../../src/sources/datasource';
import { SourceError } from '../../src/sources/source-error';
import { CLOUDBASE_SERVICES, datasourceByName } from '../../src/sources/registry';
import type { Misbehaviour } from '../../src/metadata-server/metadata-server';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

interface Scenario {
  description: string;
  source: string;
  /** A cloudbase-init metadata service of the source's cloud, by class path: detect and crawl go through it. */
  service?: string;
  root?: string;
  drives?: Array<{ label: string; fsType: 'iso9660' | 'vfat' | 'udf'; dir: string; device: string }>;
  dmi?: Record<string, string>;
  cmdline?: string;
  /** kiln's environment (VMware's VMX_GUESTINFO_* variables). */
  env?: Record<string, string>;
  config?: Record<string, unknown>;
  settings?: Record<string, unknown>;
  serve?: {
    kind:
      | 'openstack'
      | 'ec2'
      | 'gce'
      | 'nocloud'
      | 'azure'
      | 'digitalocean'
      | 'hetzner'
      | 'cloudstack'
      | 'exoscale'
      | 'aliyun';
    dir: string;
    host?: string;
    imdsv2?: 'required' | 'optional' | 'disabled';
    tokenUses?: number;
    misbehave?: Misbehaviour[];
  };
  baseUrl?: false;
  stage?: 'local' | 'network';
  needsIpv6?: boolean;
  expectDetect?: boolean;
  expect?: Record<string, unknown>;
  expectError?: string;
  maxMs?: number;
  /** The stage's total budget given to crawl() as ctx.signal (default: 3 × maxMs, as a safety net). */
  signalMs?: number;
  expectAllTokened?: boolean;
  expectMinPuts?: number;
  expectNoGets?: boolean;
  expectNoRequests?: boolean;
}

const ROOT = join(FIXTURES, 'sources');
const cctx0 = (sc: Scenario): Record<string, unknown> => sc.settings ?? {};

/** Every key of EXPECTED must match ACTUAL; objects compare partially, arrays and scalars exactly. */
function assertSubset(actual: unknown, expected: unknown, path: string): void {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    assert.ok(
      actual !== null && typeof actual === 'object',
      `${path}: expected an object, got ${JSON.stringify(actual)}`,
    );
    for (const [k, v] of Object.entries(expected))
      assertSubset((actual as Record<string, unknown>)[k], v, `${path}.${k}`);
    return;
  }
  assert.deepEqual(actual, expected, path);
}

const text = (b: Uint8Array | undefined) => (b === undefined ? undefined : Buffer.from(b).toString('utf8'));

function checkData(data: InstanceData, expect: Record<string, unknown>): void {
  for (const [key, want] of Object.entries(expect)) {
    switch (key) {
      case 'userData':
      case 'vendorData':
      case 'vendorData2':
        assert.equal(text(data[key]), want, key);
        break;
      case 'vendorDataContains':
        for (const s of want as string[])
          assert.ok(text(data.vendorData)?.includes(s), `vendorData lacks '${s}': ${text(data.vendorData)}`);
        break;
      case 'files':
        assert.deepEqual(
          data.files?.map((f) => ({ path: f.path, content: text(f.content) })),
          want,
          'files',
        );
        break;
      case 'absent':
        for (const k of want as string[])
          assert.equal((data as unknown as Record<string, unknown>)[k], undefined, `${k} must not be set`);
        break;
      case 'metadataLacks':
        for (const k of want as string[]) assert.ok(!(k in data.metadata), `metadata must not carry '${k}'`);
        break;
      default:
        assertSubset((data as unknown as Record<string, unknown>)[key], want, key);
    }
  }
}

function hasIpv6Loopback(): boolean {
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.family === 'IPv6' && a.internal));
}

const scenarios: Array<{ name: string; dir: string }> = [];
for (const source of readdirSync(ROOT).sort()) {
  for (const name of readdirSync(join(ROOT, source)).sort()) {
    if (existsSync(join(ROOT, source, name, 'scenario.json')))
      scenarios.push({ name: `${source}/${name}`, dir: join(ROOT, source, name) });
  }
}

for (const { name, dir } of scenarios) {
  const sc = JSON.parse(readFileSync(join(dir, 'scenario.json'), 'utf8')) as Scenario;
  test(`${name}: ${sc.description}`, async (t) => {
    if (sc.needsIpv6 && !need(t, hasIpv6Loopback(), 'the IPv6 loopback ::1 is not configured')) return;
    const source = datasourceByName(sc.source);
    assert.ok(source, `unknown source ${sc.source}`);
    const service =
      sc.service === undefined
        ? undefined
        : CLOUDBASE_SERVICES.find((s) => s.classPath === sc.service && s.datasource === source.name);
    if (sc.service !== undefined) assert.ok(service, `no service ${sc.service} of the ${source.name} source`);
    const logger = new Logger();
    const sink = new MemorySink();
    logger.addSink(sink);
    const log = logger.for('test');
    const root = sc.root ? join(dir, sc.root) : tempDir(t);
    const platform = new LinuxPlatform({ root, log });
    const hostPlatform = new LinuxPlatform({ root: '/', log });
    const finder = new FakeFinder(
      hostPlatform,
      (sc.drives ?? []).map((d) => ({ ...d, dir: join(dir, d.dir) })),
    );
    const server = sc.serve ? await mockMetadataServer(t, { ...sc.serve, dir: join(dir, sc.serve.dir) }) : undefined;
    // {{port}}: the mock's port, for a second service on the same server (CloudStack's and Exoscale's password server).
    const sub = (v: unknown): unknown =>
      JSON.parse(
        JSON.stringify(v ?? null)
          .replaceAll('{{url}}', server?.url ?? 'NO-SERVER')
          .replaceAll('{{port}}', String(server?.port ?? 0)),
      );
    const dctx: DetectContext = {
      platform,
      log,
      kernelCmdline: sub(sc.cmdline ?? '') as string,
      dmi: sub(sc.dmi ?? {}) as Record<string, string>,
      config: sub(sc.config ?? {}) as Record<string, unknown>,
      finder,
      ...(sc.env ? { env: sc.env } : {}),
    };
    if (sc.expectDetect !== undefined)
      assert.equal(await (service ? service.detect(dctx, source) : source.detect(dctx)), sc.expectDetect, 'detect()');
    if (sc.expect === undefined && sc.expectError === undefined) return;
    // Never let a network source reach a real endpoint: its URLs must come from the mock server.
    if ((service?.kind ?? source.kind) === 'network')
      assert.ok(server, `${name}: a network source crawled without a mock server would reach real endpoints`);
    for (const u of (cctx0(sc).metadata_urls as string[] | undefined) ?? [])
      assert.match(
        u,
        /^(http:\/\/(127\.0\.0\.1|\[::1\])[:/]|\{\{url\}\})/,
        `${name}: metadata_urls must stay on loopback`,
      );
    const budget = sc.maxMs ?? 5000;
    const cctx: CrawlContext = {
      ...dctx,
      settings: sub(sc.settings ?? {}) as Record<string, unknown>,
      ...(sc.stage ? { stage: sc.stage } : {}),
      ...(server && sc.baseUrl !== false && sc.source !== 'NoCloud' ? { baseUrl: server.url } : {}),
      // A hard stop well past the scenario's budget, so a hang fails the test instead of stalling the run.
      signal: AbortSignal.timeout(sc.signalMs ?? budget * 3),
    };
    const started = performance.now();
    let data: InstanceData | undefined;
    let error: unknown;
    try {
      data = await (service ? service.crawl(cctx, source) : source.crawl(cctx));
    } catch (err) {
      error = err;
    }
    const ms = performance.now() - started;
    assert.ok(ms < budget, `crawl took ${Math.round(ms)} ms, over the ${budget} ms budget`);
    if (sc.expectError !== undefined) {
      assert.ok(error, `expected an error matching '${sc.expectError}', got data ${JSON.stringify(data?.instanceId)}`);
      assert.ok(error instanceof SourceError, `expected a SourceError, got ${String(error)}`);
      assert.ok(
        error.message.includes(sc.expectError),
        `error '${error.message}' does not mention '${sc.expectError}'`,
      );
    } else {
      if (error) throw error;
      assert.ok(data);
      checkData(data, sub(sc.expect ?? {}) as Record<string, unknown>);
    }
    if (server && sc.expectAllTokened) {
      const gets = server.requests.filter((r) => r.method === 'GET');
      assert.ok(gets.length > 0);
      for (const r of gets)
        assert.ok(typeof r.headers['x-aws-ec2-metadata-token'] === 'string', `GET ${r.path} went without a token`);
    }
    if (server && sc.expectMinPuts !== undefined) {
      const puts = server.requests.filter((r) => r.method === 'PUT').length;
      assert.ok(puts >= sc.expectMinPuts, `expected at least ${sc.expectMinPuts} token requests, saw ${puts}`);
    }
    if (server && sc.expectNoRequests) assert.equal(server.requests.length, 0, 'no request may be sent');
    if (server && sc.expectNoGets)
      assert.equal(server.requests.filter((r) => r.method === 'GET').length, 0, 'no IMDSv1 GET may be sent');
    // Secrets never reach the log.
    const logged = sink.lines.join('');
    for (const secret of ['s3cret-Admin-Pass', 'http-admin-pass'])
      assert.ok(!logged.includes(secret), `the log shows ${secret}`);
  });
}
