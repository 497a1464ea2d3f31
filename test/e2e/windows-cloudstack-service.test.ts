// The built kiln-win-x64.exe as cloudbase-init under wine, reading the CloudStack service (metadata and password server) from a mock on 127.0.0.1.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { builtBinary, FIXTURES } from '../helpers/repo';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { privateWinePrefix, type WineResult } from '../helpers/wine';

const exe = builtBinary('kiln-win-x64.exe');
const CLASS = 'cloudbaseinit.metadata.services.cloudstack.CloudStack';

/** As windows-gce-service.test.ts: wine's output to files, asynchronously, so the in-process mock can answer. */
function runUnderWineAsync(dir: string, args: string[], env: Record<string, string>, timeoutMs = 180_000): Promise<WineResult> {
  const out = join(dir, 'wine-out.txt');
  const err = join(dir, 'wine-err.txt');
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `exec wine ${quoted} > '${out}' 2> '${err}'`], {
      env: { ...process.env, WINEDEBUG: '-all', NODE_SKIP_PLATFORM_CHECK: '1', ...env },
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: existsSync(out) ? readFileSync(out, 'utf8') : '', stderr: existsSync(err) ? readFileSync(err, 'utf8') : '' });
    });
  });
}

// wine has no NetUserSetInfo, so SetUserPasswordPlugin cannot run here: the password's way onto the user is
// tested with the fake Windows platform (test/plugins/cloudstack-service.test.ts); this checks the exe's HTTP side.
test('cloudbase-init under wine: the CloudStack service over HTTP, host name set, the password fetched from the password server and acknowledged', async (t) => {
  if (!need(t, exe !== undefined, 'dist/kiln-win-x64.exe is not built (node build.mjs win-x64)')) return;
  if (!need(t, hasCommand('wine'), 'wine is not installed (apt-get install wine wine64)')) return;
  const dir = tempDir(t);
  const server = await mockMetadataServer(t, { kind: 'cloudstack', dir: join(FIXTURES, 'sources', 'cloudstack', 'happy-path', 'tree') });
  const prefix = privateWinePrefix(dir, {}, []);
  const conf = join(dir, 'cloudbase-init.conf');
  writeFileSync(
    conf,
    [
      '[DEFAULT]',
      `metadata_services=${CLASS}`,
      'plugins=cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin',
      'allow_reboot=false',
      'retry_count=1',
      `log_dir=Z:${dir}`,
      'log_file=cloudbase-init.log',
      '',
      '[cloudstack]',
      `metadata_base_url=${server.url}/`,
      // The mock answers the password server's requests (DomU_Request) on its one port.
      `password_server_port=${server.port}`,
      '',
    ].join('\r\n'),
  );
  const r = await runUnderWineAsync(dir, [exe as string, '--config-file', `Z:${conf}`], { WINEPREFIX: prefix, KILN_FACE: 'cloudbase-init' });
  const logFile = join(dir, 'cloudbase-init.log');
  const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}\n${log}`);
  assert.match(r.stdout, /^metadata: cloudbaseinit\.metadata\.services\.cloudstack\.CloudStack \(CloudStack\), instance i-2-77-VM$/m);
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(log, /Setting the computer name to cs-web-1/);
  assert.ok(!log.includes('s3cret-Admin-Pass') && !r.stdout.includes('s3cret-Admin-Pass'), 'the password never reaches the log');
  assert.ok(server.requests.some((q) => q.path === '/latest/meta-data/service-offering' && q.status === 200), "cloudbase-init's service-offering probe");
  // The password was asked for once and acknowledged after.
  assert.deepEqual(server.requests.map((q) => q.headers.domu_request).filter(Boolean), ['send_my_password', 'saved_password']);
  assert.deepEqual(server.passwordServer, { handedOut: 1, acknowledged: true, strayAcks: 0 });
});
