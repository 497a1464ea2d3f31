// cloudbase-init's MaaSHttpService on kiln's MAAS source: the [maas] options (and their old [DEFAULT] maas_* names),
// realm="" headers, and no error when no metadata_base_url is set.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import type { Plugin } from '../../src/plugins/plugin';
import { PLUGINS } from '../../src/plugins/registry';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import type { InstanceData } from '../../src/sources/datasource';
import { DATASOURCES } from '../../src/sources/registry';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const MAAS = 'cloudbaseinit.metadata.services.maasservice.MaaSHttpService';
const TREE = join(FIXTURES, 'sources/maas/cloudbase-init/tree');

async function run(conf: string, files: Record<string, string> = {}) {
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
  const platform = new FakeFiles();
  for (const [path, text] of Object.entries(files)) await platform.writeFile(path, text);
  const deps: CloudbaseRunnerDeps = {
    platform,
    windows: new FakeWindows().platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: conf }]),
    sources: [...DATASOURCES],
    finder: { find: async () => [] },
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows' },
    sleep: async () => undefined,
    plugins: [...PLUGINS, probe],
  };
  return { report: await runCloudbaseInit(deps), seen };
}

for (const style of ['[maas] section', 'deprecated [DEFAULT] maas_* names']) {
  test(`MaaSHttpService from the ${style}: signed with realm="", instance, host name, keys, x509 certificates and user data`, async (t) => {
    const server = await mockMetadataServer(t, { kind: 'maas', dir: TREE });
    const base = `${server.url}/MAAS/metadata/`;
    const opts =
      style === '[maas] section'
        ? `[maas]\nmetadata_base_url=${base}\noauth_consumer_key=CKwin\noauth_consumer_secret=CSwin\noauth_token_key=TKwin\noauth_token_secret=TSwin\n`
        : `maas_metadata_url=${base}\nmaas_oauth_consumer_key=CKwin\nmaas_oauth_consumer_secret=CSwin\nmaas_oauth_token_key=TKwin\nmaas_oauth_token_secret=TSwin\n`;
    const conf = `[DEFAULT]\nmetadata_services=${MAAS}\nplugins=test.ProbePlugin\nallow_reboot=false\nretry_count=0\n${style === '[maas] section' ? '' : opts}${style === '[maas] section' ? opts : ''}`;
    const { report, seen } = await run(conf);
    assert.deepEqual(report.errors, []);
    assert.equal(report.service?.classPath, MAAS);
    assert.equal(seen[0]?.instanceId, 'node-win-7k2p');
    assert.equal(seen[0]?.localHostname, 'win-node');
    assert.equal(seen[0]?.certificates?.length, 2);
    assert.equal(Buffer.from(seen[0]?.userData ?? []).toString(), '#ps1_sysnative\nWrite-Host maas\n');
    assert.deepEqual(
      server.requests.map((r) => `${r.status} ${r.path}`),
      [
        '/2012-03-01/meta-data/',
        '/2012-03-01/meta-data/instance-id',
        '/2012-03-01/meta-data/local-hostname',
        '/2012-03-01/meta-data/public-keys',
        '/2012-03-01/meta-data/x509',
        '/2012-03-01/user-data',
      ].map((p) => `200 /MAAS/metadata${p}`),
    );
    for (const r of server.requests)
      assert.match(
        String(r.headers.authorization),
        /^OAuth realm="", oauth_nonce="\d+", oauth_timestamp="\d+", oauth_version="1\.0", oauth_signature_method="PLAINTEXT", oauth_consumer_key="CKwin", oauth_token="TKwin", oauth_signature="CSwin%26TSwin"$/,
      );
  });
}

test('MaaSHttpService without metadata_base_url is skipped quietly (cloudbase-init: "MaaS metadata url not set"), as in the default service list', async () => {
  const conf = `[DEFAULT]\nmetadata_services=${MAAS}\nplugins=test.ProbePlugin\nallow_reboot=false\n`;
  const { report, seen } = await run(conf);
  // Only the run's own verdict: no error from the service itself.
  assert.deepEqual(report.errors, [
    'No available metadata service found (tried MaaSHttpService); MAIN plugins not run',
  ]);
  assert.equal(report.service, undefined);
  assert.equal(seen.length, 0);
});

test("MaaSHttpService's network details: curtin's v1 network.json on the system drive becomes the network config; another version is an error", async (t) => {
  const server = await mockMetadataServer(t, { kind: 'maas', dir: TREE });
  const conf = `[DEFAULT]\nmetadata_services=${MAAS}\nplugins=test.ProbePlugin\nallow_reboot=false\nretry_count=0\n[maas]\nmetadata_base_url=${server.url}/MAAS/metadata/\noauth_consumer_key=CKwin\noauth_consumer_secret=CSwin\noauth_token_key=TKwin\noauth_token_secret=TSwin\n`;
  const v1 = {
    version: 1,
    config: [
      {
        type: 'physical',
        id: 'eth0',
        name: 'eth0',
        mac_address: '52:54:00:aa:bb:01',
        subnets: [{ type: 'static', address: '10.20.0.5/24', gateway: '10.20.0.1' }],
      },
      { type: 'nameserver', address: ['10.20.0.1'] },
    ],
  };
  const { report, seen } = await run(conf, { 'C:\\curtin\\network.json': JSON.stringify(v1) });
  assert.deepEqual(report.errors, []);
  assert.deepEqual(seen[0]?.networkConfig, { format: 'v1', config: v1 });
  const bad = await run(conf, { 'C:\\network.json': JSON.stringify({ version: 2, ethernets: {} }) });
  assert.match(bad.report.errors.join('\n'), /Unsupported MAAS network metadata version: 2/);
});
