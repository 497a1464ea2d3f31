// The built kiln-win-x64.exe as cloudbase-init under wine, reading MaaSHttpService's metadata with OAuth-signed
// requests (realm="") from a mock on 127.0.0.1 that checks every signature.
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

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

test('cloudbase-init under wine: MaaSHttpService from [maas] options, every request signed as the mock demands, host name and user data applied', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');
  const tree = join(dir, 'maas');
  write(
    join(tree, 'oauth.json'),
    JSON.stringify({
      consumer_key: 'CKwine',
      consumer_secret: 'CS&wine',
      token_key: 'TKwine',
      token_secret: 'TS wine',
      realm: '',
    }),
  );
  const md = join(tree, 'MAAS/metadata/2012-03-01');
  write(join(md, 'meta-data/instance-id'), 'node-wine-4f7k');
  write(join(md, 'meta-data/local-hostname'), 'maas-wine-node');
  write(
    join(md, 'meta-data/public-keys'),
    'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1hYXMtd2luZS1rZXktMDAwMDAwMDAwMDAwMDAwMDAw maas\n',
  );
  write(join(md, 'user-data'), markerBatch(marker, 'read from MAAS'));
  const server = await mockMetadataServer(t, { kind: 'maas', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  writeCloudbaseInitConf(
    dir,
    [
      'metadata_services=cloudbaseinit.metadata.services.maasservice.MaaSHttpService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'retry_count=1',
    ],
    [
      '[maas]',
      `metadata_base_url=${server.url}/MAAS/metadata/`,
      'oauth_consumer_key=CKwine',
      'oauth_consumer_secret=CS&wine',
      'oauth_token_key=TKwine',
      'oauth_token_secret=TS wine',
    ],
  );
  const r = await runCloudbaseInit(exe, dir, prefix);
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.maasservice\.MaaSHttpService \(MAAS\), instance node-wine-4f7k$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(markerLines(marker), ['read from MAAS']);
  assert.equal(wineComputerName(prefix).toUpperCase(), 'MAAS-WINE-NODE');
  // The mock accepted every request: each carried realm="", a fresh nonce and the secrets encoded as oauthlib does.
  assert.ok(server.requests.length >= 5, JSON.stringify(server.requests.map((q) => q.path)));
  for (const q of server.requests) {
    assert.equal(q.status, q.path.endsWith('/x509') ? 404 : 200, `${q.path}: ${q.status}`);
    assert.match(
      String(q.headers.authorization),
      /^OAuth realm="", oauth_nonce="\d+", .*oauth_signature="CS%2526wine%26TS%2520wine"$/,
    );
  }
});
