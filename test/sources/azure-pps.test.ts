// Azure's preprovisioned VMs against the mock: Running and Unknown reprovisioned through IMDS reprovisiondata (the
// pool's ready report, the polling, the customer's ovf-env.xml in the result, the reported_ready marker as 22.4 keeps
// it), the bounds, and the NIC swap of Savable.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform } from '../../src/platform/platform';
import { azureSource } from '../../src/sources/azure/azure';
import { AzureLease } from '../../src/sources/azure/pool-lease';
import { REPORTED_READY_MARKER, reprovision } from '../../src/sources/azure/pps';
import type { CrawlContext } from '../../src/sources/datasource';
import type { StaticRoute } from '../../src/net/ephemeral/dhcp-static-routes';
import type { EphemeralNetwork } from '../../src/net/ephemeral/ephemeral-network';
import { HttpClient } from '../../src/util/http';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer, type RunningMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';
import { ok, scriptedPlatform } from './scripted-platform';

const AZURE = join(FIXTURES, 'sources', 'azure');
const PPS = join(AZURE, 'pps');
const OVF = readFileSync(join(AZURE, 'happy-path', 'media', 'ovf-env.xml'), 'utf8');
const RUNNING_OVF = OVF.replace(
  '<PreprovisionedVm>false</PreprovisionedVm>',
  '<PreprovisionedVm>true</PreprovisionedVm><PreprovisionedVMType>Running</PreprovisionedVMType>',
);
const DMI = {
  chassis_asset_tag: '7783-7084-3265-9085-8269-3286-77',
  sys_vendor: 'Microsoft Corporation',
  product_uuid: '9963F513-52BD-5041-9748-7190AAE1FF21',
};
const FAST = {
  retries: 2,
  timeout: 1,
  max_wait: 10,
  report_ready_retry_sleep: 0.05,
  report_ready_max_wait: 2,
  pps_poll_interval: 0.05,
  pps_nic_poll_interval: 0.02,
  pps_max_wait: 10,
};
const MARKER = REPORTED_READY_MARKER.slice(1);

/**
 * A mock folder for a pool VM: the pool's IMDS, pool.txt, and (when CLAIMABLE) the customer's ovf-env.xml and IMDS
 * document.
 */
function poolDir(t: TestContext, pool: string, claimable = true): string {
  const dir = tempDir(t);
  copyFileSync(join(AZURE, 'one-nic', 'imds', 'instance.json'), join(dir, 'instance.json'));
  writeFileSync(join(dir, 'pool.txt'), pool);
  if (claimable) copyFileSync(join(PPS, 'reprovisiondata.xml'), join(dir, 'reprovisiondata.xml'));
  copyFileSync(join(PPS, 'claimed-instance.json'), join(dir, 'claimed-instance.json'));
  return dir;
}

interface PoolCrawl {
  data: Awaited<ReturnType<typeof azureSource.crawl>>;
  server: RunningMetadataServer;
  root: string;
  log: string;
  ms: number;
}

/**
 * A crawl of a pool VM whose medium holds OVF, against the mock serving DIR; ON_REQUEST sees each request as it is
 * answered.
 */
async function crawlPool(
  t: TestContext,
  dir: string,
  opts: {
    ovf?: string;
    root?: string;
    settings?: Record<string, unknown>;
    onRequest?: (path: string, server: () => RunningMetadataServer) => void;
  } = {},
): Promise<PoolCrawl> {
  let running: RunningMetadataServer | undefined;
  const server = await mockMetadataServer(t, {
    kind: 'azure',
    dir,
    onRequest: (r) => opts.onRequest?.(r.path, () => running as RunningMetadataServer),
  });
  running = server;
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const root = opts.root ?? tempDir(t);
  const media = join(tempDir(t), 'media');
  mkdirSync(media);
  writeFileSync(join(media, 'ovf-env.xml'), opts.ovf ?? RUNNING_OVF);
  const finder = new FakeFinder(new LinuxPlatform({ root: '/', log }), [
    { device: 'sr0-image', label: 'rd_rdfe_stable.1', fsType: 'udf', dir: media },
  ]);
  const ctx: CrawlContext = {
    platform: new LinuxPlatform({ root, log }),
    log,
    kernelCmdline: '',
    dmi: DMI,
    config: {},
    finder,
    settings: { ...FAST, ...(opts.settings ?? {}) },
    baseUrl: server.url,
    signal: AbortSignal.timeout(30_000),
  };
  const t0 = Date.now();
  const data = await azureSource.crawl(ctx);
  return { data, server, root, log: sink.lines.join(''), ms: Date.now() - t0 };
}

