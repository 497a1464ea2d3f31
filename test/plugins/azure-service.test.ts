// cloudbase-init's AzureService on kiln's Azure source: wireserver 2015-04-05 from [azure] wireserver_url or DHCP
// option 245, the tagged drive's ovf-env.xml, and the health reports at cloudbase-init's points.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import type { Plugin } from '../../src/plugins/plugin';
import { PLUGINS } from '../../src/plugins/registry';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import {
  cloudbaseHealthReport,
  findWindowsWireserver,
  parseCloudbaseGoalState,
} from '../../src/sources/azure/cloudbase-wireserver';
import { parseWindowsOvfEnv } from '../../src/sources/azure/windows-ovf-env';
import type { InstanceData } from '../../src/sources/datasource';
import { DATASOURCES } from '../../src/sources/registry';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer, type RunningMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const AZURE = 'cloudbaseinit.metadata.services.azureservice.AzureService';
const FIXTURE = join(FIXTURES, 'sources', 'azure', 'windows');
const ROLE_INSTANCE = '1f2e3d4c5b6a4978a1b2c3d4e5f60718._kiln-win-vm';

interface Setup {
  server: RunningMetadataServer;
  drive: string;
  win: FakeWindows;
}

async function setup(t: TestContext, wireserver = join(FIXTURE, 'wireserver')): Promise<Setup> {
  const dir = tempDir(t);
  const drive = join(dir, 'drive');
  cpSync(join(FIXTURE, 'drive'), drive, { recursive: true });
  const server = await mockMetadataServer(t, { kind: 'azure', dir: wireserver });
  const win = new FakeWindows();
  // The provisioning drive is a folder here: MountedVolumeTree reads a drive root and a folder alike.
  win.drives.push({ root: `${drive}/`, label: 'rd_rdfe_stable.1234567890' });
  return { server, drive, win };
}

async function run(s: Setup, opts: { conf?: string; plugins?: Plugin[] } = {}) {
  const seen: InstanceData[] = [];
  const probe: Plugin = {
    classPath: 'test.ProbePlugin',
    name: 'ProbePlugin',
    stage: 'main',
    async execute(ctx) {
      if (ctx.instance) seen.push(ctx.instance);
      return { status: 'done', reboot: false };
    },
  };
  const logger = new Logger();
  const sink = new MemorySink();
  logger.addSink(sink);
  const conf = [
    '[DEFAULT]',
    `metadata_services=${AZURE}`,
    `plugins=test.ProbePlugin${(opts.plugins ?? []).map((p) => `,${p.classPath}`).join('')}`,
    'allow_reboot=false',
    'retry_count=1',
    'retry_count_interval=0',
    'metadata_report_provisioning_started=true',
    'metadata_report_provisioning_completed=true',
    opts.conf ?? '',
    '[azure]',
    `wireserver_url=${s.server.url}`,
    '',
  ].join('\n');
  const deps: CloudbaseRunnerDeps = {
    platform: new FakeFiles(),
    windows: s.win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: conf }]),
    sources: [...DATASOURCES],
    finder: { find: async () => [] },
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows' },
    sleep: async () => undefined,
    plugins: [...PLUGINS, probe, ...(opts.plugins ?? [])],
  };
  const report = await runCloudbaseInit(deps);
  return { report, seen, log: sink.lines.join('') };
}

const posts = (s: Setup) => s.server.requests.filter((r) => r.method === 'POST');

