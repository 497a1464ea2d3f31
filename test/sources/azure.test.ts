// Azure: ovf-env.xml parsing, the health report (against cloud-init's own), the wireserver address, the mock's rules,
// and whole crawls against the mock (the Ready report recorded), a UDF medium found by label, the password kept out of
// the disk copy.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ImageFilesFinder } from '../../src/devices/image-finder';
import type { FilesystemFinder } from '../../src/devices/filesystem-finder';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { StageRunner } from '../../src/runner/stage-runner';
import type { Platform } from '../../src/platform/platform';
import { azureSource, isByteSwapped, ppsType } from '../../src/sources/azure/azure';
import { cloudbaseAzureService } from '../../src/sources/azure/cloudbase-azure-service';
import { azureImdsNetworkConfig, normalizeAzureMac } from '../../src/sources/azure/imds-network';
import { minimalOvfEnv, NotAzureOvfEnv, parseOvfEnv, redactOvfPassword } from '../../src/sources/azure/ovf-env';
import {
  findWireserver,
  healthReport,
  parseGoalState,
  wireserverFromLeaseValue,
} from '../../src/sources/azure/wireserver';
import type { CrawlContext } from '../../src/sources/datasource';
import { SourceError } from '../../src/sources/source-error';
import { Logger, MemorySink } from '../../src/util/log';
import { ensureDebianRootfs } from '../helpers/debian-rootfs';
import { mockMetadataServer, type RunningMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { makeUdfImage } from '../devices/udf-images';
import { fakeDeps } from '../runner/fakes';
import { FakeFinder } from './fake-finder';

const HAPPY = join(FIXTURES, 'sources', 'azure', 'happy-path');
const OVF = readFileSync(join(HAPPY, 'media', 'ovf-env.xml'), 'utf8');
const DMI = {
  chassis_asset_tag: '7783-7084-3265-9085-8269-3286-77',
  sys_vendor: 'Microsoft Corporation',
  product_uuid: '9963F513-52BD-5041-9748-7190AAE1FF21',
};
const FAST = { retries: 2, timeout: 1, max_wait: 10, report_ready_retry_sleep: 0.05, report_ready_max_wait: 2 };

function ovfWith(replace: Record<string, string>): string {
  let text = OVF;
  for (const [from, to] of Object.entries(replace)) {
    assert.ok(text.includes(from), `the fixture ovf-env.xml lacks ${from}`);
    text = text.replace(from, to);
  }
  return text;
}

test('ovf-env.xml: the fields cloud-init reads, CustomData decoded', () => {
  const env = parseOvfEnv(Buffer.from(OVF), 'ovf-env.xml');
  assert.equal(env.username, 'azureuser');
  assert.equal(env.hostname, 'kiln-ovf-name');
  assert.equal(env.password, undefined);
  assert.equal(env.disableSshPasswordAuthentication, true);
  assert.equal(Buffer.from(env.customData ?? []).toString(), '#cloud-config\nruncmd: [echo from-ovf]\n');
  assert.deepEqual(env.publicKeys, [
    {
      fingerprint: '6BE7A7C3C8A8F4B123CCA5D0C2F1BE4CA7B63ED7',
      path: '/home/azureuser/.ssh/authorized_keys',
      value: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKilnOvfKeyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX azureuser@ovf',
    },
  ]);
  assert.equal(env.preprovisionedVm, false);
  assert.equal(env.preprovisionedVmType, undefined);
});

test('ovf-env.xml: preprovisioning flags, an empty DisableSshPasswordAuthentication is false, a password', () => {
  const env = parseOvfEnv(
    Buffer.from(
      ovfWith({
        '<DisableSshPasswordAuthentication>true</DisableSshPasswordAuthentication>':
          '<DisableSshPasswordAuthentication></DisableSshPasswordAuthentication><UserPassword>P&amp;ss&lt;word</UserPassword>',
        '<PreprovisionedVm>false</PreprovisionedVm>':
          '<PreprovisionedVm>True</PreprovisionedVm><PreprovisionedVMType>Savable</PreprovisionedVMType>',
      }),
    ),
    'ovf-env.xml',
  );
  assert.equal(env.disableSshPasswordAuthentication, false);
  assert.equal(env.password, 'P&ss<word');
  assert.equal(env.preprovisionedVm, true);
  assert.equal(env.preprovisionedVmType, 'Savable');
  assert.equal(ppsType(env, {}, false), 'Savable');
  assert.equal(ppsType({ ...env, preprovisionedVmType: undefined }, {}, false), 'Running');
  assert.equal(ppsType(undefined, { extended: { compute: { ppsType: 'OS Disk' } } }, false), 'OS Disk');
  assert.equal(ppsType(undefined, {}, true), 'Unknown');
  assert.equal(ppsType(undefined, {}, false), 'None');
});

test('ovf-env.xml: not Azure, broken and incomplete documents', () => {
  assert.throws(
    () =>
      parseOvfEnv(
        Buffer.from('<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1"><PropertySection/></Environment>'),
        'x',
      ),
    NotAzureOvfEnv,
  );
  assert.throws(
    () => parseOvfEnv(Buffer.from('<Environment><unclosed></Environment>'), 'x'),
    (e: unknown) => e instanceof SourceError && !(e instanceof NotAzureOvfEnv) && /invalid ovf-env.xml/.test(e.message),
  );
  assert.throws(
    () => parseOvfEnv(Buffer.from(ovfWith({ '<UserName>azureuser</UserName>': '' })), 'x'),
    /no UserName element/,
  );
  assert.throws(
    () =>
      parseOvfEnv(
        Buffer.from(ovfWith({ '<HostName>kiln-ovf-name</HostName>': '<HostName>a</HostName><HostName>b</HostName>' })),
        'x',
      ),
    /HostName appears 2 times/,
  );
  assert.throws(
    () => parseOvfEnv(Buffer.from(ovfWith({ '<CustomData>': '<CustomData>not base64!' })), 'x'),
    /CustomData is not base64/,
  );
});

test('the copy of ovf-env.xml on disk has the password replaced, whatever the prefix', () => {
  const text =
    '<a xmlns:wa="x"><wa:UserPassword>s3cret</wa:UserPassword><UserPassword attr="1">other</UserPassword></a>';
  assert.equal(
    redactOvfPassword(text),
    '<a xmlns:wa="x"><wa:UserPassword>REDACTED</wa:UserPassword><UserPassword attr="1">REDACTED</UserPassword></a>',
  );
});

test('with IMDS alone, a minimal ovf-env.xml (as cloud-init writes it) is kept, and it parses back', async (t) => {
  const { root } = await crawlAgainstMock(t);
  const text = readFileSync(join(root, 'var/lib/waagent/ovf-env.xml'), 'utf8');
  assert.equal(text, minimalOvfEnv('azureuser', 'kiln-vm', true));
  const env = parseOvfEnv(Buffer.from(text), 'minimal');
  assert.equal(env.username, 'azureuser');
  assert.equal(env.hostname, 'kiln-vm');
  assert.equal(env.disableSshPasswordAuthentication, true);
  assert.equal(minimalOvfEnv('a<b', 'h', false).includes('<ns1:UserName>a&lt;b</ns1:UserName>'), true);
});

test("IMDS network → v2: MAC forms, NICs without addresses left out, secondary NICs without the DHCP server's DNS, secondary addresses without a subnet refused", () => {
  assert.equal(normalizeAzureMac('000D3A047598'), '00:0d:3a:04:75:98');
  assert.equal(normalizeAzureMac('00:0D:3A:04:75:98'), '00:0d:3a:04:75:98');
  const doc = JSON.parse(readFileSync(join(HAPPY, 'imds', 'instance.json'), 'utf8')) as { network: unknown };
  const cfg = azureImdsNetworkConfig(doc.network, { eth0: 'hv_netvsc' });
  assert.deepEqual(Object.keys(cfg.ethernets), ['eth0', 'eth1']);
  assert.deepEqual(cfg.ethernets.eth0?.match, { macaddress: '00:0d:3a:04:75:98', driver: 'hv_netvsc' });
  assert.deepEqual(cfg.ethernets.eth1?.match, { macaddress: '00:0d:3a:04:75:9a' });
  // The primary NIC's DHCP gives the DNS; a secondary NIC's is ignored (25.1).
  assert.deepEqual(cfg.ethernets.eth0?.['dhcp4-overrides'], { 'route-metric': 100 });
  assert.deepEqual(cfg.ethernets.eth1?.['dhcp4-overrides'], { 'route-metric': 200, 'use-dns': false });
  assert.throws(
    () =>
      azureImdsNetworkConfig({
        interface: [
          {
            macAddress: '000D3A047598',
            ipv4: { ipAddress: [{ privateIpAddress: '10.0.0.4' }, { privateIpAddress: '10.0.0.5' }] },
          },
        ],
      }),
    /secondary addresses but no subnet/,
  );
  assert.throws(() => azureImdsNetworkConfig({}), /no interface list/);
});

test('the wireserver address from option 245 in its three spellings, and from lease files', async (t) => {
  assert.equal(wireserverFromLeaseValue('a8:3f:81:10'), '168.63.129.16');
  assert.equal(wireserverFromLeaseValue('64:41:60:82'), '100.65.96.130');
  assert.equal(wireserverFromLeaseValue('a:b:c:d'), '10.11.12.13');
  assert.equal(wireserverFromLeaseValue('A83F8110'), '168.63.129.16');
  assert.equal(
    wireserverFromLeaseValue(
      '\\250?\\201\\020'.replace(/\\(\d{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8))),
    ),
    '168.63.129.16',
  );
  assert.equal(wireserverFromLeaseValue('zz:zz:zz:zz'), undefined);
  const log = new Logger().for('test');
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log });
  assert.equal(await findWireserver(platform, log), '168.63.129.16');
  mkdirSync(join(root, 'run/systemd/netif/leases'), { recursive: true });
  writeFileSync(join(root, 'run/systemd/netif/leases/2'), 'ADDRESS=10.0.0.4\nOPTION_245=A83F8111\n');
  assert.equal(await findWireserver(platform, log), '168.63.129.17');
  mkdirSync(join(root, 'var/lib/dhcp'), { recursive: true });
  writeFileSync(
    join(root, 'var/lib/dhcp/dhclient.eth0.leases'),
    'lease {\n  interface "eth0";\n  option unknown-245 a8:3f:81:10;\n}\nlease {\n  interface "eth0";\n  option unknown-245 a8:3f:81:12;\n}\n',
  );
  assert.equal(await findWireserver(platform, log), '168.63.129.18');
});

