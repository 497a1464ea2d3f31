import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { writeFiles } from '../../src/modules/write-files';
import { writeFilesDeferredModule } from '../../src/modules/write-files-deferred';
import { isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

function sandbox(t: Parameters<typeof tempDir>[0]): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nsvc:x:1500:1500::/srv:/bin/sh\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\nsvc:x:1500:\nwww:x:33:\n');
  return root;
}

test('write_files decodes every encoding, sets modes and owners, appends, and leaves deferred files', async (t) => {
  const root = sandbox(t);
  const text = 'hello\nworld\n';
  const gz = gzipSync(Buffer.from(text));
  await writeFiles.run(moduleContext(root), {
    write_files: [
      { path: '/etc/plain.txt', content: text },
      { path: '/etc/b64.txt', content: Buffer.from(text).toString('base64'), encoding: 'b64' },
      { path: '/etc/base64.txt', content: Buffer.from(text).toString('base64'), encoding: 'base64' },
      { path: '/etc/gz.txt', content: new Uint8Array(gz), encoding: 'gzip' },
      { path: '/etc/gzb64.txt', content: gz.toString('base64'), encoding: 'gz+b64', permissions: '0600' },
      { path: '/srv/app/conf', content: 'x', owner: 'svc:www', permissions: '0640' },
      { path: 'relative/../etc/norm.txt', content: 'n' },
      { path: '/etc/later.txt', content: 'later', defer: true },
      { path: '/etc/plain.txt', content: 'more\n', append: true },
    ],
  });
  for (const f of ['b64.txt', 'base64.txt', 'gz.txt', 'gzb64.txt'])
    assert.equal(readFileSync(join(root, 'etc', f), 'utf8'), text, f);
  assert.equal(readFileSync(join(root, 'etc/plain.txt'), 'utf8'), `${text}more\n`);
  assert.equal(statSync(join(root, 'etc/plain.txt')).mode & 0o777, 0o644);
  assert.equal(statSync(join(root, 'etc/gzb64.txt')).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(root, 'etc/norm.txt'), 'utf8'), 'n');
  assert.equal(existsSync(join(root, 'etc/later.txt')), false);
  const st = statSync(join(root, 'srv/app/conf'));
  assert.equal(st.mode & 0o777, 0o640);
  if (isRoot()) {
    assert.equal(st.uid, 1500);
    assert.equal(st.gid, 33);
    assert.equal(statSync(join(root, 'etc/plain.txt')).uid, 0);
  }
});

test("write_files gives the folders it creates the file's owner, as 25.1's ensure_dir does; folders that exist keep theirs", async (t) => {
  if (!need(t, isRoot(), 'needs root to chown')) return;
  const root = sandbox(t);
  mkdirSync(join(root, 'srv'), { recursive: true });
  await writeFiles.run(moduleContext(root), {
    write_files: [{ path: '/srv/a/b/conf', content: 'x', owner: 'svc:www' }],
  });
  for (const d of ['srv/a', 'srv/a/b']) {
    const st = statSync(join(root, d));
    assert.deepEqual([st.uid, st.gid, st.mode & 0o777], [1500, 33, 0o755], d);
  }
  assert.equal(statSync(join(root, 'srv')).uid, 0);
});

test('write_files errors name the entry; bad gzip and unknown owners fail', async (t) => {
  const root = sandbox(t);
  await assert.rejects(
    writeFiles.run(moduleContext(root), { write_files: [{ path: '/a', content: 'notgz', encoding: 'gz' }] }),
    /write_files\[0\] \(\/a\).*gzip/,
  );
  await assert.rejects(
    writeFiles.run(moduleContext(root), { write_files: [{ path: '/b', content: 'x', owner: 'nobody-here' }] }),
    /write_files\[0\].*nobody-here/,
  );
  await assert.rejects(writeFiles.run(moduleContext(root), { write_files: 'nope' }), /write_files/);
});

