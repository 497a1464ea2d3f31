import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeTar } from '../../src/runner/tar-writer';
import { need, hasCommand } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

test('GNU tar reads what the ustar writer writes, long names included', (t) => {
  if (!need(t, hasCommand('tar'), 'tar is not installed')) return;
  const dir = tempDir(t);
  const long = `${'d'.repeat(60)}/${'e'.repeat(60)}/file.txt`;
  writeFileSync(
    join(dir, 'a.tar'),
    writeTar([
      { path: 'top', type: 'dir' },
      { path: 'top/x.log', content: Buffer.from('hello\n') },
      { path: long, content: Buffer.alloc(1000, 'z') },
    ]),
  );
  const r = spawnSync('tar', ['-tvf', join(dir, 'a.tar')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /top\/x\.log/);
  assert.ok(r.stdout.includes(long));
  const x = spawnSync('tar', ['-xOf', join(dir, 'a.tar'), 'top/x.log'], { encoding: 'utf8' });
  assert.equal(x.stdout, 'hello\n');
});