test('instance ids: byte-swapped and differently cased UUIDs are the same machine', () => {
  assert.equal(isByteSwapped('13f56399-bd52-4150-9748-7190aae1ff21', '9963f513-52bd-5041-9748-7190aae1ff21'), true);
  assert.equal(isByteSwapped('9963f513-52bd-5041-9748-7190aae1ff21', '9963f513-52bd-5041-9748-7190aae1ff21'), false);
  assert.equal(isByteSwapped('00000000-52bd-5041-9748-7190aae1ff21', '9963f513-52bd-5041-9748-7190aae1ff21'), false);
});

test('the health report body: Ready, and NotReady with an escaped, trimmed description', () => {
  const goal = parseGoalState(
    '<GoalState><Incarnation>3</Incarnation><Container><ContainerId>c-1</ContainerId><RoleInstanceList><RoleInstance><InstanceId>i&amp;1</InstanceId></RoleInstance></RoleInstanceList></Container></GoalState>',
    'goalstate',
  );
  assert.deepEqual(goal, { incarnation: '3', containerId: 'c-1', instanceId: 'i&1' });
  const ready = healthReport(goal, 'Ready');
  assert.match(ready, /<GoalStateIncarnation>3<\/GoalStateIncarnation>/);
  assert.match(ready, /<InstanceId>i&amp;1<\/InstanceId>/);
  assert.match(ready, /<State>Ready<\/State>\n {10}\n {8}<\/Health>/);
  const failed = healthReport(goal, 'NotReady', {
    substatus: 'ProvisioningFailed',
    description: `<bad>${'x'.repeat(600)}`,
  });
  assert.match(failed, /<SubStatus>ProvisioningFailed<\/SubStatus>/);
  assert.match(failed, /<Description>&lt;bad&gt;x{507}<\/Description>/);
  assert.throws(
    () => parseGoalState('<GoalState><Incarnation>1</Incarnation></GoalState>', 'goalstate'),
    /no Container\/ContainerId/,
  );
});

