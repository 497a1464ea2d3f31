// The kernel command line's cloud-config-url: parsed as cloud-init does, fetched from a mock on 127.0.0.1 (retries,
// wrong content, local files), written to cloud.cfg.d, and read by the stage that fetched it.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import {
  attemptCmdlineUrl,
  KERNEL_CMDLINE_URL_CFG,
  parseCmdlineUrl,
  type CmdlineUrlOptions,
} from '../../src/runner/cmdline-url';
import { StageRunner } from '../../src/runner/stage-runner';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer, type Misbehaviour } from '../helpers/mock-metadata-server';
import { tempDir } from '../helpers/temp';
import { fakeDeps, fakeSource, recordingModule, type Recorder } from './fakes';

const MAAS_CFG =
  '#cloud-config\ndatasource_list: [Second]\ndatasource:\n  MAAS: {metadata_url: "http://10.0.0.1:5240/MAAS/metadata/"}\n';

/** A mock serving FILES (name → content) under any path, misbehaving as asked. */
async function serve(t: TestContext, files: Record<string, string>, misbehave: Misbehaviour[] = []) {
  const dir = tempDir(t);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return mockMetadataServer(t, { kind: 'nocloud', dir, misbehave });
}

function options(
  t: TestContext,
  cmdline: string,
  network = true,
): CmdlineUrlOptions & { root: string; sink: MemorySink } {
  const root = tempDir(t);
  const sink = new MemorySink('DEBUG');
  const logger = new Logger();
  logger.addSink(sink);
  const log = logger.for('main.py');
  return {
    root,
    sink,
    platform: new LinuxPlatform({ root, log }),
    log,
    cmdline,
    network,
    env: {},
    sleep: async () => undefined,
  };
}

test('the URL is cloud-config-url (preferred) or url, split at the first =, a later word overriding an earlier one', () => {
  assert.deepEqual(parseCmdlineUrl('ro url=http://a/x cloud-config-url=http://b/y?a=1 quiet'), {
    key: 'cloud-config-url',
    url: 'http://b/y?a=1',
  });
  assert.deepEqual(parseCmdlineUrl('url=http://a/1 url=http://a/2'), { key: 'url', url: 'http://a/2' });
  assert.equal(parseCmdlineUrl('root=/dev/sda1 ro quiet'), undefined);
  assert.equal(parseCmdlineUrl('cloud-config-url'), undefined);
  assert.deepEqual(parseCmdlineUrl('cloud-config-url='), { key: 'cloud-config-url', url: '' });
});

test('a #cloud-config answer is written to 91_kernel_cmdline_url.cfg (0600), again by each stage; anything else is not', async (t) => {
  const server = await serve(t, { 'maas.cfg': MAAS_CFG, 'script.sh': '#!/bin/sh\necho no\n' });
  const o = options(t, `root=/dev/sda1 cloud-config-url=${server.url}/maas.cfg`, false);
  const out = await attemptCmdlineUrl(o);
  assert.equal(out.wrote, true);
  assert.equal(out.level, 'INFO');
  const file = join(o.root, KERNEL_CMDLINE_URL_CFG);
  assert.equal(readFileSync(file, 'utf8'), MAAS_CFG);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  writeFileSync(file, '#cloud-config\n{}\n');
  assert.equal(
    (await attemptCmdlineUrl({ ...o, network: true })).wrote,
    true,
    'a network URL is fetched again in the init stage',
  );
  assert.equal(readFileSync(file, 'utf8'), MAAS_CFG);

  const other = options(t, `cloud-config-url=${server.url}/script.sh`);
  const refused = await attemptCmdlineUrl(other);
  assert.deepEqual([refused.wrote, refused.level], [false, 'WARNING']);
  assert.match(refused.message, /did not start with b'#cloud-config'/);
  assert.equal(existsSync(join(other.root, KERNEL_CMDLINE_URL_CFG)), false);
  // The deprecated `url=` key: the same rules, a wrong answer only INFO, and a deprecation warning when used.
  assert.equal((await attemptCmdlineUrl(options(t, `url=${server.url}/script.sh`))).level, 'INFO');
  const old = options(t, `url=${server.url}/maas.cfg`);
  assert.equal((await attemptCmdlineUrl(old)).wrote, true);
  assert.ok(
    old.sink.lines.some((l) => l.includes('WARNING') && l.includes('DEPRECATED: `url` kernel command line key')),
  );
});