test('AzureService: Versions, then the goal state with x-ms-version 2015-04-05; ovf-env.xml and CustomData.bin from the tagged drive', async (t) => {
  const s = await setup(t);
  const { report, seen } = await run(s);
  assert.deepEqual(report.errors, []);
  assert.equal(report.service?.classPath, AZURE);
  assert.equal(report.instanceId, ROLE_INSTANCE, "the instance id is the goal state's role instance id");
  const data = seen[0];
  assert.ok(data);
  assert.equal(data.localHostname, 'kiln-win-vm');
  assert.equal(data.adminPassword, 'Azure-Pa55word!');
  assert.equal(data.metadata.admin_username, 'azureadmin');
  assert.equal(
    Buffer.from(data.userData ?? []).toString(),
    'rem cmd\r\necho hello\r\n',
    'CustomData.bin is handed on undecoded',
  );
  assert.deepEqual(data.metadata.vm_agent, {
    provision: true,
    package_name: 'WaAppAgent_2.7.41491.1102_CustomerConfig.zip',
  });
  assert.deepEqual(data.metadata.winrm_listeners, [
    { protocol: 'Http' },
    { protocol: 'Https', certificate_thumbprint: 'D4A5D0B8E8C5B1A6F1E2D3C4B5A69788796A5B4C' },
  ]);
  const [versions, goal] = s.server.requests;
  assert.equal(versions?.path, '/?comp=Versions');
  assert.equal(versions?.headers['x-ms-version'], undefined, 'the Versions request names no version yet');
  assert.equal(goal?.path, '/machine?comp=goalstate');
  assert.equal(goal?.headers['x-ms-version'], '2015-04-05');
  assert.ok(s.server.requests.every((r) => r.headers['x-ms-guest-agent-name'] === 'cloudbase-init'));
  // NotReady/Provisioning before the MAIN plugins, Ready after them.
  const health = posts(s);
  assert.deepEqual(
    health.map((r) => r.path),
    ['/machine?comp=health', '/machine?comp=health'],
  );
  assert.match(
    health[0]?.body ?? '',
    /<State>NotReady<\/State><Details><SubStatus>Provisioning<\/SubStatus><Description>Cloudbase-Init is preparing your computer for first use\.\.\.<\/Description><\/Details>/,
  );
  assert.match(
    health[1]?.body ?? '',
    /<GoalStateIncarnation>3<\/GoalStateIncarnation>.*<InstanceId>1f2e3d4c5b6a4978a1b2c3d4e5f60718\._kiln-win-vm<\/InstanceId><Health><State>Ready<\/State><\/Health>/,
  );
  assert.ok(health.every((r) => r.status === 200 && r.headers['content-type'] === 'text/xml; charset=utf-8'));
});

test('AzureService: a failed MAIN plugin is reported NotReady/ProvisioningFailed, and no Ready follows; reports are off by default', async (t) => {
  const s = await setup(t);
  const failing: Plugin = {
    classPath: 'test.FailingPlugin',
    name: 'FailingPlugin',
    stage: 'main',
    async execute() {
      throw new Error('broken on purpose');
    },
  };
  await run(s, { plugins: [failing] });
  const health = posts(s);
  assert.equal(health.length, 2);
  assert.match(
    health[1]?.body ?? '',
    /<State>NotReady<\/State><Details><SubStatus>ProvisioningFailed<\/SubStatus><Description>Provisioning failed<\/Description>/,
  );
  const quiet = await setup(t);
  const { report } = await run(quiet, {
    conf: 'metadata_report_provisioning_started=false\nmetadata_report_provisioning_completed=false',
  });
  assert.deepEqual(report.errors, []);
  assert.equal(posts(quiet).length, 0, "cloudbase-init's defaults send no report");
});

test('AzureService: the RDP thumbprint goes to the wireserver as a role property', async (t) => {
  const s = await setup(t);
  const rdp: Plugin = {
    classPath: 'test.RdpPlugin',
    name: 'RdpPlugin',
    stage: 'main',
    async execute(ctx) {
      await ctx.service?.postRdpCertificateThumbprint?.('0123456789ABCDEF0123456789ABCDEF01234567');
      return { status: 'done', reboot: false };
    },
  };
  const { report } = await run(s, {
    plugins: [rdp],
    conf: 'metadata_report_provisioning_started=false\nmetadata_report_provisioning_completed=false',
  });
  assert.deepEqual(report.errors, []);
  const props = posts(s);
  assert.equal(props.length, 1);
  assert.equal(props[0]?.path, '/machine?comp=roleProperties');
  assert.equal(props[0]?.status, 200);
  assert.match(
    props[0]?.body ?? '',
    /<RoleProperties><Container><ContainerId>7e3a2c1b-5d4f-4a8e-9b6c-0d1e2f3a4b5c<\/ContainerId><RoleInstances><RoleInstance><Id>1f2e3d4c5b6a4978a1b2c3d4e5f60718\._kiln-win-vm<\/Id><Properties><Property name="CertificateThumbprint" value="0123456789ABCDEF0123456789ABCDEF01234567" \/>/,
  );
});