test("the health report is byte for byte cloud-init 22.4's (GoalStateHealthReporter.build_report in the Debian rootfs)", async (t) => {
  if (
    !need(
      t,
      isRoot() && hasCommand('unshare') && hasCommand('chroot') && hasCommand('debootstrap'),
      'needs root, unshare, chroot and debootstrap for the Debian cloud-init rootfs',
    )
  )
    return;
  const rootfs = ensureDebianRootfs();
  const script = [
    'import json, sys',
    'from cloudinit.sources.helpers.azure import GoalStateHealthReporter as R',
    'r = R(None, None, None)',
    'out = [r.build_report(incarnation="7", container_id="c<&>", instance_id="i-1", status="Ready"),',
    '       r.build_report(incarnation="7", container_id="c<&>", instance_id="i-1", status="NotReady", substatus="ProvisioningFailed", description="d & <e> " + "y" * 600)]',
    'sys.stdout.write(json.dumps(out))',
  ].join('\n');
  const r = spawnSync(
    'unshare',
    ['--mount', '--net', '--fork', 'chroot', rootfs, 'env', 'PYTHONDONTWRITEBYTECODE=1', 'python3', '-c', script],
    { encoding: 'utf8', timeout: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const [ready, failed] = JSON.parse(r.stdout) as [string, string];
  const goal = { incarnation: '7', containerId: 'c<&>', instanceId: 'i-1' };
  assert.equal(healthReport(goal, 'Ready'), ready);
  assert.equal(
    healthReport(goal, 'NotReady', { substatus: 'ProvisioningFailed', description: `d & <e> ${'y'.repeat(600)}` }),
    failed,
  );
});

test('the azure mock refuses what IMDS and the wireserver refuse', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(HAPPY, 'imds') });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, { headers });
    return { status: res.status, body: await res.text() };
  };
  const noHeader = await get('/metadata/instance?api-version=2021-08-01');
  assert.equal(noHeader.status, 400);
  assert.match(noHeader.body, /Required metadata header not specified/);
  assert.equal((await get('/metadata/instance', { Metadata: 'true' })).status, 400);
  assert.match(
    (await get('/metadata/instance?api-version=1999-01-01', { Metadata: 'true' })).body,
    /api-version is invalid/,
  );
  assert.equal(
    (await get('/metadata/instance?api-version=2021-08-01', { Metadata: 'true', 'X-Forwarded-For': '1.2.3.4' })).status,
    400,
  );
  const plain = JSON.parse(
    (await get('/metadata/instance?api-version=2021-08-01', { Metadata: 'true' })).body,
  ) as Record<string, unknown>;
  assert.equal('extended' in plain, false);
  const extended = JSON.parse(
    (await get('/metadata/instance?api-version=2021-08-01&extended=true', { Metadata: 'true' })).body,
  ) as Record<string, unknown>;
  assert.equal('extended' in extended, true);
  assert.deepEqual(
    await get('/metadata/instance/compute/location?api-version=2021-08-01&format=text', { Metadata: 'true' }),
    { status: 200, body: 'westeurope' },
  );
  assert.equal((await get('/machine/?comp=goalstate')).status, 400);
  assert.match(
    (await get('/machine/?comp=goalstate', { 'x-ms-version': '2012-11-30' })).body,
    /<Incarnation>1<\/Incarnation>/,
  );
  const post = await fetch(`${server.url}/machine?comp=health`, {
    method: 'POST',
    headers: { 'x-ms-version': '2012-11-30', 'Content-Type': 'text/xml; charset=utf-8' },
    body: '<Health><State>Ready</State></Health>',
  });
  assert.equal(post.status, 200);
  assert.equal(server.requests.at(-1)?.body, '<Health><State>Ready</State></Health>');
});