test("write_files reads each entry as 25.1's cc_write_files does: permissions 0644 as a number, encodings lower()'d, quoted booleans, a missing path warned", async (t) => {
  const root = sandbox(t);
  const ctx = moduleContext(root);
  const gz = gzipSync(Buffer.from('zipped\n'));
  await writeFiles.run(ctx, {
    write_files: [
      { path: '/etc/octal', content: 'o', permissions: 0o640, owner: null },
      { path: '/etc/upper', content: new Uint8Array(gz), encoding: ' GZIP ' },
      { path: '/etc/rot', content: 'r', encoding: 'rot13', not_read: 1 },
      { content: 'no path' },
      { path: '/etc/blank', content: null, source: null },
      { path: '/etc/quoted', content: 'q\n', defer: 'no' },
      { path: '/etc/quoted', content: 'q\n', append: 'yes' },
      { path: '/etc/deferred', content: 'd', defer: 'yes', encoding: 'rot47' },
    ],
  });
  assert.equal(statSync(join(root, 'etc/octal')).mode & 0o777, 0o640);
  assert.equal(readFileSync(join(root, 'etc/upper'), 'utf8'), 'zipped\n');
  assert.equal(readFileSync(join(root, 'etc/rot'), 'utf8'), 'r');
  assert.equal(readFileSync(join(root, 'etc/blank'), 'utf8'), '');
  assert.equal(readFileSync(join(root, 'etc/quoted'), 'utf8'), 'q\nq\n');
  assert.equal(existsSync(join(root, 'etc/deferred')), false);
  const warnings = ctx.lines
    .filter((l) => l.includes('WARNING'))
    .map((l) => l.replace(/.*?(Unknown|No path)/, '$1').trim());
  assert.deepEqual(warnings, [
    'Unknown encoding type rot13, assuming text/plain',
    'No path provided to write for entry 4 in module write_files',
  ]);
  // write_files_deferred reads only its own entries: the deferred one's encoding is warned about there, once.
  const later = moduleContext(root);
  await writeFilesDeferredModule.run(later, {
    write_files: [
      { path: '/etc/now', content: 'x', encoding: 'rot13' },
      { path: '/etc/deferred', content: 'd', defer: 'yes', encoding: 'rot47' },
    ],
  });
  assert.equal(readFileSync(join(root, 'etc/deferred'), 'utf8'), 'd');
  assert.deepEqual(
    later.lines.filter((l) => l.includes('Unknown encoding')).map((l) => l.replace(/.*Unknown/, 'Unknown').trim()),
    ['Unknown encoding type rot47, assuming text/plain'],
  );
});

test('write_files with only deferred files or no key does nothing', async (t) => {
  const root = sandbox(t);
  await writeFiles.run(moduleContext(root), { write_files: [{ path: '/etc/d', content: 'x', defer: true }] });
  await writeFiles.run(moduleContext(root), {});
  assert.equal(existsSync(join(root, 'etc/d')), false);
});

test('under --dry-run, modules plan their writes and commands and change nothing', async (t) => {
  const { DryRunPlatform } = await import('../../src/platform/dry-run-platform');
  const { updateEtcHosts } = await import('../../src/modules/update-etc-hosts');
  const root = sandbox(t);
  const ctx = moduleContext(root);
  const dry = new DryRunPlatform(ctx.platform);
  const dctx = { ...ctx, platform: dry };
  await writeFiles.run(dctx, { write_files: [{ path: '/etc/new.conf', content: 'x', permissions: '0600' }] });
  await updateEtcHosts.run(dctx, { manage_etc_hosts: 'localhost', hostname: 'h', fqdn: 'h.d' });
  assert.equal(existsSync(join(root, 'etc/new.conf')), false);
  assert.equal(existsSync(join(root, 'etc/hosts')), false);
  assert.deepEqual(
    dry.effects.map((e) => (e.kind === 'write-file' ? `${e.path} ${e.mode?.toString(8)}` : e.kind)),
    ['/etc/new.conf 600', '/etc/hosts 644'],
  );
});

/**
 * A download server on 127.0.0.1: /conf wants an X-Token header, /flaky fails its first answer, /redirect goes to
 * /conf, anything else is 404.
 */