test('AzureService: no tagged drive, or CustomData without CustomData.bin, and the service is not loaded (the wireserver is told nothing)', async (t) => {
  const s = await setup(t);
  rmSync(join(s.drive, 'E6DA6616-8EC4-48E0-BE93-58CE6ACE3CFB.tag'));
  const { report, log } = await run(s);
  assert.equal(report.service, undefined);
  assert.match(log, /no drive holds E6DA6616-8EC4-48E0-BE93-58CE6ACE3CFB\.tag/);
  assert.equal(posts(s).length, 0);
  const t2 = await setup(t);
  rmSync(join(t2.drive, 'CustomData.bin'));
  const second = await run(t2);
  assert.equal(second.report.service, undefined);
  assert.match(second.log, /has CustomData, but .*CustomData\.bin is not present/);
});

test('the wireserver address: option 245 of a DHCP adapter, else 168.63.129.16 after the polls', async () => {
  const win = new FakeWindows();
  const log = new Logger().for('test');
  const adapter = {
    ifIndex: 3,
    luid: 3n,
    guid: '{AAAA}',
    mac: '00:15:5d:00:00:01',
    friendlyName: 'Ethernet',
    description: 'Hyper-V',
    mtu: 1500,
    dhcpv4: true,
    up: true,
    unicast: [],
    dnsServers: [],
  };
  win.adapters.push(adapter);
  const system = win.platform(new Logger());
  assert.equal(await findWindowsWireserver(system, log, { waitMs: 0, pollMs: 1 }), '168.63.129.16');
  win.dhcpLeases.set('{aaaa}', new Map([[245, Uint8Array.from([168, 63, 129, 17])]]));
  assert.equal(await findWindowsWireserver(system, log, { waitMs: 0, pollMs: 1 }), '168.63.129.17');
});

test('goal state and health documents: ExpectedState must be Started; the report is what ElementTree writes', () => {
  const xml = (state: string) =>
    `<GoalState><Incarnation>1</Incarnation><Machine><ExpectedState>${state}</ExpectedState></Machine><Container><ContainerId>c&amp;1</ContainerId><RoleInstanceList><RoleInstance><InstanceId>r</InstanceId><Configuration><Certificates>http://x/certs</Certificates></Configuration></RoleInstance></RoleInstanceList></Container></GoalState>`;
  const goal = parseCloudbaseGoalState(xml('Started'), 'gs');
  assert.equal(goal.certificatesUrl, 'http://x/certs');
  assert.throws(() => parseCloudbaseGoalState(xml('Stopped'), 'gs'), /invalid machine expected state 'Stopped'/);
  assert.equal(
    cloudbaseHealthReport(goal, 'NotReady', 'ProvisioningFailed', 'a <b>'),
    "<?xml version='1.0' encoding='utf-8'?>\n<Health><GoalStateIncarnation>1</GoalStateIncarnation><Container><ContainerId>c&amp;1</ContainerId><RoleInstanceList><Role><InstanceId>r</InstanceId><Health><State>NotReady</State><Details><SubStatus>ProvisioningFailed</SubStatus><Description>a &lt;b&gt;</Description></Details></Health></Role></RoleInstanceList></Container></Health>",
  );
});