interface Crawled {
  data: Awaited<ReturnType<typeof azureSource.crawl>>;
  server: RunningMetadataServer;
  root: string;
  log: string;
}

async function crawlAgainstMock(
  t: TestContext,
  opts: {
    imdsDir?: string;
    ovf?: string;
    finder?: FilesystemFinder;
    platform?: (root: string) => Platform;
    settings?: Record<string, unknown>;
  } = {},
): Promise<Crawled> {
  const server = await mockMetadataServer(t, { kind: 'azure', dir: opts.imdsDir ?? join(HAPPY, 'imds') });
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const log = logger.for('test');
  const root = tempDir(t);
  const platform = opts.platform ? opts.platform(root) : new LinuxPlatform({ root, log });
  let finder = opts.finder;
  if (!finder) {
    const media = join(tempDir(t), 'media');
    mkdirSync(media);
    if (opts.ovf !== undefined) writeFileSync(join(media, 'ovf-env.xml'), opts.ovf);
    finder = new FakeFinder(
      new LinuxPlatform({ root: '/', log }),
      opts.ovf !== undefined ? [{ device: 'sr0-image', label: 'rd_rdfe_stable.1', fsType: 'udf', dir: media }] : [],
    );
  }
  const ctx: CrawlContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: DMI,
    config: {},
    finder,
    settings: { ...FAST, ...(opts.settings ?? {}) },
    baseUrl: server.url,
    signal: AbortSignal.timeout(20_000),
  };
  const data = await azureSource.crawl(ctx);
  return { data, server, root, log: sink.lines.join('') };
}

