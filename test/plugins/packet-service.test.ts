// PacketService (Equinix Metal) on the Windows face: the metadata and user data read from a mock on 127.0.0.1, the
// password posted to phone_home_url encrypted with the key found there, and the "ready" call.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { metadataServiceFor } from '../../src/plugins/metadata-poster';
import type { PluginContext } from '../../src/plugins/plugin';
import { setUserPasswordPlugin } from '../../src/plugins/set-user-password';
import { cloudbasePacketService } from '../../src/sources/cloudbase-packet-service';
import { packetSource } from '../../src/sources/packet';
import { DATASOURCES, WINDOWS_ONLY_SOURCES, datasourceByName } from '../../src/sources/registry';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { decryptPkcs1, sshRsaLine } from '../helpers/ssh-rsa-line';
import { tempDir } from '../helpers/temp';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

const USER_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tcGFja2V0LWtleQ user@laptop';

function packetTree(t: TestContext, userdata?: string): string {
  const dir = tempDir(t);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'metadata'),
    JSON.stringify({
      id: '8b0c3c6e-7f0e-4b8e-9d3f-0a7c1b2d3e4f',
      hostname: 'metal-win',
      ssh_keys: [` ${USER_KEY} `, USER_KEY],
      phone_home_url: '{{url}}/phone-home',
      facility: 'ny5',
    }),
  );
  if (userdata !== undefined) writeFileSync(join(dir, 'userdata'), userdata);
  writeFileSync(join(dir, 'phone-home-key'), `${sshRsaLine(publicKey, 'phone-home-key')}\n`);
  return dir;
}

const CLASS = 'cloudbaseinit.metadata.services.packet.PacketService';

test('the Packet source exists for the Windows face only: not in the Linux order, not reachable by a datasource_list name', () => {
  assert.ok(WINDOWS_ONLY_SOURCES.includes(packetSource));
  assert.ok(!DATASOURCES.some((d) => d.name === 'Packet'));
  assert.equal(datasourceByName('Packet'), undefined);
});

test('PacketService: [packet] metadata_base_url, metadata and user data read; keys stripped and deduplicated; no user data is a 404', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'packet', dir: packetTree(t, 'rem cmd\r\necho hi\r\n') });
  const conf = loadCloudbaseConf([
    { path: 'c.conf', text: `[DEFAULT]\nretry_count=0\n[packet]\nmetadata_base_url=${server.url}/\n` },
  ]);
  const { settings } = cloudbasePacketService.settings(conf, () => []);
  assert.equal(settings.metadata_base_url, `${server.url}/`);
  const log = new Logger().for('test');
  const ctx = {
    platform: new FakeFiles(),
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: { find: async () => [] } as never,
    settings,
  };
  const data = await packetSource.crawl(ctx as never);
  assert.equal(data.instanceId, '8b0c3c6e-7f0e-4b8e-9d3f-0a7c1b2d3e4f');
  assert.equal(data.localHostname, 'metal-win');
  assert.deepEqual(data.publicKeys, [USER_KEY]);
  assert.equal(Buffer.from(data.userData ?? []).toString(), 'rem cmd\r\necho hi\r\n');
  assert.equal(data.metadata.phone_home_url, `${server.url}/phone-home`);
  assert.deepEqual(
    server.requests.map((r) => r.path),
    ['/metadata', '/userdata'],
  );
  // The default base URL is cloudbase-init's.
  assert.equal(
    cloudbasePacketService.settings(loadCloudbaseConf([{ path: 'c.conf', text: '[DEFAULT]\n' }]), () => []).settings
      .metadata_base_url,
    'https://metadata.packet.net/',
  );
  const bare = await mockMetadataServer(t, { kind: 'packet', dir: packetTree(t) });
  const none = await packetSource.crawl({
    ...ctx,
    settings: { ...settings, metadata_base_url: `${bare.url}/` },
  } as never);
  assert.equal(none.userData, undefined);
  const broken = await mockMetadataServer(t, {
    kind: 'packet',
    dir: packetTree(t),
    misbehave: [{ kind: 'status', value: 500 }],
  });
  await assert.rejects(
    packetSource.crawl({ ...ctx, settings: { ...settings, metadata_base_url: `${broken.url}/` } } as never),
    /Packet: status: .*HTTP 500/,
  );
});

test('SetUserPasswordPlugin on Packet: the key from <phone_home_url>/key encrypts the password, POSTed as {"password": …}; the ready call is an empty POST', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'packet', dir: packetTree(t) });
  const conf = loadCloudbaseConf([
    { path: 'c.conf', text: `[DEFAULT]\nusername=Admin\nretry_count=0\n[packet]\nmetadata_base_url=${server.url}/\n` },
  ]);
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const log = logger.for('test');
  const instance = await packetSource.crawl({
    platform: new FakeFiles(),
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: { find: async () => [] } as never,
    settings: cloudbasePacketService.settings(conf, () => []).settings,
  } as never);
  const found = metadataServiceFor(CLASS, 'Packet', conf, { log, env: {} }, instance);
  t.after(found.close);
  const win = new FakeWindows();
  win.users.set('admin', { password: 'old', comment: '', flags: 0 });
  const ctx: PluginContext = {
    platform: new FakeFiles(),
    windows: win.platform(logger),
    log,
    conf,
    instance,
    shared: new Map(),
    randomPassword: (n) => 'Rand0m!'.padEnd(n, 'q'),
    secret: (v) => logger.redactor.add(v),
    env: {},
    service: found.service,
  };
  assert.deepEqual(await setUserPasswordPlugin.execute(ctx), { status: 'done', reboot: false });
  const posts = server.requests.filter((r) => r.method === 'POST');
  assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`).slice(-2), [
    'GET /phone-home/key',
    'POST /phone-home',
  ]);
  const body = JSON.parse(posts[0]?.body ?? '') as { password: string };
  assert.equal(decryptPkcs1(privateKey, body.password), 'Rand0m!'.padEnd(20, 'q'));
  assert.ok(!sink.lines.join('\n').includes('Rand0m!'), 'the password never reaches the log');
  await found.service.provisioningCompleted?.();
  const last = server.requests.at(-1);
  assert.deepEqual([last?.method, last?.path, last?.body], ['POST', '/phone-home', '']);
});