/** Each request as 'METHOD path-without-query status' (health reports with their state). */
function trail(server: RunningMetadataServer): string[] {
  return server.requests.map(
    (r) =>
      `${r.method} ${r.path.split('?')[0]} ${r.status}${r.body ? ` ${/<State>(\w+)<\/State>/.exec(r.body)?.[1] ?? ''}` : ''}`,
  );
}

/** What the customer's ovf-env.xml gave: host name, user, custom data, the copy kept for walinuxagent. */
function assertCustomer(c: PoolCrawl): void {
  assert.equal(c.data.localHostname, 'customer-vm');
  assert.ok(c.data.sourceConfig, 'the source gives system config');
  assert.equal((c.data.sourceConfig.system_info as { default_user: { name: string } }).default_user.name, 'customer');
  assert.equal(Buffer.from(c.data.userData ?? []).toString(), '#cloud-config\nruncmd: [echo customer]\n');
  assert.deepEqual(
    c.data.publicKeys.map((k) => k.split(' ').pop()),
    ['customer@ovf'],
  );
  assert.match(readFileSync(join(c.root, 'var/lib/waagent/ovf-env.xml'), 'utf8'), /<HostName>customer-vm<\/HostName>/);
  // The pool VM's origin stays its subplatform, as cloud-init keeps the seed it found first.
  assert.equal(c.data.subplatform, 'config-disk (sr0-image)');
}

test("Running: ready report for the pool, the marker, polls through 404 until the claim, then the customer's ovf-env.xml; the marker goes with the final report", async (t) => {
  const dir = poolDir(t, 'unclaimed 404\nclaim-after-ready 2\n');
  const root = tempDir(t);
  const markerAtPoll: boolean[] = [];
  const c = await crawlPool(t, dir, {
    root,
    onRequest: (path) =>
      void (path.startsWith('/metadata/reprovisiondata') && markerAtPoll.push(existsSync(join(root, MARKER)))),
  });
  assert.deepEqual(trail(c.server), [
    'GET /metadata/instance 200',
    'GET /machine/ 200',
    'POST /machine 200 Ready',
    'GET /metadata/reprovisiondata 404',
    'GET /metadata/reprovisiondata 404',
    'GET /metadata/reprovisiondata 200',
    'GET /metadata/instance 200',
    'GET /machine/ 200',
    'POST /machine 200 Ready',
  ]);
  const poll = c.server.requests.find((r) => r.path.startsWith('/metadata/reprovisiondata'));
  assert.equal(poll?.path, '/metadata/reprovisiondata?api-version=2019-06-01');
  assert.equal(poll?.headers.metadata, 'true');
  assert.deepEqual(markerAtPoll, [true, true, true], 'the marker is written before the polling');
  assert.equal(existsSync(join(root, MARKER)), false, 'the final ready report removes the marker');
  assertCustomer(c);
  assert.match(c.log, /preprovisioned VM \(PPS type Running\)/);
  assert.equal('pps_type' in c.data.metadata, false, 'kept nowhere, as in 22.4');
  assert.match(c.log, /created the reported-ready marker/);
  assert.match(c.log, /reprovisioning data read after 3 polls/);
  assert.doesNotMatch(c.log, /WARNING/);
});

test('Running: dropped connections before the claim are polled through (IMDS extended ppsType alone makes it a pool VM)', async (t) => {
  const dir = poolDir(t, 'unclaimed drop\nclaim-after-ready 1\n');
  const imds = JSON.parse(readFileSync(join(dir, 'instance.json'), 'utf8')) as {
    extended: { compute: Record<string, unknown> };
  };
  imds.extended.compute.ppsType = 'Running';
  writeFileSync(join(dir, 'instance.json'), JSON.stringify(imds));
  const c = await crawlPool(t, dir, { ovf: OVF });
  assert.deepEqual(
    trail(c.server).filter((l) => l.includes('reprovisiondata')),
    ['GET /metadata/reprovisiondata 0', 'GET /metadata/reprovisiondata 200'],
  );
  assertCustomer(c);
  assert.match(c.log, /poll 1 of IMDS reprovisiondata failed/);
});

