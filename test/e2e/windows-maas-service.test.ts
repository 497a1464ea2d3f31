// The built kiln-win-x64.exe as cloudbase-init under wine, reading MaaSHttpService's metadata with OAuth-signed requests (realm="") from a mock on 127.0.0.1 that checks every signature.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { builtBinary } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, runUnderWineAsync } from '../helpers/wine';

const exe = builtBinary('kiln-win-x64.exe');

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

test('cloudbase-init under wine: MaaSHttpService from [maas] options, every request signed as the mock demands, host name and user data applied', async (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return;
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');
  const tree = join(dir, 'maas');
  write(join(tree, 'oauth.json'), JSON.stringify({ consumer_key: 'CKwine', consumer_secret: 'CS&wine', token_key: 'TKwine', token_secret: 'TS wine', realm: '' }));
  const md = join(tree, 'MAAS/metadata/2012-03-01');
  write(join(md, 'meta-data/instance-id'), 'node-wine-4f7k');
  write(join(md, 'meta-data/local-hostname'), 'maas-wine-node');
  write(join(md, 'meta-data/public-keys'), 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG1hYXMtd2luZS1rZXktMDAwMDAwMDAwMDAwMDAwMDAw maas\n');
  write(join(md, 'user-data'), `rem cmd\r\necho read from MAAS>> Z:${marker.replace(/\//g, '\\')}\r\nexit 0\r\n`);
  const server = await mockMetadataServer(t, { kind: 'maas', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      'metadata_services=cloudbaseinit.metadata.services.maasservice.MaaSHttpService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'allow_reboot=false',
      'retry_count=1',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '',
      '[maas]',
      `metadata_base_url=${server.url}/MAAS/metadata/`,
      'oauth_consumer_key=CKwine',
      'oauth_consumer_secret=CS&wine',
      'oauth_token_key=TKwine',
      'oauth_token_secret=TS wine',
      '',
    ].join('\r\n'),
  );
  const r = await runUnderWineAsync(dir, [exe as string, '--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const logFile = join(dir, 'cloudbase-init.log');
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`);
  assert.match(r.stdout, /^metadata: cloudbaseinit\.metadata\.services\.maasservice\.MaaSHttpService \(MAAS\), instance node-wine-4f7k$/m);
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(existsSync(marker) ? readFileSync(marker, 'utf8').trim().split(/\r?\n/) : [], ['read from MAAS']);
  const reg = spawnSync('wine', ['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', '/v', 'ComputerName'], { env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' }, encoding: 'utf8', timeout: 60_000 });
  assert.match(reg.stdout ?? '', /ComputerName\s+REG_SZ\s+MAAS-WINE-NODE/i);
  // The mock accepted every request: each carried realm="", a fresh nonce and the secrets encoded as oauthlib does.
  assert.ok(server.requests.length >= 5, JSON.stringify(server.requests.map((q) => q.path)));
  for (const q of server.requests) {
    assert.equal(q.status, q.path.endsWith('/x509') ? 404 : 200, `${q.path}: ${q.status}`);
    assert.match(String(q.headers.authorization), /^OAuth realm="", oauth_nonce="\d+", .*oauth_signature="CS%2526wine%26TS%2520wine"$/);
  }
});
