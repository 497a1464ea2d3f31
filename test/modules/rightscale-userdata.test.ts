// rightscale_userdata: CLOUD_INIT_REMOTE_HOOK URLs in raw user data fetched (from 127.0.0.1) into
// scripts/rightscale-NN, 0700.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { parseQueryString, rightscaleUserdataModule } from '../../src/modules/rightscale-userdata';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';

async function scriptServer(t: { after(fn: () => void): void }): Promise<string> {
  const server = createServer((req, res) => {
    if (req.url === '/one') res.end('#!/bin/sh\necho one\n');
    else if (req.url === '/empty') res.end('');
    else res.writeHead(404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('parse_qs as Python: repeated names, percent and plus decoding, blank and bare fields dropped', () => {
  assert.deepEqual(
    [...parseQueryString('a=1&a=2&b=x%2Fy+z&c=&d&CLOUD_INIT_REMOTE_HOOK=http%3A%2F%2Fh%2Fs')],
    [
      ['a', ['1', '2']],
      ['b', ['x/y z']],
      ['CLOUD_INIT_REMOTE_HOOK', ['http://h/s']],
    ],
  );
});

test('rightscale_userdata writes each fetched script as rightscale-NN (0700); empty bodies are skipped, failures fail the module last', async (t) => {
  const base = await scriptServer(t);
  const userData = Buffer.from(
    `CLOUD_INIT_REMOTE_HOOK=${base}/one&CLOUD_INIT_REMOTE_HOOK=${base}/empty&CLOUD_INIT_REMOTE_HOOK=${base}/one`,
  );
  const ctx = dryContext(tempDir(t), { instance: { userData } });
  await rightscaleUserdataModule.run(ctx, {});
  const writes = ctx.dry.effects.filter((e) => e.kind === 'write-file');
  assert.deepEqual(
    writes.map((w) => [w.kind === 'write-file' ? w.path : '', w.kind === 'write-file' ? w.mode : 0]),
    [
      ['/var/lib/cloud/instance/scripts/rightscale-00', 0o700],
      ['/var/lib/cloud/instance/scripts/rightscale-02', 0o700],
    ],
  );
  assert.equal(await ctx.dry.readText('/var/lib/cloud/instance/scripts/rightscale-00'), '#!/bin/sh\necho one\n');
  const failing = dryContext(tempDir(t), {
    instance: { userData: Buffer.from(`CLOUD_INIT_REMOTE_HOOK=${base}/missing&CLOUD_INIT_REMOTE_HOOK=${base}/one`) },
  });
  await assert.rejects(rightscaleUserdataModule.run(failing, {}), /rightscale_userdata.*1 failed with exceptions/s);
  // The script that could be fetched is still written.
  assert.equal(await failing.dry.readText('/var/lib/cloud/instance/scripts/rightscale-01'), '#!/bin/sh\necho one\n');
});

test('rightscale_userdata without the hook in user data does nothing', async (t) => {
  const ctx = dryContext(tempDir(t), { instance: { userData: Buffer.from('#cloud-config\nruncmd: [ls]\n') } });
  await rightscaleUserdataModule.run(ctx, {});
  assert.deepEqual(ctx.dry.effects, []);
});
