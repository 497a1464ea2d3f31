// The built Linux binary, run as people run it.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { KILN_CLOUD_INIT_VERSION } from '../../src/build-info';
import { builtBinary, REPO } from '../helpers/repo';
import { need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

const binary = builtBinary('kiln-linux-x64');
const packageVersion = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

function run(path: string, args: string[]) {
  const r = spawnSync(path, args, { encoding: 'utf8', env: { ...process.env, KILN_FACE: '' } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test('--version and version --long', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const v = run(binary as string, ['--version']);
  assert.equal(v.code, 0);
  assert.match(v.out, /^kiln \d+\.\d+\.\d+/);
  const long = run(binary as string, ['version', '--long']);
  assert.equal(long.code, 0, long.err);
  assert.match(long.out, /target: linux-x64/);
  assert.match(long.out, /node: v22\./);
  assert.match(long.out, /os: /);
});

test('the binary built for this host runs its bundle with the code cache trained at build time, and V8 takes it', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  if (process.arch !== 'x64') return t.skip('the linux-x64 binary gets a code cache only when built on an x64 host');
  const r = spawnSync(binary as string, ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '', KILN_CODE_CACHE_REPORT: '1' },
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, 'kiln code cache: used\n');
  assert.match(r.stdout, /^kiln \d/);
});

test('the binary fetches over HTTP with the client it carries: an #include from a server on 127.0.0.1', async (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end('#!/bin/sh\necho included\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const dir = tempDir(t);
  writeFileSync(
    join(dir, 'user-data'),
    `#include\nhttp://127.0.0.1:${(server.address() as AddressInfo).port}/part.sh\n`,
  );
  mkdirSync(join(dir, 'root'));
  // Run without blocking this process, which serves the request; no proxy settings reach the binary.
  const child = spawn(
    binary as string,
    ['--root', join(dir, 'root'), '--dry-run', 'devel', 'run-user-data', join(dir, 'user-data')],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KILN_FACE: '' } },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, err);
  assert.deepEqual(requests, ['GET /part.sh']);
  assert.match(
    out,
    /write \/var\/lib\/cloud\/instances\/iid-kiln-devel\/scripts\/part-\d+ \(24 bytes, mode 0700\)/,
    'the fetched script is what the dry run would write',
  );
});

test('the binary serves a metadata tree over HTTP (devel serve-metadata) until it is told to stop', async (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const dir = tempDir(t);
  writeFileSync(join(dir, 'meta-data'), 'instance-id: iid-e2e-serve\n');
  const child = spawn(
    binary as string,
    ['devel', 'serve-metadata', '--kind', 'nocloud', '--dir', dir, '--listen', '127.0.0.1:0', '--exit-after', '60'],
    { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KILN_FACE: '' } },
  );
  t.after(() => child.kill('SIGKILL'));
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = / at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.on('close', (code) => reject(new Error(`serve-metadata exited with ${code} before serving: ${err}`)));
  });
  const res = await fetch(`${url}/meta-data`);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'instance-id: iid-e2e-serve\n');
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  assert.equal(await closed, 0, err);
});

test('the invocation name picks the face', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const dir = tempDir(t);
  symlinkSync(binary as string, join(dir, 'cloud-init'));
  symlinkSync(binary as string, join(dir, 'kiln'));
  const ci = run(join(dir, 'cloud-init'), ['--help']);
  assert.equal(ci.code, 0);
  assert.match(ci.out, /^usage: cloud-init /);
  assert.match(ci.out, /cloud-init \(kiln\)/);
  const k = run(join(dir, 'kiln'), ['--help']);
  assert.match(k.out, /^usage: kiln /);
  // The path it was started by, then the cloud-init release, as `cloud-init --version` prints them.
  assert.equal(
    run(join(dir, 'cloud-init'), ['--version']).out,
    `${join(dir, 'cloud-init')} ${KILN_CLOUD_INIT_VERSION} (kiln ${packageVersion})\n`,
  );
});

test('unknown commands and flags exit 2 with a clear message', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const a = run(binary as string, ['frobnicate']);
  assert.equal(a.code, 2);
  assert.match(a.err, /unknown command 'frobnicate'/);
  const b = run(binary as string, ['version', '--frob']);
  assert.equal(b.code, 2);
  assert.match(b.err, /unknown flag --frob/);
});

test('a write under --root lands there; with --dry-run it is only printed', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const root = tempDir(t);
  const dry = run(binary as string, [
    '--root',
    root,
    '--dry-run',
    'devel',
    'write-file',
    '/etc/motd',
    '--content',
    'hi\n',
    '--mode',
    '0640',
  ]);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out, /dry run: 1 effect not applied\n {2}would write \/etc\/motd \(3 bytes, mode 0640\)/);
  assert.equal(existsSync(join(root, 'etc/motd')), false);
  const real = run(binary as string, ['--root', root, 'devel', 'write-file', '/etc/motd', '--content', 'hi\n']);
  assert.equal(real.code, 0, real.err);
  assert.equal(readFileSync(join(root, 'etc/motd'), 'utf8'), 'hi\n');
});

test('the embedded default config is shown and overridden by files under --root', (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  const root = tempDir(t);
  assert.match(run(binary as string, ['devel', 'show-config', '--embedded']).out, /cloud_init_modules:/);
  run(binary as string, [
    '--root',
    root,
    'devel',
    'write-file',
    '/etc/cloud/cloud.cfg.d/99-test.cfg',
    '--content',
    'datasource_list: [NoCloud]\n',
  ]);
  const shown = run(binary as string, ['--root', root, 'devel', 'show-config', '--format', 'json']);
  assert.equal(shown.code, 0, shown.err);
  assert.deepEqual(JSON.parse(shown.out).datasource_list, ['NoCloud']);
});

test("--debug traces of the built binary name kiln's source files (its source map); KILN_SOURCE_MAP=0 shows the bundle's frames", (t) => {
  if (!need(t, binary !== undefined, 'dist/kiln-linux-x64 is not built (npm run build)')) return;
  // A refused install (Debian's cloud-init is installed in the root): a KilnError, whose stack --debug logs.
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/dpkg'), { recursive: true });
  writeFileSync(join(root, 'var/lib/dpkg/status'), 'Package: cloud-init\nStatus: install ok installed\n');
  const traced = spawnSync(binary as string, ['--debug', 'install', '--root', root], {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '' },
  });
  assert.equal(traced.status, 1);
  assert.match(traced.stderr, /^ {4}at .*\(src\/install\/linux-install\.ts:\d+:\d+\)$/m);
  assert.match(traced.stderr, /^ {4}at .*src\/main\.ts:\d+:\d+\)?$/m);
  assert.doesNotMatch(traced.stderr, /kiln\.cjs:/);
  const raw = spawnSync(binary as string, ['--debug', 'install', '--root', root], {
    encoding: 'utf8',
    env: { ...process.env, KILN_FACE: '', KILN_SOURCE_MAP: '0' },
  });
  assert.match(raw.stderr, /\(kiln\.cjs:\d+:\d+\)$/m);
});