test('Unknown (the marker of an earlier boot): no second pool report, polling until the test claims the VM, the marker removed after the final report', async (t) => {
  const dir = poolDir(t, '', false);
  // IMDS without osProfile names once claimed: the host name and user come from the customer's ovf-env.xml alone.
  const claimed = JSON.parse(readFileSync(join(dir, 'claimed-instance.json'), 'utf8')) as {
    compute: Record<string, unknown>;
  };
  delete claimed.compute.osProfile;
  writeFileSync(join(dir, 'claimed-instance.json'), JSON.stringify(claimed));
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/data'), { recursive: true });
  writeFileSync(join(root, MARKER), '1234: 1700000000.0\n');
  let polls = 0;
  const c = await crawlPool(t, dir, {
    root,
    ovf: OVF,
    onRequest: (path) => {
      // The claim, as the test makes it: the customer's ovf-env.xml appears after the second poll.
      if (path.startsWith('/metadata/reprovisiondata') && ++polls === 2)
        copyFileSync(join(PPS, 'reprovisiondata.xml'), join(dir, 'reprovisiondata.xml'));
    },
  });
  assert.deepEqual(trail(c.server), [
    'GET /metadata/instance 200',
    'GET /metadata/reprovisiondata 404',
    'GET /metadata/reprovisiondata 404',
    'GET /metadata/reprovisiondata 200',
    'GET /metadata/instance 200',
    'GET /machine/ 200',
    'POST /machine 200 Ready',
  ]);
  assertCustomer(c);
  assert.match(c.log, /preprovisioned VM \(PPS type Unknown\)/);
  assert.equal('pps_type' in c.data.metadata, false, 'kept nowhere, as in 22.4');
  assert.equal(existsSync(join(root, MARKER)), false);
});

test("a pool VM nobody claims: the polling ends within pps_max_wait with one warning, and the VM is provisioned with the pool's data", async (t) => {
  const dir = poolDir(t, 'unclaimed 410\n', false);
  const c = await crawlPool(t, dir, { settings: { pps_max_wait: 1.5 } });
  assert.ok(c.ms >= 1400, `${c.ms} ms`);
  const warnings = c.log.split('\n').filter((l) => l.includes('[WARNING]'));
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(
    warnings[0] as string,
    /preprovisioned VM \(PPS type Running\) not reprovisioned: IMDS gave no reprovisioning data within 1\.5 s \(\d+ polls, 0 DHCP attempts\): the pool VM was not claimed; provisioning with the data at hand/,
  );
  // The end without a wall clock: polls 50 ms apart fit at most 31 times in 1.5 s (a busy machine polls fewer); a
  // deadline that did not fire goes on polling until the crawl's own 30 s signal.
  const polls = Number(/\((\d+) polls/.exec(warnings[0] as string)?.[1]);
  assert.ok(polls <= 1500 / 50 + 1, `${polls} polls: the polling did not end at pps_max_wait`);
  assert.ok(trail(c.server).filter((l) => l === 'GET /metadata/reprovisiondata 410').length > 5);
  assert.equal(c.data.localHostname, 'kiln-vm');
  assert.match(c.log, /preprovisioned VM \(PPS type Running\)/);
  assert.equal('pps_type' in c.data.metadata, false, 'kept nowhere, as in 22.4');
  // Two Ready reports: the pool's and the final one, which clears the marker.
  assert.equal(trail(c.server).filter((l) => l.endsWith('Ready')).length, 2);
  assert.equal(existsSync(join(c.root, MARKER)), false);
});

test('a failed pool report, OS Disk and report_ready: false each give one warning and the normal path, never a poll', async (t) => {
  const dir = poolDir(t, '', false);
  writeFileSync(join(dir, 'goalstate.xml'), '<GoalState><Incarnation>1</Incarnation></GoalState>');
  const failed = await crawlPool(t, dir);
  assert.match(
    failed.log,
    /not reprovisioned: could not report ready while in the preprovisioning pool: .*no Container\/ContainerId/,
  );
  assert.equal(existsSync(join(failed.root, MARKER)), false, 'no marker without a pool report');
  const osDisk = await crawlPool(t, poolDir(t, '', false), {
    ovf: RUNNING_OVF.replace(
      '<PreprovisionedVMType>Running</PreprovisionedVMType>',
      '<PreprovisionedVMType>OS Disk</PreprovisionedVMType>',
    ),
  });
  assert.match(
    osDisk.log,
    /PPS type OS Disk\) not reprovisioned: kiln does not wait for the host to shut an OS Disk pool VM down/,
  );
  const quiet = await crawlPool(t, poolDir(t, '', false), { settings: { report_ready: false } });
  assert.match(
    quiet.log,
    /not reprovisioned: a pool VM is only claimed after its ready report, and report_ready is off/,
  );
  for (const c of [failed, osDisk, quiet]) {
    assert.equal(trail(c.server).filter((l) => l.includes('reprovisiondata')).length, 0);
    assert.equal(c.data.localHostname, 'kiln-vm');
    assert.equal(c.log.split('\n').filter((l) => l.includes('[WARNING]') && l.includes('not reprovisioned')).length, 1);
  }
});