test('a crawl reads IMDS with Metadata: true and the extended api-version, then reports Ready to the wireserver', async (t) => {
  const { data, server } = await crawlAgainstMock(t, { ovf: OVF });
  const imds = server.requests.filter((r) => r.path.startsWith('/metadata'));
  assert.deepEqual(
    imds.map((r) => r.path),
    ['/metadata/instance?api-version=2021-08-01&extended=true'],
  );
  assert.equal(imds[0]?.headers.metadata, 'true');
  const wire = server.requests.filter((r) => r.path.startsWith('/machine'));
  assert.deepEqual(
    wire.map((r) => `${r.method} ${r.path} ${r.status}`),
    ['GET /machine/?comp=goalstate 200', 'POST /machine?comp=health 200'],
  );
  for (const r of wire) {
    assert.equal(r.headers['x-ms-agent-name'], 'WALinuxAgent');
    assert.equal(r.headers['x-ms-version'], '2012-11-30');
  }
  assert.equal(wire[1]?.headers['content-type'], 'text/xml; charset=utf-8');
  assert.equal(
    wire[1]?.body,
    healthReport(
      {
        incarnation: '1',
        containerId: 'b7a7e9f2-0d8c-4a55-9a8e-4c2b64d1e0a1',
        instanceId: 'd5fd8c84-7f6a-4f2d-8e47-1c1c1d0a3b7e.kiln-vm',
      },
      'Ready',
    ),
  );
  assert.equal(data.instanceId, '9963f513-52bd-5041-9748-7190aae1ff21');
  assert.equal((data.metadata.imds as Record<string, unknown>).extended !== undefined, true);
});

test('report_ready: false sends nothing to the wireserver; a wireserver that fails is a warning, not a failed crawl', async (t) => {
  const quiet = await crawlAgainstMock(t, { ovf: OVF, settings: { report_ready: false } });
  assert.equal(quiet.server.requests.filter((r) => r.path.startsWith('/machine')).length, 0);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'instance.json'), readFileSync(join(HAPPY, 'imds', 'instance.json')));
  writeFileSync(join(dir, 'goalstate.xml'), '<GoalState><Incarnation>1</Incarnation></GoalState>');
  const broken = await crawlAgainstMock(t, { ovf: OVF, imdsDir: dir });
  assert.equal(broken.data.localHostname, 'kiln-vm');
  assert.match(broken.log, /could not report ready to the fabric .*no Container\/ContainerId/);
  assert.equal(broken.server.requests.filter((r) => r.method === 'POST').length, 0);
});

test('a dry run sends nothing to the wireserver and writes nothing', async (t) => {
  const platform = (root: string): Platform =>
    new DryRunPlatform(new LinuxPlatform({ root, log: new Logger().for('test') }));
  const { server, root, log } = await crawlAgainstMock(t, { ovf: OVF, platform });
  assert.equal(server.requests.filter((r) => r.path.startsWith('/machine')).length, 0);
  assert.match(log, /no ready report to the wireserver \(dry run\)/);
  assert.equal(existsSync(join(root, 'var/lib/waagent')), false);
});

test('an older IMDS (400 for 2021-08-01) is read with 2019-06-01, without the extended tree', async (t) => {
  const { data, server } = await crawlAgainstMock(t, {
    ovf: OVF,
    imdsDir: join(FIXTURES, 'sources', 'azure', 'api-version-fallback', 'imds'),
  });
  const imds = server.requests.filter((r) => r.path.startsWith('/metadata')).map((r) => `${r.path} ${r.status}`);
  assert.deepEqual(imds, [
    '/metadata/instance?api-version=2021-08-01&extended=true 400',
    '/metadata/instance?api-version=2019-06-01 200',
  ]);
  assert.equal('extended' in (data.metadata.imds as Record<string, unknown>), false);
  assert.equal(data.region, 'westeurope');
});

test('a password: hashed by openssl passwd -6 for the default user, REDACTED in the data_dir copy, never logged', async (t) => {
  if (!need(t, hasCommand('openssl'), 'openssl is not installed')) return;
  const secret = 's3cret-Admin-Pass';
  // Commands run on the host (openssl only), files stay in the sandbox root.
  const platform = (root: string): Platform => {
    const inner = new LinuxPlatform({ root, log: new Logger().for('test') });
    return Object.assign(Object.create(inner) as Platform, {
      run: async (cmd: string[] | string, o?: { input?: string }) => {
        assert.deepEqual(cmd, ['openssl', 'passwd', '-6', '-stdin']);
        const r = spawnSync('openssl', ['passwd', '-6', '-stdin'], { input: o?.input ?? '', encoding: 'utf8' });
        return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
      },
    });
  };
  const { data, root, log } = await crawlAgainstMock(t, {
    ovf: ovfWith({
      '<UserName>azureuser</UserName>': `<UserName>azureuser</UserName><UserPassword>${secret}</UserPassword>`,
    }),
    platform,
  });
  assert.ok(data.sourceConfig, 'the source gives system config');
  const user = (data.sourceConfig.system_info as { default_user: Record<string, unknown> }).default_user;
  assert.equal(user.name, 'azureuser');
  assert.equal(user.lock_passwd, false);
  const hash = String(user.hashed_passwd);
  const salt = /^\$6\$([^$]+)\$/.exec(hash)?.[1];
  assert.ok(salt, hash);
  const again = spawnSync('openssl', ['passwd', '-6', '-salt', salt, '-stdin'], {
    input: `${secret}\n`,
    encoding: 'utf8',
  });
  assert.equal(again.stdout.trim(), hash);
  assert.equal(data.adminPassword, secret);
  assert.equal(data.sourceConfig?.ssh_pwauth, false);
  const copy = join(root, 'var/lib/waagent/ovf-env.xml');
  assert.ok(existsSync(copy));
  assert.equal(statSync(copy).mode & 0o777, 0o600);
  assert.equal(statSync(join(root, 'var/lib/waagent')).mode & 0o777, 0o700);
  const text = readFileSync(copy, 'utf8');
  assert.ok(!text.includes(secret));
  assert.match(text, /<UserPassword>REDACTED<\/UserPassword>/);
  assert.ok(!log.includes(secret), 'the password reached the log');
});

