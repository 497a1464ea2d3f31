// The built kiln-win-x64.exe as cloudbase-init under wine with AzureService: the Azure mock on 127.0.0.1 as wireserver,
// the provisioning drive as Q:, the reports the mock received.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import {
  markerBatch,
  markerLines,
  privateWinePrefix,
  runCloudbaseInit,
  wineComputerName,
  wineExe,
  writeCloudbaseInitConf,
} from '../helpers/wine';

const FIXTURE = join(FIXTURES, 'sources', 'azure', 'windows');

test('cloudbase-init under wine: AzureService from the Azure mock and drive Q:, host name and CustomData applied, NotReady then Ready reported', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'provisioning');
  cpSync(join(FIXTURE, 'drive'), drive, { recursive: true });
  const marker = join(dir, 'custom-data-ran.txt');
  writeFileSync(join(drive, 'CustomData.bin'), markerBatch(marker, 'from Azure CustomData'));
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(FIXTURE, 'wireserver') });
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  writeCloudbaseInitConf(
    dir,
    [
      'metadata_services=cloudbaseinit.metadata.services.azureservice.AzureService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'metadata_report_provisioning_started=true',
      'metadata_report_provisioning_completed=true',
      'retry_count=1',
      'retry_count_interval=1',
    ],
    ['[azure]', `wireserver_url=${server.url}`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.azureservice\.AzureService \(Azure\), instance 1f2e3d4c5b6a4978a1b2c3d4e5f60718\._kiln-win-vm$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(markerLines(marker), ['from Azure CustomData']);
  assert.equal(wineComputerName(prefix).toUpperCase(), 'KILN-WIN-VM');
  // What the wireserver saw: Versions, the goal state in 2015-04-05, then NotReady/Provisioning and Ready.
  const seen = server.requests.map((q) => `${q.method} ${q.path} ${q.status}`);
  assert.deepEqual(seen.slice(0, 2), ['GET /?comp=Versions 200', 'GET /machine?comp=goalstate 200'], seen.join('\n'));
  const health = server.requests.filter((q) => q.method === 'POST');
  assert.equal(health.length, 2, seen.join('\n'));
  assert.ok(
    health.every(
      (q) => q.path === '/machine?comp=health' && q.status === 200 && q.headers['x-ms-version'] === '2015-04-05',
    ),
  );
  assert.match(health[0]?.body ?? '', /<State>NotReady<\/State><Details><SubStatus>Provisioning<\/SubStatus>/);
  assert.match(health[1]?.body ?? '', /<State>Ready<\/State>/);
});