/** The option 121 routes Azure's DHCP gives a primary NIC: IMDS and the wireserver through the gateway. */
const PRIMARY_ROUTES: StaticRoute[] = [
  { destination: '169.254.169.254/32', gateway: '10.0.0.1' },
  { destination: '168.63.129.16/32', gateway: '10.0.0.1' },
];

/**
 * A network whose leases are recorded: 'up eth0', 'down eth0'; a lease on NIC carries ROUTES(NIC) (by default a primary
 * NIC's).
 */
function recordingNetwork(
  events: string[],
  routes: (nic: string) => StaticRoute[] = () => PRIMARY_ROUTES,
): EphemeralNetwork {
  return {
    up: async (o) => {
      const nic = o?.interface ?? 'eth0';
      events.push(`up ${nic}`);
      return { interface: nic, staticRoutes: routes(nic), release: async () => void events.push(`down ${nic}`) };
    },
  };
}

/** `ip -o link show` lines: lo and the NICs (index, name). */
function linkShow(nics: Array<[number, string]>): string {
  const lo =
    '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00';
  const link = (i: number, name: string) =>
    `${i}: ${name}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 00:0d:3a:04:75:9${i} brd ff:ff:ff:ff:ff:ff`;
  return `${[lo, ...nics.map(([i, n]) => link(i, n))].join('\n')}\n`;
}

