import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setHostname } from '../../src/modules/set-hostname';
import { updateHostname } from '../../src/modules/update-hostname';
import { tempDir } from '../helpers/temp';
import { moduleContext } from './module-context';

function sandbox(t: Parameters<typeof tempDir>[0]): string {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc'), { recursive: true });
  writeFileSync(join(root, 'etc/hostname'), 'localhost\n');
  return root;
}

const read = (root: string, p: string) => readFileSync(join(root, p), 'utf8');

test('set_hostname writes the short name, records set-hostname, and update_hostname records previous-hostname', async (t) => {
  const root = sandbox(t);
  const ctx = moduleContext(root, { instance: { localHostname: 'web1.example.org' } });
  await setHostname.run(ctx, {});
  assert.equal(read(root, 'etc/hostname'), 'web1\n');
  assert.deepEqual(JSON.parse(read(root, 'var/lib/cloud/data/set-hostname')), {
    hostname: 'web1',
    fqdn: 'web1.example.org',
  });
  await updateHostname.run(ctx, {});
  assert.equal(read(root, 'var/lib/cloud/data/previous-hostname'), 'web1\n');
  assert.equal(read(root, 'etc/hostname'), 'web1\n');
});

test('cloud-config hostname/fqdn win over metadata; prefer_fqdn_over_hostname writes the FQDN', async (t) => {
  const root = sandbox(t);
  const ctx = moduleContext(root, { instance: { localHostname: 'meta' } });
  await setHostname.run(ctx, { hostname: 'db', fqdn: 'db.internal.test', prefer_fqdn_over_hostname: true });
  assert.equal(read(root, 'etc/hostname'), 'db.internal.test\n');
  const root2 = sandbox(t);
  await setHostname.run(moduleContext(root2), { hostname: 'app.corp.test' });
  assert.equal(read(root2, 'etc/hostname'), 'app\n');
  assert.deepEqual(JSON.parse(read(root2, 'var/lib/cloud/data/set-hostname')), {
    hostname: 'app',
    fqdn: 'app.corp.test',
  });
});

test('RHEL-family targets default to the FQDN', async (t) => {
  const root = sandbox(t);
  await setHostname.run(moduleContext(root, { distro: { name: 'rocky', family: 'redhat', version: '9' } }), {
    fqdn: 'r.example.net',
  });
  assert.equal(read(root, 'etc/hostname'), 'r.example.net\n');
});

test('preserve_hostname leaves everything alone; a default localhost is not written', async (t) => {
  const root = sandbox(t);
  await setHostname.run(moduleContext(root, { instance: { localHostname: 'x' } }), { preserve_hostname: true });
  await updateHostname.run(moduleContext(root, { instance: { localHostname: 'x' } }), { preserve_hostname: true });
  assert.equal(read(root, 'etc/hostname'), 'localhost\n');
  await setHostname.run(moduleContext(root), {});
  assert.equal(read(root, 'etc/hostname'), 'localhost\n');
});

test('update_hostname keeps a hostname the user changed after the first boot', async (t) => {
  const root = sandbox(t);
  const ctx = moduleContext(root, { instance: { localHostname: 'first' } });
  await setHostname.run(ctx, {});
  await updateHostname.run(ctx, {});
  writeFileSync(join(root, 'etc/hostname'), 'mine\n');
  await updateHostname.run(moduleContext(root, { instance: { localHostname: 'second' } }), {});
  assert.equal(read(root, 'etc/hostname'), 'mine\n');
  assert.ok(ctx.lines.length > 0);
});

test('update_hostname follows a new name when the system still has the one kiln set', async (t) => {
  const root = sandbox(t);
  await setHostname.run(moduleContext(root, { instance: { localHostname: 'first' } }), {});
  await updateHostname.run(moduleContext(root, { instance: { localHostname: 'first' } }), {});
  await updateHostname.run(moduleContext(root, { instance: { localHostname: 'second' } }), {});
  assert.equal(read(root, 'etc/hostname'), 'second\n');
  assert.equal(read(root, 'var/lib/cloud/data/previous-hostname'), 'second\n');
});

test('create_hostname_file: false leaves an absent hostname file absent and still updates an existing one', async (t) => {
  const { existsSync, rmSync } = await import('node:fs');
  const root = sandbox(t);
  rmSync(join(root, 'etc/hostname'));
  const ctx = moduleContext(root, { instance: { localHostname: 'web1.example.org' } });
  await setHostname.run(ctx, { create_hostname_file: false });
  await updateHostname.run(ctx, { create_hostname_file: false });
  assert.equal(existsSync(join(root, 'etc/hostname')), false);
  assert.ok(ctx.lines.some((l) => l.includes('create_hostname_file is False; hostname file not created')));
  assert.deepEqual(JSON.parse(read(root, 'var/lib/cloud/data/set-hostname')), {
    hostname: 'web1',
    fqdn: 'web1.example.org',
  });
  assert.equal(read(root, 'var/lib/cloud/data/previous-hostname'), 'web1\n');
  const root2 = sandbox(t);
  await setHostname.run(moduleContext(root2, { instance: { localHostname: 'web2' } }), { create_hostname_file: false });
  assert.equal(read(root2, 'etc/hostname'), 'web2\n');
  // The default (true) creates it, as before.
  const root3 = sandbox(t);
  rmSync(join(root3, 'etc/hostname'));
  await setHostname.run(moduleContext(root3, { instance: { localHostname: 'web3' } }), {});
  assert.equal(read(root3, 'etc/hostname'), 'web3\n');
});