test("the previous boot's id is kept when it is the byte-swapped form of the system UUID", async (t) => {
  const platform = (root: string): Platform => {
    mkdirSync(join(root, 'var/lib/cloud/data'), { recursive: true });
    writeFileSync(join(root, 'var/lib/cloud/data/instance-id'), '13F56399-BD52-4150-9748-7190AAE1FF21\n');
    return new LinuxPlatform({ root, log: new Logger().for('test') });
  };
  const { data } = await crawlAgainstMock(t, { ovf: OVF, platform });
  assert.equal(data.instanceId, '13F56399-BD52-4150-9748-7190AAE1FF21');
});

test('ovf-env.xml on a real UDF image (genisoimage -udf, ISO9660 side removed) is found by its rd_rdfe_ label', async (t) => {
  if (!need(t, hasCommand('genisoimage'), 'genisoimage is not installed')) return;
  const dir = tempDir(t);
  const src = join(dir, 'src');
  mkdirSync(src);
  writeFileSync(join(src, 'ovf-env.xml'), OVF);
  const other = join(dir, 'other');
  mkdirSync(other);
  writeFileSync(join(other, 'meta-data'), 'instance-id: x\n');
  const image = join(dir, 'provisioning.udf');
  makeUdfImage(src, image, 'rd_rdfe_stable.231013-1532');
  const cidata = join(dir, 'cidata.udf');
  makeUdfImage(other, cidata, 'cidata');
  const finder = new ImageFilesFinder([cidata, image]);
  const detectCtx = {
    platform: new LinuxPlatform({ root: tempDir(t), log: new Logger().for('test') }),
    log: new Logger().for('test'),
    kernelCmdline: '',
    dmi: { sys_vendor: 'Microsoft Corporation' },
    config: {},
    finder,
  };
  assert.equal(await azureSource.detect(detectCtx), true);
  const { data } = await crawlAgainstMock(t, { finder });
  assert.equal(data.subplatform, `config-disk (${image})`);
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nruncmd: [echo from-ovf]\n');
});

test("through the stage runner: instance-data.json carries Azure's v1 keys, the IMDS tree, and the ready report went out", async (t) => {
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(HAPPY, 'imds') });
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/50-azure.cfg'),
    `datasource_list: [Azure, None]\ndatasource:\n  Azure:\n    metadata_urls: ['${server.url}']\n    wireserver_url: '${server.url}'\n    retries: 2\n    timeout: 2\n    max_wait: 10\ncloud_init_modules: []\ncloud_config_modules: []\ncloud_final_modules: []\n`,
  );
  mkdirSync(join(root, 'sys/class/dmi/id'), { recursive: true });
  for (const [k, v] of Object.entries(DMI)) writeFileSync(join(root, 'sys/class/dmi/id', k), `${v}\n`);
  const media = tempDir(t);
  writeFileSync(join(media, 'ovf-env.xml'), OVF);
  const logger = new Logger();
  const platform = new LinuxPlatform({ root, log: logger.for('platform') });
  const deps = fakeDeps([azureSource], [], {
    finder: new FakeFinder(new LinuxPlatform({ root: '/', log: logger.for('t') }), [
      { device: 'sr0-image', label: 'rd_rdfe_1', fsType: 'udf', dir: media },
    ]),
  });
  await new StageRunner({ platform, logger, deps }).runAllStages();
  const doc = JSON.parse(readFileSync(join(root, 'run/cloud-init/instance-data.json'), 'utf8')) as {
    v1: Record<string, unknown>;
    ds: { meta_data: Record<string, unknown> };
  };
  assert.equal(doc.v1.cloud_name, 'azure');
  assert.equal(doc.v1.platform, 'azure');
  assert.equal(doc.v1.subplatform, 'config-disk (sr0-image)');
  assert.equal(doc.v1.instance_id, '9963f513-52bd-5041-9748-7190aae1ff21');
  assert.equal(doc.v1.local_hostname, 'kiln-vm');
  assert.equal(doc.v1.region, 'westeurope');
  assert.equal(doc.v1.availability_zone, '0');
  assert.deepEqual(doc.v1.public_ssh_keys, [
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKilnImdsKeyForTheAzureUserOnlyXXXXXXXXXXXXX azureuser@example',
  ]);
  assert.equal((doc.ds.meta_data.imds as { compute: { location: string } }).compute.location, 'westeurope');
  assert.ok(
    server.requests.some(
      (r) =>
        r.method === 'POST' &&
        r.path === '/machine?comp=health' &&
        r.status === 200 &&
        /<State>Ready<\/State>/.test(r.body ?? ''),
    ),
  );
});