for (const [kept, gone, how] of [
  [3, 3, 'eth0 stays for three looks, then no NIC for three'],
  [0, 0, 'the swap is over before the first look (the pool NIC was taken before the report)'],
] as const) {
  test(`Savable on a scripted machine (${how}): report, lease dropped, eth0 (index 2) detached, a new eth0 (index 3) leased and found primary by its routes, then the poll`, async (t) => {
    const dir = poolDir(t, 'claim-after-ready 0\n');
    const server = await mockMetadataServer(t, { kind: 'azure', dir });
    const events: string[] = [];
    let reported = false;
    let looks = 0;
    const link = (i: number, name: string) =>
      `${i}: ${name}: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP mode DEFAULT group default qlen 1000\\    link/ether 00:0d:3a:04:75:98 brd ff:ff:ff:ff:ff:ff`;
    const lo =
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\\    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00';
    const scripted = scriptedPlatform({
      nics: [],
      answer: (line) => {
        if (line !== 'ip -o link show') return undefined;
        // After the report: eth0 stays for KEPT looks, then no NIC for GONE, then the new eth0 with another index.
        if (!reported) return ok(`${lo}\n${link(2, 'eth0')}\n`);
        looks++;
        if (looks <= kept) return ok(`${lo}\n${link(2, 'eth0')}\n`);
        if (looks <= kept + gone) return ok(`${lo}\n`);
        return ok(`${lo}\n${link(3, 'eth0')}\n`);
      },
    });
    const platform: Platform = { ...scripted.platform, mkdir: async () => undefined };
    const logger = new Logger();
    const sink = new MemorySink();
    logger.addSink(sink);
    const log = logger.for('test');
    const client = new HttpClient({ log });
    t.after(() => client.close());
    const lease = new AzureLease(recordingNetwork(events), log);
    await lease.up();
    const reportReady = async () => {
      events.push('report');
      // The ready report reaches the mock too, which claims the VM at the next poll (claim-after-ready 0).
      await client.fetch(`${server.url}/machine?comp=health`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml; charset=utf-8', 'x-ms-version': '2012-11-30' },
        body: '<Health><State>Ready</State></Health>',
      });
      reported = true;
    };
    const raw = await reprovision(
      {
        platform,
        log,
        client,
        imdsBase: server.url,
        lease,
        reportReady,
        wireserverAddress: async () => '168.63.129.16',
        settings: { maxWaitMs: 10_000, pollIntervalMs: 50, nicPollIntervalMs: 20, dhcpMaxWaitMs: 5000 },
      },
      'Savable',
    );
    assert.equal(Buffer.from(raw).toString(), readFileSync(join(PPS, 'reprovisiondata.xml'), 'utf8'));
    assert.deepEqual(events, ['up eth0', 'report', 'down eth0', 'up eth0']);
    assert.ok(looks >= kept + gone + 1, `${looks} looks at the links`);
    assert.deepEqual(scripted.written, [REPORTED_READY_MARKER]);
    // The new NIC is told primary by its lease's routes, as 25.1 does: IMDS is not asked.
    assert.deepEqual(
      trail(server).map((l) => l.replace(/ Ready$/, '')),
      ['POST /machine 200', 'GET /metadata/reprovisiondata 200'],
    );
    const text = sink.lines.join('');
    assert.match(text, /waiting for eth0 to be detached/);
    assert.match(text, /the preprovisioned NIC eth0 is detached/);
    assert.match(text, /NIC eth0 attached; checking whether it is the primary one/);
    assert.match(text, /the lease on eth0 routes 169\.254\.169\.254, 168\.63\.129\.16 \(option 121\)/);
    assert.equal(lease.interface, 'eth0', 'the new primary NIC keeps its lease for the polling');
  });
}

test("Savable, 25.1's primary NIC: a new NIC whose lease routes neither to IMDS nor to the wireserver is secondary (its lease dropped, IMDS not asked), the next one is primary by its route to the wireserver of option 245", async (t) => {
  const dir = poolDir(t, 'claim-after-ready 0\n');
  const server = await mockMetadataServer(t, { kind: 'azure', dir });
  const events: string[] = [];
  let reported = false;
  const scripted = scriptedPlatform({
    nics: [],
    answer: (line) => {
      if (line !== 'ip -o link show') return undefined;
      // Before the report the pool NIC; after it, two new NICs, the secondary one first (as IMDS would answer through
      // either).
      return ok(
        linkShow(
          reported
            ? [
                [3, 'eth1'],
                [4, 'eth2'],
              ]
            : [[2, 'eth0']],
        ),
      );
    },
  });
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const client = new HttpClient({ log });
  t.after(() => client.close());
  // eth1's lease has a default route only; eth2's routes only the wireserver option 245 named (10.0.0.9).
  const routes = (nic: string): StaticRoute[] =>
    nic === 'eth1'
      ? [{ destination: '0.0.0.0/0', gateway: '10.1.0.1' }]
      : nic === 'eth2'
        ? [{ destination: '10.0.0.9/32', gateway: '10.0.0.1' }]
        : PRIMARY_ROUTES;
  const lease = new AzureLease(recordingNetwork(events, routes), log);
  await lease.up();
  const reportReady = async () => {
    events.push('report');
    await client.fetch(`${server.url}/machine?comp=health`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', 'x-ms-version': '2012-11-30' },
      body: '<Health><State>Ready</State></Health>',
    });
    reported = true;
  };
  const raw = await reprovision(
    {
      platform: { ...scripted.platform, mkdir: async () => undefined },
      log,
      client,
      imdsBase: server.url,
      lease,
      reportReady,
      wireserverAddress: async () => '10.0.0.9',
      settings: { maxWaitMs: 10_000, pollIntervalMs: 50, nicPollIntervalMs: 20, dhcpMaxWaitMs: 5000 },
    },
    'Savable',
  );
  assert.equal(Buffer.from(raw).toString(), readFileSync(join(PPS, 'reprovisiondata.xml'), 'utf8'));
  assert.deepEqual(events, ['up eth0', 'report', 'down eth0', 'up eth1', 'down eth1', 'up eth2']);
  assert.equal(lease.interface, 'eth2');
  assert.deepEqual(
    trail(server).map((l) => l.replace(/ Ready$/, '')),
    ['POST /machine 200', 'GET /metadata/reprovisiondata 200'],
  );
  const text = sink.lines.join('');
  assert.match(
    text,
    /the lease on eth1 routes 0\.0\.0\.0 \(option 121\): no route to IMDS or the wireserver 10\.0\.0\.9, not the primary NIC/,
  );
  assert.match(text, /eth2 is the primary NIC/);
});