test('cloudbase-init under wine: AzureGuestAgentPlugin deletes an old RdAgent service, fails without $$\\OEM\\GuestAgent, and NotReady/ProvisioningFailed is reported', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const drive = join(dir, 'provisioning');
  cpSync(join(FIXTURE, 'drive'), drive, { recursive: true });
  const server = await mockMetadataServer(t, { kind: 'azure', dir: join(FIXTURE, 'wireserver') });
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  const wineEnv = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' };
  const sc = (...args: string[]) =>
    spawnSync('wine', ['sc', ...args], { env: wineEnv, encoding: 'utf8', timeout: 60_000 });
  const created = sc('create', 'RdAgent', 'binPath=', 'C:\\windows\\system32\\cmd.exe');
  assert.equal(created.status, 0, `${created.stdout}${created.stderr}`);
  const serviceKey = () =>
    spawnSync('wine', ['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Services\\RdAgent'], {
      env: wineEnv,
      encoding: 'utf8',
      timeout: 60_000,
    });
  assert.match(serviceKey().stdout ?? '', /ImagePath/, 'the old RdAgent service is installed');
  spawnSync('wineserver', ['-w'], { env: wineEnv, timeout: 60_000 });
  writeCloudbaseInitConf(
    dir,
    [
      'metadata_services=cloudbaseinit.metadata.services.azureservice.AzureService',
      'plugins=cloudbaseinit.plugins.windows.azureguestagent.AzureGuestAgentPlugin',
      'metadata_report_provisioning_completed=true',
      'retry_count=1',
      'retry_count_interval=1',
    ],
    ['[azure]', `wireserver_url=${server.url}`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  assert.equal(r.code, 0, `a failed plugin is exit 0, as cloudbase-init's\n${r.all}`);
  assert.match(r.stdout, /AzureGuestAgentPlugin\s+failed/);
  assert.match(r.log, /Azure guest agent source folder not found/);
  spawnSync('wineserver', ['-w'], { env: wineEnv, timeout: 60_000 });
  const after = serviceKey();
  assert.notEqual(after.status, 0, `the old RdAgent service was deleted: ${after.stdout}`);
  const health = server.requests.filter((q) => q.method === 'POST');
  assert.equal(health.length, 1);
  assert.match(
    health[0]?.body ?? '',
    /<State>NotReady<\/State><Details><SubStatus>ProvisioningFailed<\/SubStatus><Description>Provisioning failed<\/Description>/,
  );
});

test('cloudbase-init under wine: ServerCertificatesPlugin asks for the goal state certificates with a CryptoAPI transport certificate, opens the envelope with CryptMsg*, and deletes the transport certificate', async (t) => {
  const exe = wineExe(t);
  if (!exe || !need(t, hasCommand('openssl'), 'openssl is not installed')) return;
  const dir = tempDir(t);
  const drive = join(dir, 'provisioning');
  cpSync(join(FIXTURE, 'drive'), drive, { recursive: true });
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
    '/CN=kiln-wine-server-cert',
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
  writeFileSync(
    join(wire, 'certificates.pem'),
    readFileSync(join(dir, 'c.pem'), 'utf8') + readFileSync(join(dir, 'k.pem'), 'utf8'),
  );
  writeFileSync(
    join(wire, 'hostingenvironment.xml'),
    '<HostingEnvironmentConfig version="1.0.0.0" goalStateIncarnation="3"><StoredCertificates><StoredCertificate name="Stored0Server" certificateId="sha1:X" storeName="My" configurationLevel="System" /></StoredCertificates></HostingEnvironmentConfig>',
  );
  const server = await mockMetadataServer(t, { kind: 'azure', dir: wire });
  const prefix = privateWinePrefix(dir, { q: drive }, ['q']);
  writeCloudbaseInitConf(
    dir,
    [
      'metadata_services=cloudbaseinit.metadata.services.azureservice.AzureService',
      'plugins=cloudbaseinit.plugins.windows.certificates.ServerCertificatesPlugin',
      'retry_count=1',
      'retry_count_interval=1',
    ],
    ['[azure]', `wireserver_url=${server.url}`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  const log = r.log;
  // The transport certificate crypt32 made is a real X.509 certificate, sent as base64 DER.
  const certReq = server.requests.find((q) => q.path.startsWith('/machine/?comp=certificates'));
  assert.equal(certReq?.status, 200, `${r.stdout}\n${log}`);
  const transport = new X509Certificate(
    Buffer.from(String(certReq?.headers['x-ms-guest-agent-public-x509-cert']), 'base64'),
  );
  assert.equal(transport.subject, 'CN=Cloudbase-Init AzureService Transport');
  // CryptMsgOpenToDecode/Update/Control/GetParam ran; wine 8 decrypts 3DES-CBC envelopes with a wrong IV (the
  // first 8 bytes come out garbled), so the PFX import itself cannot be checked under wine: on Windows it is.
  assert.match(log, /ServerCertificatesPlugin.*(PFXImportCertStore|done)/);
  assert.doesNotMatch(log, /CryptMsg(OpenToDecode|Update|Control|GetParam)[^\n]*failed/);
  // The transport certificate is gone from LocalMachine\Windows Azure Environment.
  spawnSync('wineserver', ['-w'], { env: { ...process.env, WINEPREFIX: prefix }, timeout: 60_000 });
  const store = spawnSync(
    'wine',
    ['reg', 'query', 'HKLM\\Software\\Microsoft\\SystemCertificates\\Windows Azure Environment\\Certificates'],
    { env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' }, encoding: 'utf8', timeout: 60_000 },
  );
  assert.doesNotMatch(store.stdout ?? '', /Certificates\\[0-9A-F]{40}/i, `${store.stdout}\n${log}`);
});
