// The built kiln-win-x64.exe as cloudbase-init under wine, reading GCEService's HTTP metadata from a mock on 127.0.0.1
// (no DMI says GCE there).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
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

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tZ2NlLXdpbmUtZTJlLWtleS0wMDAwMDAwMDAwMDE';

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

test('cloudbase-init under wine: GCEService read over HTTP from a mock GCE metadata server, host name, keys and user data applied', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');
  const tree = join(dir, 'gce');
  write(join(tree, 'instance/id'), '7300112233445566778');
  write(join(tree, 'instance/name'), 'gce-wine-vm');
  write(join(tree, 'instance/hostname'), 'gce-wine-vm.c.kiln-project.internal');
  write(join(tree, 'instance/zone'), 'projects/42/zones/europe-west1-d');
  write(
    join(tree, 'instance/attributes/ssh-keys'),
    `kilngce:${KEY} kilngce\nkilngce:${KEY} google-ssh {"userName":"kilngce","expireOn":"2001-01-01T00:00:00+0000"}\nsomeone:${KEY} someone\n`,
  );
  write(
    join(tree, 'instance/attributes/user-data'),
    Buffer.from(markerBatch(marker, 'read from GCE')).toString('base64'),
  );
  write(join(tree, 'instance/attributes/user-data-encoding'), 'base64');
  const server = await mockMetadataServer(t, { kind: 'gce', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  writeCloudbaseInitConf(
    dir,
    [
      'username=kilngce',
      'metadata_services=cloudbaseinit.metadata.services.gceservice.GCEService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'retry_count=1',
    ],
    ['[gce]', `metadata_base_url=${server.url}/computeMetadata/v1/`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.gceservice\.GCEService \(GCE\), instance 7300112233445566778$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  // The base64 user data was decoded and run.
  assert.deepEqual(markerLines(marker), ['read from GCE']);
  assert.equal(wineComputerName(prefix).toUpperCase(), 'GCE-WINE-VM');
  assert.match(r.log, /Skipping expired key/);
  assert.match(r.log, /Skipping key due to non matching username/);
  // Every request the exe sent carried the header, and the instance id, name and attributes were read.
  assert.ok(server.requests.length > 0);
  assert.ok(
    server.requests.every((q) => q.headers['metadata-flavor'] === 'Google'),
    JSON.stringify(server.requests.map((q) => [q.path, q.status])),
  );
  for (const p of [
    '/computeMetadata/v1/instance/id',
    '/computeMetadata/v1/instance/name',
    '/computeMetadata/v1/instance/attributes/?recursive=True',
  ])
    assert.ok(
      server.requests.some((q) => q.path === p && q.status === 200),
      `${p} was read`,
    );
});
