// SetUserPasswordPlugin posting the random password, RSA-encrypted with the first SSH key, to an OpenStack metadata
// service on 127.0.0.1.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { encryptPassword } from '../../src/plugins/encrypt-password';
import { metadataServiceFor } from '../../src/plugins/metadata-poster';
import type { PluginContext } from '../../src/plugins/plugin';
import { setUserPasswordPlugin } from '../../src/plugins/set-user-password';
import { Logger, MemorySink } from '../../src/util/log';
import { decryptPkcs1, sshRsaLine } from '../helpers/ssh-rsa-line';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const decrypt = (b64: string): string => decryptPkcs1(privateKey, b64);

test('encryptPassword: RSA PKCS#1 v1.5 with the ssh-rsa key, base64; other key types are refused', () => {
  const line = sshRsaLine(publicKey);
  const enc = encryptPassword(line, 'S3cret!pass');
  assert.equal(Buffer.from(enc, 'base64').length, 256);
  assert.equal(decrypt(enc), 'S3cret!pass');
  assert.throws(() => encryptPassword('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBu8 x', 'p'), /not ssh-rsa/);
  assert.throws(() => encryptPassword('ssh-rsa AAAA x', 'p'), /malformed/);
});

/**
 * Answers POSTs with STATUSES in turn (recording them) and GETs of the password with STORED ('' = 404, as Nova before a
 * POST).
 */
async function passwordServer(statuses: number[], stored = '') {
  const posts: Array<{ method: string; path: string; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') {
        res.statusCode = stored ? 200 : 404;
        res.end(stored);
        return;
      }
      posts.push({ method: req.method ?? '', path: req.url ?? '', body });
      res.statusCode = statuses.shift() ?? 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { posts, url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function context(conf: string, classPath: string, datasource: string, injected?: string) {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const win = new FakeWindows();
  win.users.set('admin', { password: 'old', comment: '', flags: 0 });
  const c = loadCloudbaseConf([{ path: 'c.conf', text: `[DEFAULT]\nusername=Admin\nretry_count=0\n${conf}` }]);
  const found = metadataServiceFor(classPath, datasource, c, { log: logger.for('test'), env: {} });
  const ctx: PluginContext = {
    platform: new FakeFiles(),
    windows: win.platform(logger),
    log: logger.for('test'),
    conf: c,
    instance: {
      instanceId: 'i-1',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'x',
      publicKeys: [sshRsaLine(publicKey)],
      metadata: {},
      ...(injected ? { adminPassword: injected } : {}),
    },
    shared: new Map(),
    randomPassword: (n) => 'Rand0m!'.padEnd(n, 'q'),
    secret: (v) => logger.redactor.add(v),
    env: {},
    service: found.service,
  };
  return { ctx, win, lines: sink.lines, close: found.close };
}

const HTTP = 'cloudbaseinit.metadata.services.httpservice.HttpService';

test('SetUserPasswordPlugin posts the random password, encrypted, to /openstack/2013-04-04/password; a 409 means already set', async (t) => {
  const server = await passwordServer([200, 409, 500]);
  t.after(server.close);
  const { ctx, win, lines, close } = context(`[openstack]\nmetadata_base_url=${server.url}\n`, HTTP, 'OpenStack');
  t.after(close);
  assert.deepEqual(await setUserPasswordPlugin.execute(ctx), { status: 'done', reboot: false });
  assert.equal(server.posts.length, 1);
  assert.equal(server.posts[0]?.method, 'POST');
  assert.equal(server.posts[0]?.path, '/openstack/2013-04-04/password');
  const password = win.users.get('admin')?.password ?? '';
  assert.equal(password, 'Rand0m!'.padEnd(20, 'q'));
  assert.equal(decrypt(server.posts[0]?.body ?? ''), password);
  assert.ok(!lines.join('\n').includes(password), 'the password never reaches the log');
  await setUserPasswordPlugin.execute(ctx);
  assert.match(lines.join('\n'), /already holds a password \(409\)/);
  await assert.rejects(setUserPasswordPlugin.execute(ctx), /500/);
});

test('SetUserPasswordPlugin posts an injected password too; a service already holding one, or a config drive, gets nothing', async (t) => {
  const server = await passwordServer([]);
  t.after(server.close);
  const injected = context(`[openstack]\nmetadata_base_url=${server.url}\n`, HTTP, 'OpenStack', 'Inj3cted!pw');
  t.after(injected.close);
  await setUserPasswordPlugin.execute(injected.ctx);
  assert.equal(server.posts.length, 1);
  assert.equal(decrypt(server.posts[0]?.body ?? ''), 'Inj3cted!pw');
  const holding = await passwordServer([], 'c2VjcmV0');
  t.after(holding.close);
  const held = context(`[openstack]\nmetadata_base_url=${holding.url}\n`, HTTP, 'OpenStack');
  t.after(held.close);
  await setUserPasswordPlugin.execute(held.ctx);
  assert.equal(holding.posts.length, 0);
  assert.match(held.lines.join('\n'), /already holds a password; it cannot be updated/);
  const drive = context('', 'cloudbaseinit.metadata.services.configdrive.ConfigDriveService', 'ConfigDrive');
  await setUserPasswordPlugin.execute(drive.ctx);
  assert.match(drive.lines.join('\n'), /ConfigDriveService\) does not take the password/);
});
