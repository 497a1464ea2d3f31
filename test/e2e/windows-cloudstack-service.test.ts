// The built kiln-win-x64.exe as cloudbase-init under wine, reading the CloudStack service (metadata and password
// server) from a mock on 127.0.0.1.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runCloudbaseInit, wineExe, writeCloudbaseInitConf } from '../helpers/wine';

const CLASS = 'cloudbaseinit.metadata.services.cloudstack.CloudStack';

// wine has no NetUserSetInfo, so SetUserPasswordPlugin cannot run here: the password's way onto the user is
// tested with the fake Windows platform (test/plugins/cloudstack-service.test.ts); this checks the exe's HTTP side.
test('cloudbase-init under wine: the CloudStack service over HTTP, host name set, the password fetched from the password server and acknowledged', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const server = await mockMetadataServer(t, {
    kind: 'cloudstack',
    dir: join(FIXTURES, 'sources', 'cloudstack', 'happy-path', 'tree'),
  });
  const prefix = privateWinePrefix(dir, {}, []);
  writeCloudbaseInitConf(
    dir,
    [
      `metadata_services=${CLASS}`,
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin',
      'retry_count=1',
    ],
    // The mock answers the password server's requests (DomU_Request) on its one port.
    ['[cloudstack]', `metadata_base_url=${server.url}/`, `password_server_port=${server.port}`],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  const log = r.log;
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.cloudstack\.CloudStack \(CloudStack\), instance i-2-77-VM$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(log, /Setting the computer name to cs-web-1/);
  assert.ok(
    !log.includes('s3cret-Admin-Pass') && !r.stdout.includes('s3cret-Admin-Pass'),
    'the password never reaches the log',
  );
  assert.ok(
    server.requests.some((q) => q.path === '/latest/meta-data/service-offering' && q.status === 200),
    "cloudbase-init's service-offering probe",
  );
  // The password was asked for once and acknowledged after.
  assert.deepEqual(server.requests.map((q) => q.headers.domu_request).filter(Boolean), [
    'send_my_password',
    'saved_password',
  ]);
  assert.deepEqual(server.passwordServer, { handedOut: 1, acknowledged: true, strayAcks: 0 });
});
