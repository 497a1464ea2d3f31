// execProcess with Node's starter: a program spawn refuses outright is a spawnError outcome, never a thrown error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execProcess } from '../../src/util/exec';

test('execProcess: an argv that spawn() refuses synchronously (a NUL byte; on Windows a .cmd program: EINVAL) is a spawnError, not a throw', async () => {
  const out = await execProcess({ argv: ['echo', 'a\0b'] });
  assert.equal(out.code, 127);
  assert.match(out.spawnError ?? '', /^echo: /);
  assert.equal(out.stdout, '');
});
