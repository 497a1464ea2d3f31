// ug_util.normalize_users_groups's deprecations, as 25.1's lifecycle.deprecate logs them: at the DEPRECATED level, in
// its words ('user' of type string, 'users' of type dict or str).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeUsersGroups } from '../../src/modules/support/users-config';

function collect() {
  const lines: string[] = [];
  return {
    lines,
    log: { warn: (m: string) => lines.push(`WARNING ${m}`), deprecated: (m: string) => lines.push(`DEPRECATED ${m}`) },
  };
}

test("a string 'user' and a mapping or string 'users' are deprecated in 25.1's words", () => {
  const a = collect();
  const sysInfo = { default_user: { name: 'ubuntu' } };
  normalizeUsersGroups('m', { user: 'ann', users: { ben: true }, system_info: sysInfo }, a.log);
  assert.deepEqual(a.lines, [
    "DEPRECATED 'user' of type string is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'users' list instead.",
    "DEPRECATED 'users' of type <class 'dict'> is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'users' as a list.",
  ]);
  const b = collect();
  normalizeUsersGroups('m', { users: 'ann,ben' }, b.log);
  assert.deepEqual(b.lines, [
    "DEPRECATED 'users' of type <class 'str'> is deprecated in 22.2 and scheduled to be removed in 27.2. Use 'users' as a list.",
  ]);
  const c = collect();
  normalizeUsersGroups('m', { users: ['ann'] }, c.log);
  assert.deepEqual(c.lines, []);
});