test('Savable: a NIC that is never detached ends within the bound with the reason', { timeout: 60_000 }, async (t) => {
  const dir = poolDir(t, '');
  const server = await mockMetadataServer(t, { kind: 'azure', dir });
  const scripted = scriptedPlatform({
    nics: [],
    answer: (line) => (line === 'ip -o link show' ? ok('2: eth0: <BROADCAST,UP> mtu 1500\n') : undefined),
  });
  const log = new Logger().for('test');
  const client = new HttpClient({ log });
  t.after(() => client.close());
  const lease = new AzureLease(recordingNetwork([]), log);
  await lease.up();
  // Ends: without a deadline that fires, the wait for the detach would never reject.
  await assert.rejects(
    reprovision(
      {
        platform: { ...scripted.platform, mkdir: async () => undefined },
        log,
        client,
        imdsBase: server.url,
        lease,
        reportReady: async () => undefined,
        wireserverAddress: async () => '168.63.129.16',
        settings: { maxWaitMs: 800, pollIntervalMs: 50, nicPollIntervalMs: 20, dhcpMaxWaitMs: 500 },
      },
      'Savable',
    ),
    /timed out waiting for the preprovisioned NIC eth0 to be detached/,
  );
});

test("the mock's pool: 404, 410 or a dropped connection before the claim, claim-after-ready counted from the Ready report, claimed-instance.json after the claim", async (t) => {
  const dir = poolDir(t, 'unclaimed 410\nclaim-after-ready 1\n');
  const server = await mockMetadataServer(t, { kind: 'azure', dir });
  const log = new Logger().for('test');
  const client = new HttpClient({ log });
  t.after(() => client.close());
  const get = async (path: string) =>
    (await client.fetch(`${server.url}${path}`, { headers: { Metadata: 'true' }, acceptStatuses: [404, 410] })).status;
  const name = async () =>
    JSON.parse(
      (
        await client.fetch(`${server.url}/metadata/instance/compute?api-version=2021-08-01`, {
          headers: { Metadata: 'true' },
        })
      ).text(),
    ).name as string;
  const poll = '/metadata/reprovisiondata?api-version=2019-06-01';
  assert.equal(await get(poll), 410, 'no Ready report yet');
  const ready = (state: string) =>
    client.fetch(`${server.url}/machine?comp=health`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml', 'x-ms-version': '2012-11-30' },
      body: `<Health><State>${state}</State></Health>`,
    });
  await ready('NotReady');
  assert.equal(await get(poll), 410, 'NotReady does not count');
  await ready('Ready');
  assert.equal(await get(poll), 410, 'the first poll after Ready');
  assert.equal(await name(), 'kiln-vm');
  assert.equal(await get(poll), 200);
  assert.equal(await name(), 'customer-vm');

  writeFileSync(join(dir, 'pool.txt'), 'unclaimed drop\n');
  const gone = join(dir, 'reprovisiondata.xml');
  rmSync(gone);
  await assert.rejects(client.fetch(`${server.url}${poll}`, { headers: { Metadata: 'true' } }), (err: Error) =>
    /network|closed|socket/i.test(err.message),
  );
  writeFileSync(join(dir, 'pool.txt'), '');
  assert.equal(await get(poll), 404);
  copyFileSync(join(PPS, 'reprovisiondata.xml'), gone);
  assert.equal(await get(poll), 200, 'without claim-after-ready, writing the file claims the VM');
  writeFileSync(join(dir, 'pool.txt'), 'claimed-maybe 3\n');
  assert.equal(
    (await client.fetch(`${server.url}${poll}`, { headers: { Metadata: 'true' }, acceptStatuses: [500] })).status,
    500,
  );
});
