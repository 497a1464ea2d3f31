import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathUnderRoot, resolveInRoot } from '../../src/util/paths';
import { tempDir } from '../helpers/temp';

test('paths cannot climb out of the root', () => {
  assert.equal(pathUnderRoot('/r', '/etc/hosts'), '/r/etc/hosts');
  assert.equal(pathUnderRoot('/r', '../../etc/shadow'), '/r/etc/shadow');
  assert.equal(pathUnderRoot('/', 'etc/x'), '/etc/x');
});

test('absolute symlinks inside the root resolve inside the root', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/instances/i-1'), { recursive: true });
  symlinkSync('/var/lib/cloud/instances/i-1', join(root, 'var/lib/cloud/instance'));
  symlinkSync('../../../../../etc', join(root, 'var/lib/cloud/instances/i-1/up'));
  assert.equal(
    await resolveInRoot(root, '/var/lib/cloud/instance/boot-finished', fsp),
    join(root, 'var/lib/cloud/instances/i-1/boot-finished'),
  );
  assert.equal(await resolveInRoot(root, '/var/lib/cloud/instance/up/passwd', fsp), join(root, 'etc/passwd'));
});

test('symlink loops end with an error, not a hang', async (t) => {
  const root = tempDir(t);
  symlinkSync('/b', join(root, 'a'));
  symlinkSync('/a', join(root, 'b'));
  await assert.rejects(resolveInRoot(root, '/a/x', fsp), /too many levels/);
});