test('a broken ovf-env.xml fails the crawl with the reason, and NotReady/ProvisioningFailed goes to the fabric', async (t) => {
  await assert.rejects(
    crawlAgainstMock(t, { ovf: ovfWith({ '<UserName>azureuser</UserName>': '' }) }),
    /no UserName element/,
  );
  // The same with the requests in view: the failure report reaches the wireserver.
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(HAPPY, 'imds') });
  const log = new Logger().for('test');
  const media = tempDir(t);
  writeFileSync(
    join(media, 'ovf-env.xml'),
    '<Environment xmlns:wa="http://schemas.microsoft.com/windowsazure"><wa:ProvisioningSection><wa:Broken/></wa:ProvisioningSection></Environment>',
  );
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const finder = new FakeFinder(new LinuxPlatform({ root: '/', log }), [
    { device: 'sr0-image', label: 'rd_rdfe_1', fsType: 'udf', dir: media },
  ]);
  await assert.rejects(
    azureSource.crawl({
      platform,
      log,
      kernelCmdline: '',
      dmi: DMI,
      config: {},
      finder,
      settings: FAST,
      baseUrl: server.url,
    }),
    /no LinuxProvisioningConfigurationSet/,
  );
  const health = server.requests.filter((r) => r.method === 'POST');
  assert.equal(health.length, 1);
  assert.match(health[0]?.body ?? '', /<State>NotReady<\/State>[\s\S]*<SubStatus>ProvisioningFailed<\/SubStatus>/);
  assert.equal(
    server.requests.filter((r) => r.path.startsWith('/metadata')).length,
    0,
    'IMDS is not asked when the OVF is broken',
  );
});

test("cloudbase-init's AzureService speaks its own protocol: Versions and goal state, never IMDS, no report", async (t) => {
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(HAPPY, 'imds') });
  const log = new Logger().for('test');
  const linux = new LinuxPlatform({ root: tempDir(t), log });
  await assert.rejects(
    cloudbaseAzureService.crawl(
      {
        platform: linux,
        log,
        kernelCmdline: '',
        dmi: DMI,
        config: {},
        finder: new FakeFinder(linux),
        settings: { retries: 0 },
        baseUrl: server.url,
      },
      azureSource,
    ),
    /no drive holds E6DA6616/,
  );
  assert.deepEqual(
    server.requests.map((r) => `${r.method} ${r.path}`),
    ['GET /?comp=Versions', 'GET /machine?comp=goalstate'],
  );
});

