// NoCloud with an http `seedfrom`: found in the network stage it is cloud-init's DataSourceNoCloudNet, its seed names
// every place data came from, and its network-config is the one the URL serves, or none (25.1's read_seeded).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { describeSource } from '../../src/runner/describe-source';
import type { CrawlContext } from '../../src/sources/datasource';
import { noCloudHintDsmode } from '../../src/sources/kernel-cmdline';
import { noCloudSource } from '../../src/sources/nocloud';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FakeFinder } from './fake-finder';

const SEED = '/var/lib/cloud/seed/nocloud-net';
const LOCAL_NETWORK =
  'version: 1\nconfig:\n  - type: physical\n    name: eth0\n    subnets: [{type: static, address: 192.0.2.9/24}]\n';

async function serve(t: TestContext, files: Record<string, string>): Promise<string> {
  const server: Server = createServer((req, res) => {
    const name = (req.url ?? '').replace(/^\/seed\//, '');
    const body = files[name];
    res.writeHead(body === undefined ? 404 : 200).end(body ?? 'not found');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/seed/`;
}

async function crawl(
  t: TestContext,
  seedFiles: Record<string, string>,
  stage: 'local' | 'network',
  cmdline = '',
  serial?: string,
) {
  const root = tempDir(t);
  mkdirSync(join(root, SEED), { recursive: true });
  for (const [f, text] of Object.entries({ 'user-data': '', ...seedFiles })) writeFileSync(join(root, SEED, f), text);
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  const ctx: CrawlContext = {
    platform,
    log,
    kernelCmdline: cmdline,
    dmi: serial === undefined ? {} : { product_serial: serial },
    config: {},
    finder: new FakeFinder(platform),
    settings: { retries: 0, timeout: 5 },
    stage,
  };
  return noCloudSource.crawl(ctx);
}

test("seedfrom http in the network stage: NoCloudNet, seed = folder and URL; the URL serves no network-config, so the folder's is dropped (25.1)", async (t) => {
  const url = await serve(t, {
    'meta-data': 'instance-id: i-remote\nlocal-hostname: web1\n',
    'user-data': '#cloud-config\n{}\n',
  });
  const data = await crawl(
    t,
    { 'meta-data': `seedfrom: ${url}\n`, 'user-data': '', 'network-config': LOCAL_NETWORK },
    'network',
  );
  assert.equal(data.instanceId, 'i-remote');
  assert.equal(data.subplatform, `seed-dir (${SEED},${url})`);
  assert.equal(describeSource('NoCloud', data, 'network'), `DataSourceNoCloudNet [seed=${SEED},${url}]`);
  assert.equal(
    data.networkConfig,
    undefined,
    "25.1 takes read_seeded's network-config, none on a 404: the fallback is rendered",
  );
});

test('a network-config the URL serves wins over the folder (25.1); in init-local the http seed is refused', async (t) => {
  const url = await serve(t, {
    'meta-data': 'instance-id: i-remote\n',
    'user-data': '',
    'network-config': 'version: 2\nethernets:\n  eth0: {dhcp4: true}\n',
  });
  const data = await crawl(t, { 'meta-data': `seedfrom: ${url}\n`, 'network-config': LOCAL_NETWORK }, 'network');
  assert.equal(data.networkConfig?.format, 'v2');
  await assert.rejects(crawl(t, { 'meta-data': `seedfrom: ${url}\n` }, 'local'), /needs the network/);
});

test('a NoCloud seed folder read in init-local keeps the NoCloud name; a cmdline hint is part of the seed', async (t) => {
  const data = await crawl(t, { 'meta-data': 'instance-id: i-1\n' }, 'local', 'ro ds=nocloud-net;h=host1');
  assert.equal(describeSource('NoCloud', data), `DataSourceNoCloud [seed=cmdline,${SEED}]`);
});

test("dsmode as 22.4's load_cmdline_data: ds=nocloud means local, ds=nocloud-net net, an explicit dsmode= wins, and the hint's wins over the seed's", async (t) => {
  const dsmode = async (cmdline: string, metaData = 'instance-id: i-1\n', serial?: string) =>
    (await crawl(t, { 'meta-data': metaData }, 'local', cmdline, serial)).metadata.dsmode;
  assert.equal(await dsmode('ro ds=nocloud'), 'local');
  assert.equal(await dsmode('ro ds=nocloud;h=host1'), 'local');
  assert.equal(await dsmode('ro ds=nocloud-net;h=host1'), 'net');
  assert.equal(await dsmode('ro ds=nocloud;dsmode=net'), 'net');
  assert.equal(await dsmode('ro ds=nocloud-net;dsmode=local'), 'local');
  assert.equal(
    await dsmode('ro ds=nocloud', 'instance-id: i-1\ndsmode: net\n'),
    'local',
    "the cmdline's meta-data is merged first, and the first value stays",
  );
  assert.equal(await dsmode('ro', 'instance-id: i-1\ndsmode: local\n'), 'local', "without a hint, the seed's");
  assert.equal(await dsmode('ro'), 'net', "without either, cloud-init's default");
  assert.equal(
    await dsmode('ro ds=nocloud', undefined, 'ds=nocloud-net'),
    'net',
    "the DMI serial's meta-data is merged before the cmdline's",
  );
  const data = await crawl(t, { 'meta-data': 'instance-id: i-1\n' }, 'local', 'ro ds=nocloud');
  assert.equal(describeSource('NoCloud', data), `DataSourceNoCloud [seed=cmdline,${SEED}][dsmode=local]`);
});

test("ds=nocloud;s=http://… read in the network stage has dsmode net, named DataSourceNoCloudNet without [dsmode=…] (25.1's load_cmdline_data takes the mode from the seed's scheme; 22.4 took local from the id)", async (t) => {
  const url = await serve(t, { 'meta-data': 'instance-id: i-remote\ndsmode: local\n', 'user-data': '' });
  const data = await crawl(t, { 'meta-data': 'instance-id: i-1\n' }, 'network', `ro ds=nocloud;s=${url}`);
  assert.equal(
    data.instanceId,
    'i-1',
    "the seed folder's keys win over the URL's (25.1's mergemanydict keeps the first value)",
  );
  assert.equal(data.metadata.dsmode, 'net', "the cmdline's mode wins over the seeded meta-data's");
  assert.equal(data.metadata.seedfrom, url, "the cmdline's pairs are meta-data too");
  assert.equal(describeSource('NoCloud', data, 'network'), `DataSourceNoCloudNet [seed=cmdline,${SEED},${url}]`);
});

test("the hint's dsmode from its seed's scheme, as 25.1: file:// and paths local, ftp net, an unknown scheme none (the seed's or the default), dsmode= over all", async (t) => {
  const dsmode = async (cmdline: string, metaData = 'instance-id: i-1\n') =>
    (await crawl(t, { 'meta-data': metaData }, 'local', cmdline)).metadata.dsmode;
  assert.equal(await dsmode('ro ds=nocloud-net;s=file:///var/lib/cloud/seed/nocloud-net/'), 'local');
  assert.equal(await dsmode('ro ds=nocloud-net;s=/var/lib/cloud/seed/nocloud-net/'), 'local');
  // Every pair of the hint is meta-data, short keys long and a key without '=' None, as parse_cmdline_data fills it.
  const hinted = await crawl(
    t,
    { 'meta-data': 'instance-id: i-1\n' },
    'local',
    `ro ds=nocloud;i=iid-cmdline;h=host1;region=lab;flag;s=file:///var/lib/cloud/seed/nocloud-net/`,
  );
  assert.equal(hinted.metadata.region, 'lab');
  assert.equal(hinted.metadata.flag, null);
  assert.equal(hinted.metadata['local-hostname'], 'host1');
  const hint = (h: Parameters<typeof noCloudHintDsmode>[0]) => noCloudHintDsmode(h);
  assert.equal(hint({ mode: 'nocloud', seedfrom: 'ftp://10.0.0.1/' }), 'net');
  assert.equal(hint({ mode: 'nocloud', seedfrom: 'tftp://10.0.0.1/' }), undefined);
  assert.equal(hint({ mode: 'nocloud', seedfrom: 'http://10.0.0.1/', dsmode: 'local' }), 'local');
  assert.equal(
    await dsmode(`ro ds=nocloud-net;s=${SEED}/`, 'instance-id: i-1\ndsmode: net\n'),
    'local',
    "the hint's mode wins over the seed's",
  );
});

test("ds=nocloud;s=http://… against devel serve-metadata --kind nocloud: network-config comes from the URL, else none (25.1's read_seeded); a network-interfaces in the seeded meta-data is the ENI then", async (t) => {
  const served = (files: Record<string, string>) => {
    const dir = tempDir(t);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return mockMetadataServer(t, { kind: 'nocloud', dir });
  };
  const withNetwork = await served({
    'meta-data': 'instance-id: i-mock\n',
    'user-data': '#cloud-config\n{}\n',
    'network-config': 'network:\n  version: 2\n  ethernets:\n    eth1: {dhcp4: true}\n',
  });
  const a = await crawl(
    t,
    { 'meta-data': 'instance-id: i-1\n', 'network-config': LOCAL_NETWORK },
    'network',
    `ro ds=nocloud;s=${withNetwork.url}/`,
  );
  assert.deepEqual(a.networkConfig, { format: 'v2', config: { version: 2, ethernets: { eth1: { dhcp4: true } } } });
  assert.ok(
    withNetwork.requests.some((r) => r.path === '/network-config'),
    'network-config was asked of the seed URL',
  );
  const without = await served({ 'meta-data': 'instance-id: i-mock\n', 'user-data': '#cloud-config\n{}\n' });
  const b = await crawl(
    t,
    { 'meta-data': 'instance-id: i-1\n', 'network-config': LOCAL_NETWORK },
    'network',
    `ro ds=nocloud;s=${without.url}/`,
  );
  assert.equal(b.networkConfig, undefined, "the seed folder's network-config is not the instance's");
  const eni = await served({
    'meta-data': 'instance-id: i-mock\nnetwork-interfaces: |\n  auto eth0\n  iface eth0 inet dhcp\n',
    'user-data': '',
  });
  const c = await crawl(
    t,
    { 'meta-data': 'instance-id: i-1\n', 'network-config': LOCAL_NETWORK },
    'network',
    `ro ds=nocloud;s=${eni.url}/`,
  );
  assert.deepEqual(c.networkConfig, { format: 'eni', config: 'auto eth0\niface eth0 inet dhcp\n' });
});

test("a seed 25.1 would not take: a folder without user-data is no seed (pathprefix2dict's required), a seed URL without user-data fails the source (read_seeded)", async (t) => {
  const log = new Logger().for('test');
  const root = tempDir(t);
  mkdirSync(join(root, SEED), { recursive: true });
  writeFileSync(join(root, SEED, 'meta-data'), 'instance-id: i-1\n');
  const platform = new LinuxPlatform({ root, log });
  const ctx: CrawlContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform),
    settings: { retries: 0, timeout: 5 },
    stage: 'local',
  };
  assert.equal(await noCloudSource.detect(ctx), false);
  await assert.rejects(noCloudSource.crawl(ctx), /no seed/);
  const url = await serve(t, { 'meta-data': 'instance-id: i-remote\n' });
  await assert.rejects(
    crawl(t, { 'meta-data': `seedfrom: ${url}\n` }, 'network'),
    /reading user-data from seedfrom .* failed/,
  );
});