test('the hostname keys are read as 25.1 reads them: get_cfg_option_bool flags, a number hostname is its digits', async (t) => {
  // prefer_fqdn_over_hostname: 1 is translate_bool's true; fqdn: 7 and hostname: 42 are str()'d by get_hostname_fqdn.
  const root = sandbox(t);
  await setHostname.run(moduleContext(root), { fqdn: 'n1.example.test', prefer_fqdn_over_hostname: 1 });
  assert.equal(read(root, 'etc/hostname'), 'n1.example.test\n');
  const root2 = sandbox(t);
  await setHostname.run(moduleContext(root2), { hostname: 42, fqdn: 'x.example.test' });
  assert.deepEqual(JSON.parse(read(root2, 'var/lib/cloud/data/set-hostname')), {
    hostname: '42',
    fqdn: 'x.example.test',
  });
  // create_hostname_file: null is translate_bool(None), false: an absent hostname file stays absent.
  const root3 = tempDir(t);
  await setHostname.run(moduleContext(root3, { instance: { localHostname: 'web3' } }), { create_hostname_file: null });
  assert.throws(() => read(root3, 'etc/hostname'), { code: 'ENOENT' });
  // preserve_hostname: 'yes' (a quoted word) preserves it.
  const root4 = sandbox(t);
  await setHostname.run(moduleContext(root4, { instance: { localHostname: 'web4' } }), { preserve_hostname: 'yes' });
  assert.equal(read(root4, 'etc/hostname'), 'localhost\n');
  // fqdn: null is str(None), as get_hostname_fqdn reads it; a list hostname is refused naming the key.
  const root5 = sandbox(t);
  await setHostname.run(moduleContext(root5), { fqdn: null });
  assert.deepEqual(JSON.parse(read(root5, 'var/lib/cloud/data/set-hostname')), { hostname: 'None', fqdn: 'None' });
  await assert.rejects(setHostname.run(moduleContext(sandbox(t)), { hostname: ['a'] }), {
    name: 'ModuleError',
    message: "set_hostname: Invalid cloud-config: hostname: ['a'] is not of type 'string'",
  });
});

test('an empty hostname writes the FQDN instead, as Distro._select_hostname', async (t) => {
  const root = sandbox(t);
  const ctx = moduleContext(root);
  await setHostname.run(ctx, { hostname: '', fqdn: 'e1.example.test' });
  assert.equal(read(root, 'etc/hostname'), 'e1.example.test\n');
  assert.deepEqual(JSON.parse(read(root, 'var/lib/cloud/data/set-hostname')), {
    hostname: '',
    fqdn: 'e1.example.test',
  });
  await updateHostname.run(ctx, { hostname: '', fqdn: 'e1.example.test' });
  assert.equal(read(root, 'var/lib/cloud/data/previous-hostname'), 'e1.example.test\n');
  assert.equal(read(root, 'etc/hostname'), 'e1.example.test\n');
});

test('set-hostname is written as json.dumps writes it: non-ASCII letters escaped', async (t) => {
  const root = sandbox(t);
  await setHostname.run(moduleContext(root), { hostname: 'caf\u00e9', fqdn: 'caf\u00e9.example.test' });
  assert.equal(
    read(root, 'var/lib/cloud/data/set-hostname'),
    '{\n "fqdn": "caf\\u00e9.example.test",\n "hostname": "caf\\u00e9"\n}\n',
  );
});

test('update_hostname warns about a hostname file it cannot write and goes on, as Distro.update_hostname', async (t) => {
  const root = sandbox(t);
  rmSync(join(root, 'etc/hostname'));
  // previous-hostname is a folder: it can be neither read nor written.
  mkdirSync(join(root, 'var/lib/cloud/data/previous-hostname'), { recursive: true });
  const ctx = moduleContext(root, { instance: { localHostname: 'w1' } });
  await updateHostname.run(ctx, {});
  assert.equal(read(root, 'etc/hostname'), 'w1\n');
  assert.equal(ctx.problems.length, 1);
  assert.match(
    ctx.problems[0] as string,
    /^WARNING: Failed to write hostname w1 to \/var\/lib\/cloud\/data\/previous-hostname: /,
  );
});
