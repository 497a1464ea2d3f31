// Akamai: the DMI baseboard-serial flags and the user data decoding as cloud-init's helpers/akamai.py and
// DataSourceAkamai read them, and the mock's token rules.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { akamaiConfig, akamaiDmiConfig, akamaiSource, akamaiUserData } from '../../src/sources/akamai';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork, EphemeralUpOptions } from '../../src/net/ephemeral/ephemeral-network';
import { EphemeralNetworkRefused } from '../../src/sources/ephemeral-lease';
import { SourceError } from '../../src/sources/source-error';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const log = new Logger().for('test');

test('DMI flags: 0/1 are booleans, pmp a comma list, unknown keys ignored; they win over the system config', () => {
  assert.deepEqual(akamaiDmiConfig('als=0;ais=1;dhcp=0;v4=1;v6=0;pmp=f2:3,aa:b;zz=1'), {
    allow_local_stage: false,
    allow_init_stage: true,
    allow_dhcp: false,
    allow_ipv4: true,
    allow_ipv6: false,
    preferred_mac_prefixes: ['f2:3', 'aa:b'],
  });
  assert.deepEqual(akamaiDmiConfig(undefined), {});
  const cfg = akamaiConfig('v6=0', { allow_ipv6: true, allow_dhcp: false, base_urls: { ipv4: 'http://10.0.0.1' } });
  assert.equal(cfg.allow_ipv6, false);
  assert.equal(cfg.allow_dhcp, false);
  assert.equal(cfg.allow_ipv4, true);
  assert.deepEqual(cfg.base_urls, { ipv4: 'http://10.0.0.1', ipv6: 'http://[fd00:a9fe:a9fe::1]' });
  assert.deepEqual(cfg.paths, { token: '/v1/token', metadata: '/v1/instance', userdata: '/v1/user-data' });
});

test("user data: base64 is decoded (line breaks dropped, as Python's b64decode), bad padding keeps it as it came", () => {
  const enc = Buffer.from('#cloud-config\nruncmd: []\n').toString('base64');
  assert.equal(
    Buffer.from(akamaiUserData(Buffer.from(`${enc.slice(0, 8)}\n${enc.slice(8)}`), log)).toString(),
    '#cloud-config\nruncmd: []\n',
  );
  assert.equal(Buffer.from(akamaiUserData(Buffer.from('#cloud-config\n'), log)).toString(), '#cloud-config\n');
  assert.equal(Buffer.from(akamaiUserData(Buffer.from(''), log)).length, 0);
});

test('mock: PUT /v1/token with an expiry gives a token; /v1/instance, /v1/network and /v1/user-data need it', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'akamai', dir: TREE });
  assert.equal((await fetch(`${server.url}/v1/token`)).status, 405);
  assert.equal(
    (await fetch(`${server.url}/v1/token`, { method: 'PUT', headers: { 'Metadata-Token-Expiry-Seconds': '0' } }))
      .status,
    400,
  );
  assert.equal((await fetch(`${server.url}/v1/instance`)).status, 401);
  const token = await (
    await fetch(`${server.url}/v1/token`, { method: 'PUT', headers: { 'Metadata-Token-Expiry-Seconds': '300' } })
  ).text();
  const md = await fetch(`${server.url}/v1/instance`, { headers: { 'Metadata-Token': token } });
  assert.equal(((await md.json()) as { label: string }).label, 'linode-web-1');
  const net = await fetch(`${server.url}/v1/network`, { headers: { 'Metadata-Token': token } });
  assert.equal(net.status, 200);
  const ud = await (await fetch(`${server.url}/v1/user-data`, { headers: { 'Metadata-Token': token } })).text();
  assert.match(Buffer.from(ud, 'base64').toString(), /akamai-user-data/);
  assert.equal((await fetch(`${server.url}/v1/instance`, { headers: { 'Metadata-Token': 'forged' } })).status, 401);
});

function crawlCtx(t: TestContext, url: string, dmi: Record<string, string>, network?: EphemeralNetwork): CrawlContext {
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  return {
    platform,
    log,
    kernelCmdline: '',
    dmi,
    config: {},
    finder: new FakeFinder(platform),
    settings: { timeout: 1, retries: 0 },
    baseUrl: url,
    signal: AbortSignal.timeout(10_000),
    ...(network ? { network, stage: 'local' as const } : {}),
  };
}

/** A fake temporary network that records what each lease was asked for and fails the first N. */
function recordingNetwork(failFirst = 0): EphemeralNetwork & { asked: Array<EphemeralUpOptions | undefined> } {
  const n = {
    asked: [] as Array<EphemeralUpOptions | undefined>,
    up: async (o?: EphemeralUpOptions) => {
      n.asked.push(o);
      if (n.asked.length <= failFirst) throw new SourceError('dhcp', 'no lease');
      return { interface: 'eth0', release: async () => undefined };
    },
  };
  return n;
}

const AKAMAI_DMI = { sys_vendor: 'Akamai', product_serial: '56212143' };
const TREE = join(FIXTURES, 'sources/akamai/happy-path/tree');

test('init-local: the IPv6 context first; when it yields nothing the IPv4 DHCP lease is tried (AkamaiLocal)', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'akamai', dir: TREE });
  const net = recordingNetwork(1);
  const data = await akamaiSource.crawl(crawlCtx(t, server.url, AKAMAI_DMI, net));
  assert.deepEqual(net.asked, [{ ipv6: true, ipv4: false }, {}]);
  assert.equal(data.instanceId, '56212143');
  assert.equal(data.region, 'us-east');
});

test('init-local with dhcp=0 in the baseboard serial: IPv6 only; als=0: left to the init stage', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'akamai', dir: TREE });
  const net = recordingNetwork(1);
  const data = await akamaiSource.crawl(crawlCtx(t, server.url, { ...AKAMAI_DMI, board_serial: 'dhcp=0' }, net));
  assert.deepEqual(net.asked, [{ ipv6: true, ipv4: false }]);
  assert.deepEqual(server.requests, []);
  assert.equal(data.instanceId, '56212143');
  const refused = recordingNetwork();
  await assert.rejects(
    akamaiSource.crawl(crawlCtx(t, server.url, { ...AKAMAI_DMI, board_serial: 'als=0' }, refused)),
    (err: unknown) => err instanceof EphemeralNetworkRefused && /allow_local_stage/.test(err.message),
  );
  assert.deepEqual(refused.asked, []);
});
