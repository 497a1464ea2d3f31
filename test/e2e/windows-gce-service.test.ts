// The built kiln-win-x64.exe as cloudbase-init under wine, reading GCEService's HTTP metadata from a mock on 127.0.0.1 (no DMI says GCE there).
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
const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tZ2NlLXdpbmUtZTJlLWtleS0wMDAwMDAwMDAwMDE';

function write(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

test('cloudbase-init under wine: GCEService read over HTTP from a mock GCE metadata server, host name, keys and user data applied', async (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return;
  const dir = tempDir(t);
  const marker = join(dir, 'user-data-ran.txt');
  const tree = join(dir, 'gce');
  write(join(tree, 'instance/id'), '7300112233445566778');
  write(join(tree, 'instance/name'), 'gce-wine-vm');
  write(join(tree, 'instance/hostname'), 'gce-wine-vm.c.kiln-project.internal');
  write(join(tree, 'instance/zone'), 'projects/42/zones/europe-west1-d');
  write(join(tree, 'instance/attributes/ssh-keys'), `kilngce:${KEY} kilngce\nkilngce:${KEY} google-ssh {"userName":"kilngce","expireOn":"2001-01-01T00:00:00+0000"}\nsomeone:${KEY} someone\n`);
  const script = `rem cmd\r\necho read from GCE>> Z:${marker.replace(/\//g, '\\')}\r\nexit 0\r\n`;
  write(join(tree, 'instance/attributes/user-data'), Buffer.from(script).toString('base64'));
  write(join(tree, 'instance/attributes/user-data-encoding'), 'base64');
  const server = await mockMetadataServer(t, { kind: 'gce', dir: tree });
  const prefix = privateWinePrefix(dir, {}, []);
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      'username=kilngce',
      'metadata_services=cloudbaseinit.metadata.services.gceservice.GCEService',
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin',
      'allow_reboot=false',
      'retry_count=1',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '',
      '[gce]',
      `metadata_base_url=${server.url}/computeMetadata/v1/`,
      '',
    ].join('\r\n'),
  );
  const r = await runUnderWineAsync(dir, [exe as string, '--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const logFile = join(dir, 'cloudbase-init.log');
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\n${existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''}`);
  assert.match(r.stdout, /^metadata: cloudbaseinit\.metadata\.services\.gceservice\.GCEService \(GCE\), instance 7300112233445566778$/m);
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  // The base64 user data was decoded and run.
  assert.deepEqual(existsSync(marker) ? readFileSync(marker, 'utf8').trim().split(/\r?\n/) : [], ['read from GCE']);
  const reg = spawnSync('wine', ['reg', 'query', 'HKLM\\System\\CurrentControlSet\\Control\\ComputerName\\ComputerName', '/v', 'ComputerName'], { env: { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all' }, encoding: 'utf8', timeout: 60_000 });
  assert.match(reg.stdout ?? '', /ComputerName\s+REG_SZ\s+GCE-WINE-VM/i);
  const log = readFileSync(logFile, 'utf8');
  assert.match(log, /Skipping expired key/);
  assert.match(log, /Skipping key due to non matching username/);
  // Every request the exe sent carried the header, and the instance id, name and attributes were read.
  assert.ok(server.requests.length > 0);
  assert.ok(server.requests.every((q) => q.headers['metadata-flavor'] === 'Google'), JSON.stringify(server.requests.map((q) => [q.path, q.status])));
  for (const p of ['/computeMetadata/v1/instance/id', '/computeMetadata/v1/instance/name', '/computeMetadata/v1/instance/attributes/?recursive=True']) assert.ok(server.requests.some((q) => q.path === p && q.status === 200), `${p} was read`);
});