test("a key given only by fingerprint: the wireserver's certificates, decrypted with a transport certificate, give the OpenSSH key", async (t) => {
  if (!need(t, hasCommand('openssl') && hasCommand('ssh-keygen'), 'openssl and ssh-keygen are needed')) return;
  const work = tempDir(t);
  // The user's certificate, made now (no key material is committed).
  const userKey = join(work, 'user-key.pem');
  const userCert = join(work, 'user-cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-nodes',
      '-subj',
      '/CN=azureuser',
      '-days',
      '2',
      '-newkey',
      'rsa:2048',
      '-keyout',
      userKey,
      '-out',
      userCert,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(made.status, 0, made.stderr);
  const fp =
    spawnSync('openssl', ['x509', '-noout', '-fingerprint', '-sha1', '-in', userCert], { encoding: 'utf8' })
      .stdout.trim()
      .split('=')[1]
      ?.replace(/:/g, '') ?? '';
  writeFileSync(
    join(work, 'pub.pem'),
    spawnSync('openssl', ['x509', '-noout', '-pubkey', '-in', userCert], { encoding: 'utf8' }).stdout,
  );
  const wantKey = spawnSync('ssh-keygen', ['-i', '-m', 'PKCS8', '-f', join(work, 'pub.pem')], {
    encoding: 'utf8',
  }).stdout.trim();
  assert.match(wantKey, /^ssh-rsa /);
  const imdsDir = join(work, 'imds');
  mkdirSync(imdsDir);
  const doc = JSON.parse(readFileSync(join(HAPPY, 'imds', 'instance.json'), 'utf8')) as {
    compute: Record<string, unknown>;
  };
  delete doc.compute.publicKeys;
  writeFileSync(join(imdsDir, 'instance.json'), JSON.stringify(doc));
  writeFileSync(join(imdsDir, 'certificates.pem'), readFileSync(userCert, 'utf8') + readFileSync(userKey, 'utf8'));
  writeFileSync(
    join(imdsDir, 'goalstate.xml'),
    '<GoalState><Incarnation>2</Incarnation><Container><ContainerId>c</ContainerId><RoleInstanceList><RoleInstance><InstanceId>i</InstanceId><Configuration><Certificates>{{url}}/machine/?comp=certificates&amp;incarnation=2</Certificates></Configuration></RoleInstance></RoleInstanceList></Container></GoalState>',
  );
  const ovf = ovfWith({
    '<Value>ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKilnOvfKeyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX azureuser@ovf</Value>':
      '',
    '<Fingerprint>6BE7A7C3C8A8F4B123CCA5D0C2F1BE4CA7B63ED7</Fingerprint>': `<Fingerprint>${fp}</Fingerprint>`,
  });
  // openssl and ssh-keygen run on the host, their files (the transport certificate) in the sandbox root.
  const platform = (root: string): Platform => {
    const inner = new LinuxPlatform({ root, log: new Logger().for('test') });
    const mapArg = (a: string) => a.replaceAll('/run/kiln-azure-certs', `${root}/run/kiln-azure-certs`);
    return Object.assign(Object.create(inner) as Platform, {
      run: async (cmd: string[] | string, o?: { input?: string }) => {
        const argv = (Array.isArray(cmd) ? cmd : ['sh', '-c', cmd]).map(mapArg);
        assert.ok(['openssl', 'sh', 'ssh-keygen'].includes(argv[0] as string), `unexpected command ${argv.join(' ')}`);
        const r = spawnSync(argv[0] as string, argv.slice(1), { input: o?.input ?? '', encoding: 'utf8' });
        return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
      },
    });
  };
  const { data, server, root, log } = await crawlAgainstMock(t, { ovf, imdsDir, platform });
  assert.deepEqual(data.publicKeys, [wantKey], log);
  const certReq = server.requests.find((r) => r.path.startsWith('/machine/?comp=certificates'));
  assert.equal(certReq?.status, 200);
  assert.equal(certReq?.headers['x-ms-cipher-name'], 'DES_EDE3_CBC');
  assert.match(String(certReq?.headers['x-ms-guest-agent-public-x509-cert']), /^MII[A-Za-z0-9+/=]+$/);
  assert.ok(
    server.requests.some(
      (r) => r.method === 'POST' && /<GoalStateIncarnation>2<\/GoalStateIncarnation>/.test(r.body ?? ''),
    ),
  );
  assert.equal(
    existsSync(join(root, 'run'))
      ? readdirSync(join(root, 'run')).filter((n) => n.startsWith('kiln-azure-certs')).length
      : 0,
    0,
    'the transport certificate is removed',
  );
});

test("IMDS's disablePasswordAuthentication decides ssh_pwauth over ovf-env.xml's, as cloud-init 25.1 does, and is not copied into the metadata", async (t) => {
  const imdsTrue = await crawlAgainstMock(t, {});
  assert.equal(imdsTrue.data.sourceConfig?.ssh_pwauth, false);
  assert.equal(
    'disable_password' in imdsTrue.data.metadata,
    false,
    '25.1 writes no disable_password into the metadata (22.4 did)',
  );
  const dir = join(tempDir(t), 'imds');
  mkdirSync(dir);
  const doc = JSON.parse(readFileSync(join(HAPPY, 'imds', 'instance.json'), 'utf8')) as {
    compute: { osProfile: Record<string, string> };
  };
  doc.compute.osProfile.disablePasswordAuthentication = 'false';
  writeFileSync(join(dir, 'instance.json'), JSON.stringify(doc));
  // The OVF document says DisableSshPasswordAuthentication true; IMDS's false wins.
  const imdsFalse = await crawlAgainstMock(t, { imdsDir: dir, ovf: OVF });
  assert.equal(imdsFalse.data.sourceConfig?.ssh_pwauth, true);
});
