// The built kiln-win-x64.exe as cloudbase-init under wine, reading PacketService's metadata from a mock on 127.0.0.1:
// host name, user data, the password posted to phone_home_url and the provisioning-completed call.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { sshRsaLine, decryptPkcs1 } from '../helpers/ssh-rsa-line';
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

/** The phone-home endpoint's key pair: the public half is served at /phone-home/key, the private one reads the post. */
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PHONE_HOME_KEY = sshRsaLine(publicKey, 'kiln@phone-home');

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

test('cloudbase-init under wine: PacketService over HTTP from a mock, host name and user data applied, password posted, provisioning reported', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');
  const tree = join(dir, 'packet');
  write(
    join(tree, 'metadata'),
    JSON.stringify({
      id: 'c7a4e1f0-packet-wine',
      hostname: 'metal-wine',
      ssh_keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tcGFja2V0 me'],
      phone_home_url: '{{url}}/phone-home',
    }),
  );
  write(join(tree, 'userdata'), markerBatch(marker, 'read from Packet'));
  write(join(tree, 'phone-home-key'), `${PHONE_HOME_KEY}\n`);
  const server = await mockMetadataServer(t, { kind: 'packet', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  writeCloudbaseInitConf(
    dir,
    [
      'metadata_services=cloudbaseinit.metadata.services.packet.PacketService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'metadata_report_provisioning_completed=true',
      'retry_count=1',
    ],
    ['[packet]', `metadata_base_url=${server.url}/`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.packet\.PacketService \(Packet\), instance c7a4e1f0-packet-wine$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(markerLines(marker), ['read from Packet']);
  assert.equal(wineComputerName(prefix).toUpperCase(), 'METAL-WINE');
  // Every plugin succeeded: the empty "ready" POST to phone_home_url, after the metadata and user data reads.
  const seen = server.requests.map((q) => `${q.method} ${q.path} ${q.status}`);
  assert.deepEqual(seen.slice(0, 2), ['GET /metadata 200', 'GET /userdata 200'], seen.join('\n'));
  const last = server.requests.at(-1);
  assert.deepEqual([last?.method, last?.path, last?.body], ['POST', '/phone-home', ''], seen.join('\n'));
  assert.match(r.log, /Reporting provisioning completed/);
});

test('cloudbase-init under wine: SetUserPasswordPlugin on PacketService posts {"password": <base64>} to phone_home_url', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const tree = join(dir, 'packet');
  write(
    join(tree, 'metadata'),
    JSON.stringify({ id: 'pw-packet-wine', hostname: 'metal-pw', ssh_keys: [], phone_home_url: '{{url}}/phone-home' }),
  );
  write(join(tree, 'phone-home-key'), `${PHONE_HOME_KEY}\n`);
  const server = await mockMetadataServer(t, { kind: 'packet', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  writeCloudbaseInitConf(
    dir,
    [
      'username=kilnpkt',
      'metadata_services=cloudbaseinit.metadata.services.packet.PacketService',
      'plugins=cloudbaseinit.plugins.windows.createuser.CreateUserPlugin,cloudbaseinit.plugins.common.setuserpassword.SetUserPasswordPlugin',
      'retry_count=0',
    ],
    ['[packet]', `metadata_base_url=${server.url}/`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  assert.equal(r.code, 0, r.all);
  assert.match(r.stdout, /SetUserPasswordPlugin\s+done/, r.all);
  const post = server.requests.find((q) => q.method === 'POST' && q.path === '/phone-home');
  assert.ok(post, server.requests.map((q) => `${q.method} ${q.path}`).join('\n'));
  const body = JSON.parse(post.body ?? '') as { password?: string };
  // The random password of user_password_length (20), encrypted with the phone-home key.
  assert.equal(decryptPkcs1(privateKey, body.password ?? '').length, 20);
  assert.ok(server.requests.some((q) => q.method === 'GET' && q.path === '/phone-home/key'));
});
