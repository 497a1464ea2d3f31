// set_passwords reads its config typed (configModule) yet as cloud-init 25.1's handle does: chpasswd.users entries
// as get_users_by_type reads them, the deprecated list, and the users keys only when the default user's password is
// set (a users key the module does not read cannot fail it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setPasswords } from '../../src/modules/set-passwords';
import { tempDir } from '../helpers/temp';
import { dryContext } from './late-context';

test('chpasswd entries upstream sorts into no list are left out; the list may be a multi-line string', async (t) => {
  const ctx = dryContext(tempDir(t));
  await setPasswords.run(ctx, {
    chpasswd: {
      expire: false,
      users: [
        { name: 'ann', password: 'annpass', type: 'text', comment: 'never read' },
        { name: 'ben', type: 'other' },
      ],
      list: 'dan:danpass\neve:evepass\n',
    },
    users: 5,
  });
  assert.ok(ctx.lines.some((l) => l.includes('Changing password for ["ann","dan","eve"]')));
  assert.ok(
    ctx.lines.some((l) =>
      /DEPRECATED.*Config key 'lists' is deprecated in 22\.3 and scheduled to be removed in 27\.3\. Use 'users' instead\./.test(
        l,
      ),
    ),
  );
  assert.ok(
    ctx.lines.some((l) =>
      /DEPRECATED.*The chpasswd multiline string is deprecated in 22\.2 and scheduled to be removed in 27\.2\./.test(l),
    ),
  );
  assert.equal(
    ctx.lines.some((l) => l.includes("Format for 'users' key")),
    false,
    'users is not read when chpasswd names the users',
  );
});

test("a chpasswd that is no mapping fails with the schema's message; a list line without ':' names its place", async (t) => {
  await assert.rejects(setPasswords.run(dryContext(tempDir(t)), { chpasswd: 'ann:pw' }), {
    name: 'ModuleError',
    message: "set_passwords: Invalid cloud-config: chpasswd: 'ann:pw' is not of type 'object'",
  });
  await assert.rejects(setPasswords.run(dryContext(tempDir(t)), { chpasswd: { list: ['a:b', 'nocolon'] } }), {
    name: 'ModuleError',
    message: "set_passwords: chpasswd.list[1] is not 'user:password'",
  });
});

test('ssh_pwauth null leaves sshd alone, logged as upstream prints it', async (t) => {
  const ctx = dryContext(tempDir(t));
  await setPasswords.run(ctx, { ssh_pwauth: null });
  assert.ok(ctx.lines.some((l) => l.includes("'PasswordAuthentication' unchanged. ssh_pwauth=None")));
});

test('an ssh_pwauth neither boolean nor string is read as is_true / is_false, else warned about and left unchanged', async (t) => {
  const two = dryContext(tempDir(t));
  await setPasswords.run(two, { ssh_pwauth: { yes: 1 }, chpasswd: { list: 5 } });
  assert.deepEqual(
    two.lines
      .filter((l) => l.includes('WARNING') || l.includes('DEPRECATED'))
      .map((l) => l.replace(/^.*?(?=Config|The|Leav)/, '').trim()),
    [
      "Config key 'lists' is deprecated in 22.3 and scheduled to be removed in 27.3. Use 'users' instead.",
      'The chpasswd multiline string is deprecated in 22.2 and scheduled to be removed in 27.2. Use string type instead.',
      "Leaving SSH config 'PasswordAuthentication' unchanged. Unrecognized value: ssh_pwauth=[object Object]",
    ],
  );
});

test("a string ssh_pwauth is deprecated at the DEPRECATED level in 25.1's words; a chpasswd list only once", async (t) => {
  const ctx = dryContext(tempDir(t));
  await setPasswords.run(ctx, { ssh_pwauth: 'unchanged', chpasswd: { expire: false, list: ['ann:pw'] } });
  const deprecated = ctx.lines.filter((l) => l.includes('DEPRECATED'));
  assert.equal(deprecated.length, 2, deprecated.join('\n'));
  assert.ok(
    deprecated.some((l) =>
      l.includes(
        "Using a string value for the 'ssh_pwauth' key is deprecated in 22.2 and scheduled to be removed in 27.2. Use a boolean value with 'ssh_pwauth'.",
      ),
    ),
  );
  assert.ok(deprecated.some((l) => l.includes("Config key 'lists' is deprecated in 22.3")));
});

test("random passwords are 25.1's: 20 characters with a digit, a lower- and upper-case letter and punctuation", async () => {
  const { randUserPassword } = await import('../../src/modules/set-passwords');
  const punctuation = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
  for (let i = 0; i < 200; i++) {
    const p = randUserPassword();
    assert.equal(p.length, 20);
    assert.match(p, /[0-9]/);
    assert.match(p, /[a-z]/);
    assert.match(p, /[A-Z]/);
    assert.ok(
      [...p].some((c) => punctuation.includes(c)),
      p,
    );
    assert.ok(
      [...p].every((c) => /[0-9a-zA-Z]/.test(c) || punctuation.includes(c)),
      p,
    );
  }
});
