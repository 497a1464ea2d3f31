// cloudbase-init's GCEService on kiln's GCE source: [gce] metadata_base_url, the username's keys, instance/name as host
// name, no DMI gate.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import type { Plugin } from '../../src/plugins/plugin';
import { PLUGINS } from '../../src/plugins/registry';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import type { InstanceData } from '../../src/sources/datasource';
import { DATASOURCES } from '../../src/sources/registry';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const GCE = 'cloudbaseinit.metadata.services.gceservice.GCEService';
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tZ2NlLWZpeHR1cmUta2V5LW51bWJlci0w';

test('GCEService: the GCE source read from [gce] metadata_base_url on a machine whose DMI says nothing of Google', async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'gce',
    dir: join(FIXTURES, 'sources/gce/cloudbase-init-gceservice/tree'),
  });
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
  const win = new FakeWindows();
  const conf = `[DEFAULT]\nusername=Admin\nmetadata_services=${GCE}\nplugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,test.ProbePlugin\nallow_reboot=false\n[gce]\nmetadata_base_url=${server.url}/computeMetadata/v1/\n`;
  const deps: CloudbaseRunnerDeps = {
    platform: new FakeFiles(),
    windows: win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: conf }]),
    sources: [...DATASOURCES],
    finder: { find: async () => [] },
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows' },
    sleep: async () => undefined,
    plugins: [...PLUGINS, probe],
  };
  const r = await runCloudbaseInit(deps);
  assert.deepEqual(r.errors, []);
  assert.equal(r.service?.classPath, GCE);
  assert.equal(r.instanceId, '5822432891731066937');
  assert.deepEqual(seen[0]?.publicKeys, [`${KEY}040 Admin`, `${KEY}041 Admin`, `${KEY}047 Admin`]);
  assert.equal(seen[0]?.localHostname, 'win-vm');
  assert.equal(seen[0] && Buffer.from(seen[0].userData ?? []).toString(), '#cloud-config\n');
  assert.ok(win.calls.includes('SetComputerNameExW win-vm'), win.calls.join('\n'));
  assert.ok(server.requests.every((q) => q.headers['metadata-flavor'] === 'Google'));
  const log = sink.lines.join('');
  assert.match(log, /Skipping expired key/);
  assert.match(log, /Skipping key due to non matching username/);
});
