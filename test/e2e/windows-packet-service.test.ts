// The built kiln-win-x64.exe as cloudbase-init under wine, reading PacketService's metadata from a mock on 127.0.0.1: host name, user data, the password posted to phone_home_url and the provisioning-completed call.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { sshRsaLine, decryptPkcs1 } from '../helpers/ssh-rsa-line';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWineAsync } from '../helpers/wine';

const exe = builtBinary('kiln-win-x64.exe');
/** The phone-home endpoint's key pair: the public half is served at /phone-home/key, the private one reads the post. */
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PHONE_HOME_KEY = sshRsaLine(publicKey, 'kiln@phone-home');

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

test('cloudbase-init under wine: PacketService over HTTP from a mock, host name and user data applied, password posted, provisioning reported', async (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return;
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');
  const tree = join(dir, 'packet');
  write(join(tree, 'metadata'), JSON.stringify({ id: 'c7a4e1f0-packet-wine', hostname: 'metal-wine', ssh_keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tcGFja2V0 me'], phone_home_url: '{{url}}/phone-home' }));
  write(join(tree, 'userdata'), `rem cmd\r\necho read from Packet>> Z:${marker.replace(/\//g, '\\')}\r\nexit 0\r\n`);
  write(join(tree, 'phone-home-key'), `${PHONE_HOME_KEY}\n`);
  const server = await mockMetadataServer(t, { kind: 'packet', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      'metadata_services=cloudbaseinit.metadata.services.packet.PacketService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'metadata_report_provisioning_completed=true',
      'allow_reboot=false',
      'retry_count=1',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '',
      '[packet]',
      `metadata_base_url=${server.url}/`,
      '',
    ].join('\r\n'),
  );
  const r = await runUnderWineAsync(dir, [exe as string, '--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const logFile = join(dir, 'cloudbase-init.log');
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`);
  assert.match(r.stdout, /^metadata: cloudbaseinit\.metadata\.services\.packet\.PacketService \(Packet\), instance c7a4e1f0-packet-wine$/m);
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(existsSync(marker) ? readFileSync(marker, 'utf8').trim().split(/\r?\n/) : [], ['read from Packet']);
  const reg = spawnSync('wine', ['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', '/v', 'ComputerName'], { env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' }, encoding: 'utf8', timeout: 60_000 });
  assert.match(reg.stdout ?? '', /ComputerName\s+REG_SZ\s+METAL-WINE/i);
  // Every plugin succeeded: the empty "ready" POST to phone_home_url, after the metadata and user data reads.
  const seen = server.requests.map((q) => `${q.method} ${q.path} ${q.status}`);
  assert.deepEqual(seen.slice(0, 2), ['GET /metadata 200', 'GET /userdata 200'], seen.join('\n'));
  const last = server.requests.at(-1);
  assert.deepEqual([last?.method, last?.path, last?.body], ['POST', '/phone-home', ''], seen.join('\n'));
  assert.match(readFileSync(logFile, 'utf8'), /Reporting provisioning completed/);
});

test('cloudbase-init under wine: SetUserPasswordPlugin on PacketService posts {"password": <base64>} to phone_home_url', async (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return;
  const dir = tempDir(t);
  const tree = join(dir, 'packet');
  write(join(tree, 'metadata'), JSON.stringify({ id: 'pw-packet-wine', hostname: 'metal-pw', ssh_keys: [], phone_home_url: '{{url}}/phone-home' }));
  write(join(tree, 'phone-home-key'), `${PHONE_HOME_KEY}\n`);
  const server = await mockMetadataServer(t, { kind: 'packet', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      'username=kilnpkt',
      'metadata_services=cloudbaseinit.metadata.services.packet.PacketService',
      'plugins=cloudbaseinit.plugins.windows.createuser.CreateUserPlugin,cloudbaseinit.plugins.common.setuserpassword.SetUserPasswordPlugin',
      'allow_reboot=false',
      'retry_count=0',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '',
      '[packet]',
      `metadata_base_url=${server.url}/`,
      '',
    ].join('\r\n'),
  );
  const r = await runUnderWineAsync(dir, [exe as string, '--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const logFile = join(dir, 'cloudbase-init.log');
  const all = `${r.stdout}\n${r.stderr}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`;
  assert.equal(r.code, 0, all);
  assert.match(r.stdout, /SetUserPasswordPlugin\s+done/, all);
  const post = server.requests.find((q) => q.method === 'POST' && q.path === '/phone-home');
  assert.ok(post, server.requests.map((q) => `${q.method} ${q.path}`).join('\n'));
  const body = JSON.parse(post.body ?? '') as { password?: string };
  // The random password of user_password_length (20), encrypted with the phone-home key.
  assert.equal(decryptPkcs1(privateKey, body.password ?? '').length, 20);
  assert.ok(server.requests.some((q) => q.method === 'GET' && q.path === '/phone-home/key'));
});