test('failures are retried twice (3 requests) and then only logged: loudly in init, quietly in init-local', async (t) => {
  const flaky = await serve(t, { 'maas.cfg': MAAS_CFG }, [{ kind: 'status', value: 404, times: 2 }]);
  const o = options(t, `cloud-config-url=${flaky.url}/maas.cfg`);
  assert.equal((await attemptCmdlineUrl(o)).wrote, true);
  assert.equal(flaky.requests.length, 3);

  const down = await serve(t, {}, [{ kind: 'status', value: 503 }]);
  const net = await attemptCmdlineUrl(options(t, `cloud-config-url=${down.url}/maas.cfg`, true));
  assert.deepEqual([net.wrote, net.level], [false, 'WARNING']);
  assert.match(net.message, /^retrieving url '.*' failed: .*503/);
  assert.equal(down.requests.length, 3);
  const local = await attemptCmdlineUrl(options(t, `cloud-config-url=${down.url}/maas.cfg`, false));
  assert.deepEqual([local.wrote, local.level], [false, 'DEBUG']);
  const none = await attemptCmdlineUrl(options(t, 'ro quiet'));
  assert.deepEqual([none.wrote, none.level, none.message], [false, 'DEBUG', 'No kernel command line url found.']);
});

test('a local file (file:// or a path in the root) is copied while the cfg file is missing, never over it', async (t) => {
  const o = options(t, 'cloud-config-url=file:///boot/maas.cfg');
  mkdirSync(join(o.root, 'boot'));
  writeFileSync(join(o.root, 'boot/maas.cfg'), MAAS_CFG);
  assert.equal((await attemptCmdlineUrl(o)).wrote, true);
  assert.equal(readFileSync(join(o.root, KERNEL_CMDLINE_URL_CFG), 'utf8'), MAAS_CFG);
  writeFileSync(join(o.root, 'boot/maas.cfg'), '#cloud-config\n{}\n');
  const again = await attemptCmdlineUrl({ ...o, cmdline: 'cloud-config-url=/boot/maas.cfg', network: false });
  assert.deepEqual([again.wrote, again.level], [false, 'WARNING']);
  assert.match(again.message, /possibly from previous boot download/);
  assert.equal(readFileSync(join(o.root, KERNEL_CMDLINE_URL_CFG), 'utf8'), MAAS_CFG);
  const missing = options(t, 'cloud-config-url=/boot/none.cfg');
  assert.deepEqual((await attemptCmdlineUrl(missing)).level, 'WARNING');
});

test('the stages fetch it before reading their config: its datasource_list picks the source', async (t) => {
  const server = await serve(t, { 'maas.cfg': MAAS_CFG });
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/50-test.cfg'),
    'datasource_list: [First, Second]\ncloud_init_modules: [m]\ncloud_config_modules: []\ncloud_final_modules: []\n',
  );
  for (const name of ['first', 'second']) {
    mkdirSync(join(root, `seed/${name}`), { recursive: true });
    writeFileSync(join(root, `seed/${name}/instance-id`), `iid-${name}\n`);
  }
  const rec: Recorder = { runs: [] };
  const deps = fakeDeps(
    [fakeSource('First', 'local', '/seed/first'), fakeSource('Second', 'local', '/seed/second')],
    [recordingModule(rec, 'm', 'init', 'always')],
    {
      kernelCmdline: async () => `ro cloud-config-url=${server.url}/maas.cfg`,
    },
  );
  const logger = new Logger();
  const runner = new StageRunner({ platform: new LinuxPlatform({ root, log: logger.for('platform') }), logger, deps });
  await runner.runAllStages();
  assert.equal(readFileSync(join(root, KERNEL_CMDLINE_URL_CFG), 'utf8'), MAAS_CFG);
  assert.equal(server.requests.length, 2, 'init-local and init each fetch it');
  const status = JSON.parse(readFileSync(join(root, 'var/lib/cloud/data/status.json'), 'utf8')) as {
    v1: { datasource: string };
  };
  assert.match(status.v1.datasource, /Second/);
});