test('the Windows ovf-env.xml: a Linux one is refused with the reason, defaults when PlatformSettings says little', (t) => {
  const linux = Buffer.from(
    '<Environment xmlns="http://schemas.dmtf.org/ovf/environment/1" xmlns:wa="http://schemas.microsoft.com/windowsazure"><wa:ProvisioningSection><wa:LinuxProvisioningConfigurationSet><wa:UserName>u</wa:UserName></wa:LinuxProvisioningConfigurationSet></wa:ProvisioningSection></Environment>',
  );
  assert.throws(
    () => parseWindowsOvfEnv(linux, 'x'),
    /no WindowsProvisioningConfigurationSet \(this is a Linux VM's provisioning data\)/,
  );
  const dir = tempDir(t);
  const minimal =
    '<Environment xmlns:wa="http://schemas.microsoft.com/windowsazure"><wa:ProvisioningSection><wa:WindowsProvisioningConfigurationSet><wa:ComputerName>c</wa:ComputerName><wa:AdminUsername>a</wa:AdminUsername></wa:WindowsProvisioningConfigurationSet></wa:ProvisioningSection></Environment>';
  writeFileSync(join(dir, 'o.xml'), minimal);
  const env = parseWindowsOvfEnv(Buffer.from(minimal), 'x');
  assert.deepEqual(env, {
    adminUsername: 'a',
    computerName: 'c',
    enableAutomaticUpdates: false,
    winrmListeners: [],
    hasCustomData: false,
    provisionGuestAgent: false,
    kmsHost: 'kms.core.windows.net',
    useAvma: false,
  });
});

test('ServerCertificatesPlugin with Azure: a transport certificate in [azure] transport_cert_store_name, the CMS envelope (made by openssl) decrypted, the PFX imported into the StoredCertificate stores, the transport certificate deleted', async (t) => {
  if (!need(t, hasCommand('openssl'), 'openssl is needed to make and read the certificates')) return;
  const dir = tempDir(t);
  const wire = join(dir, 'wireserver');
  cpSync(join(FIXTURE, 'wireserver'), wire, { recursive: true });
  const goal = readFileSync(join(wire, 'goalstate.xml'), 'utf8').replace(
    '<SharedConfig>',
    '<Certificates>{{url}}/machine/?comp=certificates&amp;incarnation=3</Certificates>\n          <SharedConfig>',
  );
  writeFileSync(join(wire, 'goalstate.xml'), goal);
  // The server certificate, made now (no key material is committed).
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-nodes',
    '-subj',
    '/CN=kiln-azure-server-cert',
    '-days',
    '2',
    '-newkey',
    'rsa:2048',
    '-keyout',
    join(dir, 'k.pem'),
    '-out',
    join(dir, 'c.pem'),
  ]);
  assert.equal(made.status, 0, made.stderr.toString());
  const certPem = readFileSync(join(dir, 'c.pem'), 'utf8');
  writeFileSync(join(wire, 'certificates.pem'), certPem + readFileSync(join(dir, 'k.pem'), 'utf8'));
  writeFileSync(
    join(wire, 'hostingenvironment.xml'),
    '<HostingEnvironmentConfig version="1.0.0.0" goalStateIncarnation="3"><StoredCertificates><StoredCertificate name="Stored0Server" certificateId="sha1:X" storeName="My" configurationLevel="System" /><StoredCertificate name="Stored1User" certificateId="sha1:X" storeName="TrustedPeople" configurationLevel="CurrentUser" /></StoredCertificates></HostingEnvironmentConfig>',
  );
  const s = await setup(t, wire);
  s.win.realCertificates = true;
  const { report, log } = await run(s, {
    conf: 'plugins=cloudbaseinit.plugins.windows.certificates.ServerCertificatesPlugin\nmetadata_report_provisioning_started=false\nmetadata_report_provisioning_completed=false\n[azure]\ntransport_cert_store_name=Kiln Transport',
  });
  assert.deepEqual(report.errors, [], log);
  assert.deepEqual(
    report.plugins.map((p) => `${p.name} ${p.outcome}`),
    ['ServerCertificatesPlugin done'],
  );
  const certReq = s.server.requests.find((r) => r.path.startsWith('/machine/?comp=certificates'));
  assert.equal(certReq?.status, 200);
  assert.equal(certReq?.headers['x-ms-cipher-name'], undefined, 'cloudbase-init names no cipher');
  assert.equal(certReq?.headers['x-ms-version'], '2015-04-05');
  assert.ok(s.win.calls.includes('CertCreateSelfSignCertificate CN=Cloudbase-Init AzureService Transport'));
  assert.ok(
    s.win.calls.some((c) => /^CMSG_CTRL_DECRYPT kiln-transport-[0-9a-f-]{36}$/.test(c)),
    s.win.calls.join('\n'),
  );
  assert.ok(s.win.calls.includes('CertDeleteCertificateFromStore Kiln Transport'));
  assert.equal(
    s.win.certificates.filter((c) => c.store === 'Kiln Transport').length,
    0,
    'the transport certificate is gone',
  );
  // The server certificate (with its key) went to LocalMachine\My and, for the CurrentUser entry, to that store too.
  const der = Buffer.from(certPem.replace(/-----[^-]+-----|\s+/g, ''), 'base64');
  const thumb = (await import('node:crypto')).createHash('sha1').update(der).digest('hex').toUpperCase();
  assert.deepEqual(
    s.win.certificates.filter((c) => c.thumbprint === thumb).map((c) => c.store),
    ['My', 'TrustedPeople'],
  );
  assert.deepEqual(
    s.win.calls.filter((c) => c.startsWith('PFXImportCertStore')),
    ['PFXImportCertStore machine', 'PFXImportCertStore user'],
  );
  assert.ok(
    s.server.requests.some((r) => r.path.includes('comp=config&type=hostingEnvironmentConfig') && r.status === 200),
  );
});

