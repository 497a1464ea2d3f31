// CloudSigma: detection, the cepko request over a serial port (a pty pair) to a fake host, the server context as
// instance data, and a host that misbehaves.
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cloudSigmaInstanceData, cloudSigmaSource } from '../../src/sources/cloudsigma';
import type { CrawlContext } from '../../src/sources/datasource';
import { startCloudSigmaHost, type CloudSigmaMisbehaviour } from '../helpers/serial-hosts';
import { Logger } from '../../src/util/log';
import { openPtyPair, ptySkipReason } from '../helpers/pty-pair';
import { testKoffi } from '../helpers/koffi';
import { need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

/** cloud-init's test server context. */
const SERVER_CONTEXT = {
  cpu: 1000,
  cpus_instead_of_cores: false,
  mem: 1073741824,
  meta: { ssh_public_key: 'ssh-rsa AAAAB3NzaC1yc2E.../hQ5D5 john@doe', 'cloudinit-user-data': '#cloud-config\n\n...' },
  name: 'test_server',
  requirements: [],
  smp: 1,
  tags: ['much server', 'very performance'],
  uuid: '65b2fb23-8c03-4187-a3ba-8b7c919e8890',
  vnc_password: '9e84d6cb49e46379',
  vendor_data: { location: 'zrh', cloudinit: '#cloud-config\n\nvendor' },
};

function ctxFor(
  t: TestContext,
  dmi: Record<string, string>,
  settings: Record<string, unknown> = {},
): { ctx: CrawlContext; root: string } {
  const root = tempDir(t);
  const log = new Logger().for('test');
  return {
    root,
    ctx: {
      platform: new LinuxPlatform({ root, log, loadKoffi: testKoffi }),
      log,
      kernelCmdline: '',
      dmi,
      config: {},
      finder: { find: async () => [] } as never,
      settings,
    },
  };
}

async function hostOnPty(t: TestContext, root: string, context: unknown, misbehave?: CloudSigmaMisbehaviour) {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'context.json'), JSON.stringify(context));
  const host = await startCloudSigmaHost({
    contextFile: join(dir, 'context.json'),
    socketPath: join(dir, 'host.sock'),
    ...(misbehave ? { misbehave } : {}),
  });
  t.after(() => host.close());
  const pty = await openPtyPair(join(dir, 'host.sock'));
  t.after(() => pty.close());
  mkdirSync(join(root, 'dev'));
  symlinkSync(pty.slave, join(root, 'dev/ttyS1'));
  return host;
}

test('detection: the DMI product name CloudSigma, exactly (as ds-identify)', async (t) => {
  assert.equal(await cloudSigmaSource.detect(ctxFor(t, { product_name: 'CloudSigma' }).ctx), true);
  for (const p of ['', 'cloudsigma', 'CloudSigma Cloud', 'Standard PC'])
    assert.equal(await cloudSigmaSource.detect(ctxFor(t, { product_name: p }).ctx), false, p);
});

test('the server context as cloud-init reads it: uuid, name as host name, one key, meta user data, vendor_data.cloudinit', () => {
  const data = cloudSigmaInstanceData(SERVER_CONTEXT);
  assert.equal(data.instanceId, '65b2fb23-8c03-4187-a3ba-8b7c919e8890');
  assert.equal(data.localHostname, 'test_server');
  assert.equal(data.subplatform, 'cepko (/dev/ttyS1)');
  assert.equal(data.cloudName, 'cloudsigma');
  assert.deepEqual(data.publicKeys, ['ssh-rsa AAAAB3NzaC1yc2E.../hQ5D5 john@doe']);
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\n\n...');
  assert.equal(Buffer.from(data.vendorData ?? []).toString(), '#cloud-config\n\nvendor');
  assert.deepEqual(data.sensitiveKeys, ['vnc_password']);
  // A name with characters outside cloud-init's pattern: the uuid's first part.
  assert.equal(cloudSigmaInstanceData({ ...SERVER_CONTEXT, name: 'tést' }).localHostname, '65b2fb23');
  assert.equal(cloudSigmaInstanceData({ ...SERVER_CONTEXT, name: 'x'.repeat(80) }).localHostname, 'x'.repeat(61));
  // base64_fields names the user data as base64.
  const b64 = cloudSigmaInstanceData({
    ...SERVER_CONTEXT,
    meta: {
      base64_fields: 'cloudinit-user-data',
      'cloudinit-user-data': Buffer.from('#!/bin/sh\necho hi\n').toString('base64'),
    },
  });
  assert.equal(Buffer.from(b64.userData ?? []).toString(), '#!/bin/sh\necho hi\n');
  assert.deepEqual(b64.publicKeys, []);
  assert.throws(
    () =>
      cloudSigmaInstanceData({
        ...SERVER_CONTEXT,
        meta: { base64_fields: 'cloudinit-user-data', 'cloudinit-user-data': 'not base64!' },
      }),
    /not base64/,
  );
  assert.throws(() => cloudSigmaInstanceData({ uuid: 'x' }), /no 'meta' object/);
  assert.throws(() => cloudSigmaInstanceData('just text'), /not a JSON object/);
});

test('over a serial port (a pty pair): one cepko request for the whole context, one line back', async (t) => {
  const skip = ptySkipReason();
  if (!need(t, skip === undefined, skip ?? '')) return;
  const { ctx, root } = ctxFor(t, { product_name: 'CloudSigma' }, { serial_timeout: 5 });
  const host = await hostOnPty(t, root, SERVER_CONTEXT);
  const data = await cloudSigmaSource.crawl(ctx);
  assert.equal(data.instanceId, SERVER_CONTEXT.uuid);
  assert.deepEqual(data.metadata, SERVER_CONTEXT);
  assert.deepEqual(host.requests, ['']);
});

test('a misbehaving CloudSigma host is an error naming the port, within serial_timeout', {
  timeout: 60_000,
}, async (t) => {
  const skip = ptySkipReason();
  if (!need(t, skip === undefined, skip ?? '')) return;
  const cases: Array<[CloudSigmaMisbehaviour, RegExp]> = [
    ['silent', /unable to read the server context from \/dev\/ttyS1: no answer within 1 s/],
    ['no-newline', /no answer within 1 s \(partial answer '\{"cpu"/],
    ['garbage', /the server context from \/dev\/ttyS1 is not JSON: Unexpected token 'W', "Welcome to/],
    ['hang-up', /unable to read the server context from \/dev\/ttyS1/],
  ];
  for (const [fault, expected] of cases) {
    const { ctx, root } = ctxFor(t, { product_name: 'CloudSigma' }, { serial_timeout: 1 });
    await hostOnPty(t, root, SERVER_CONTEXT, fault);
    const crawl = cloudSigmaSource.crawl(ctx);
    if (fault === 'hang-up') {
      // The host going away leaves the port open but mute: the timeout ends it.
      await assert.rejects(crawl, expected);
    } else await assert.rejects(crawl, expected, fault);
  }
  const { ctx } = ctxFor(t, { product_name: 'CloudSigma' });
  await assert.rejects(cloudSigmaSource.crawl(ctx), /no serial port \/dev\/ttyS1/);
});
