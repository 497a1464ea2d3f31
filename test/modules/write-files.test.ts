import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { writeFiles } from '../../src/modules/write-files';
import { isRoot } from '../helpers/requirements';
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
  for (const f of ['b64.txt', 'base64.txt', 'gz.txt', 'gzb64.txt']) assert.equal(readFileSync(join(root, 'etc', f), 'utf8'), text, f);
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

test('write_files errors name the entry; bad gzip and unknown owners fail', async (t) => {
  const root = sandbox(t);
  await assert.rejects(writeFiles.run(moduleContext(root), { write_files: [{ path: '/a', content: 'notgz', encoding: 'gz' }] }), /write_files\[0\] \(\/a\).*gzip/);
  await assert.rejects(writeFiles.run(moduleContext(root), { write_files: [{ path: '/b', content: 'x', owner: 'nobody-here' }] }), /write_files\[0\].*nobody-here/);
  await assert.rejects(writeFiles.run(moduleContext(root), { write_files: 'nope' }), /write_files/);
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
  assert.deepEqual(dry.effects.map((e) => (e.kind === 'write-file' ? `${e.path} ${e.mode?.toString(8)}` : e.kind)), ['/etc/new.conf 600', '/etc/hosts 644']);
});