async function sourceServer(t: {
  after(fn: () => Promise<void> | void): void;
}): Promise<{ base: string; hits: string[] }> {
  const { createServer } = await import('node:http');
  const hits: string[] = [];
  let flaky = 0;
  const server = createServer((req, res) => {
    hits.push(`${req.url} ${req.headers['x-token'] ?? '-'}`);
    if (req.url === '/conf' && req.headers['x-token'] === 's3cret')
      return res.end(Buffer.from([0x00, 0xff, 0x41, 0x0a]));
    if (req.url === '/flaky' && flaky++ > 0) return res.end('second time\n');
    if (req.url === '/redirect') return res.writeHead(302, { location: '/conf' }).end();
    res.writeHead(req.url === '/conf' ? 403 : 404).end('no');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as { port: number }).port;
  return { base: `http://127.0.0.1:${port}`, hits };
}

test('write_files source: fetched with its headers and written as-is with the entry modes; failures fall back to content or skip', async (t) => {
  const { writeFileEntries } = await import('../../src/modules/write-files');
  const root = sandbox(t);
  const { base, hits } = await sourceServer(t);
  writeFileSync(join(root, 'etc/local.src'), 'from the target\n');
  const ctx = moduleContext(root);
  const waits: number[] = [];
  const sleep = async (ms: number) => void waits.push(ms);
  await writeFileEntries(
    ctx,
    'write_files',
    [
      {
        path: '/etc/fetched',
        source: { uri: `${base}/conf`, headers: { 'X-Token': 's3cret' } },
        content: 'fallback',
        encoding: 'b64',
        permissions: '0600',
        owner: 'svc:www',
      },
      { path: '/etc/flaky', source: { uri: `${base}/flaky` } },
      {
        path: '/etc/fallback',
        source: { uri: `${base}/missing` },
        content: Buffer.from('inline\n').toString('base64'),
        encoding: 'b64',
      },
      { path: '/etc/skipped', source: { uri: `${base}/missing` } },
      { path: '/etc/from-file', source: { uri: 'file:///etc/local.src' }, append: true },
      { path: '/etc/from-path', source: { uri: '/etc/local.src' } },
      { path: '/etc/redirected', source: { uri: `${base}/redirect`, headers: { 'X-Token': 's3cret' } } },
      { path: '/etc/empty-uri', source: { uri: '' }, content: 'plain' },
    ],
    { sleep },
  );
  assert.deepEqual([...readFileSync(join(root, 'etc/fetched'))], [0x00, 0xff, 0x41, 0x0a]);
  assert.equal(statSync(join(root, 'etc/fetched')).mode & 0o777, 0o600);
  if (isRoot()) assert.equal(statSync(join(root, 'etc/fetched')).uid, 1500);
  assert.equal(readFileSync(join(root, 'etc/flaky'), 'utf8'), 'second time\n');
  assert.equal(readFileSync(join(root, 'etc/fallback'), 'utf8'), 'inline\n');
  assert.equal(existsSync(join(root, 'etc/skipped')), false);
  assert.equal(readFileSync(join(root, 'etc/from-file'), 'utf8'), 'from the target\n');
  assert.equal(readFileSync(join(root, 'etc/from-path'), 'utf8'), 'from the target\n');
  assert.deepEqual([...readFileSync(join(root, 'etc/redirected'))], [0x00, 0xff, 0x41, 0x0a]);
  assert.equal(readFileSync(join(root, 'etc/empty-uri'), 'utf8'), 'plain');
  // 1 try + 3 retries for each failing URL, 3 s apart as cloud-init's readurl; the header went out.
  assert.equal(hits.filter((h) => h.startsWith('/missing')).length, 8);
  assert.ok(waits.length === 7 && waits.every((w) => w === 3000), String(waits));
  assert.ok(hits.includes('/conf s3cret'));
  const warnings = ctx.lines.filter((l) => l.includes('WARNING')).join('\n');
  assert.match(
    warnings,
    /Failed to retrieve contents from source "http:\/\/127\.0\.0\.1:\d+\/missing"; falling back to data from "contents" key/,
  );
  assert.match(warnings, /No content could be loaded for entry 4 in module write_files; skipping/);
});

test('the schema accepts write_files source {uri, headers} and names an unknown source key', async () => {
  const { validateCloudConfig } = await import('../../src/config/validate-cloud-config');
  const ok = validateCloudConfig(
    '#cloud-config\nwrite_files:\n- path: /a\n  source: {uri: "http://x/y", headers: {A: b}}\n',
  );
  assert.deepEqual(ok.problems, []);
  const bad = validateCloudConfig('#cloud-config\nwrite_files:\n- path: /a\n  source: {url: "http://x/y"}\n');
  assert.ok(
    bad.problems.some(
      (p) => p.path === 'write_files.0.source' && p.line === 4 && /'url' was unexpected/.test(p.message),
    ),
    JSON.stringify(bad),
  );
});

test("write_files warns about permissions it cannot decode with their repr() and writes 0644, as 25.1's decode_perms", async (t) => {
  const root = sandbox(t);
  const ctx = moduleContext(root);
  await writeFiles.run(ctx, { write_files: [{ path: '/etc/symbolic', content: 's', permissions: ' rw-r--r--' }] });
  assert.equal(statSync(join(root, 'etc/symbolic')).mode & 0o777, 0o644);
  assert.ok(
    ctx.lines.some((l) => /WARN/.test(l) && l.includes("Undecodable permissions ' rw-r--r--', returning default 644")),
    ctx.lines.join('\n'),
  );
});

test("write_files leaves the mode alone for permissions 0, as 25.1's util.chmod skips a falsy mode", async (t) => {
  const root = sandbox(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/kept'), 'old', { mode: 0o600 });
  const ctx = moduleContext(root);
  await writeFiles.run(ctx, {
    write_files: [
      { path: '/etc/kept', content: 'new', permissions: '0000' },
      { path: '/etc/fresh', content: 'f', permissions: 0 },
    ],
  });
  assert.equal(readFileSync(join(root, 'etc/kept'), 'utf8'), 'new');
  assert.equal(statSync(join(root, 'etc/kept')).mode & 0o7777, 0o600);
  assert.equal(statSync(join(root, 'etc/fresh')).mode & 0o7777, 0o644);
});