test('ServerCertificatesPlugin with Azure: a certificates request the wireserver fails (500) fails the plugin with the reason, and the transport certificate is still deleted', async (t) => {
  if (!need(t, hasCommand('openssl'), 'openssl is needed to make the certificates')) return;
  const dir = tempDir(t);
  const wire = join(dir, 'wireserver');
  cpSync(join(FIXTURE, 'wireserver'), wire, { recursive: true });
  writeFileSync(
    join(wire, 'goalstate.xml'),
    readFileSync(join(wire, 'goalstate.xml'), 'utf8').replace(
      '<SharedConfig>',
      '<Certificates>{{url}}/machine/?comp=certificates&amp;incarnation=3</Certificates>\n          <SharedConfig>',
    ),
  );
  const made = spawnSync('openssl', [
    'req',
    '-x509',
    '-nodes',
    '-subj',
    '/CN=x',
    '-days',
    '2',
    '-newkey',
    'rsa:2048',
    '-keyout',
    join(dir, 'k.pem'),
    '-out',
    join(dir, 'c.pem'),
  ]);
  assert.equal(made.status, 0);
  writeFileSync(
    join(wire, 'certificates.pem'),
    readFileSync(join(dir, 'c.pem'), 'utf8') + readFileSync(join(dir, 'k.pem'), 'utf8'),
  );
  const s = await setup(t, wire);
  // The fake's plain certificates are no X.509 the mock's openssl can encrypt to: it answers 500.
  const { report } = await run(s, {
    conf: 'plugins=cloudbaseinit.plugins.windows.certificates.ServerCertificatesPlugin\nmetadata_report_provisioning_started=false\nmetadata_report_provisioning_completed=false',
  });
  assert.deepEqual(
    report.plugins.map((p) => `${p.name} ${p.outcome}`),
    ['ServerCertificatesPlugin failed'],
  );
  assert.match(
    report.plugins[0]?.error ?? '',
    /could not get the server certificates from .*AzureService: .*comp=certificates.*HTTP 500/,
  );
  assert.equal(s.win.certificates.filter((c) => c.store === 'Windows Azure Environment').length, 0);
});
