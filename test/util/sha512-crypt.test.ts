import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { hashPasswordSha512, parseSha512Setting, randomSalt, sha512Crypt, verifySha512 } from '../../src/util/sha512-crypt';
import { hasCommand, need } from '../helpers/requirements';

// The test vectors published with Drepper's SHA-crypt specification.
const VECTORS: Array<[string, string, string]> = [
  ['$6$saltstring', 'Hello world!', '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1'],
  ['$6$rounds=10000$saltstringsaltstring', 'Hello world!', '$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.'],
  ['$6$rounds=5000$toolongsaltstring', 'This is just a test', '$6$rounds=5000$toolongsaltstrin$lQ8jolhgVRVhY4b5pZKaysCLi0QBxGoNeKQzQ3glMhwllF7oGDZxUhx1yxdYcz/e1JSbq3y6JMxxl8audkUEm0'],
  ['$6$rounds=1400$anotherlongsaltstring', 'a very much longer text to encrypt.  This one even stretches over morethan one line.', '$6$rounds=1400$anotherlongsalts$POfYwTEok97VWcjxIiSOjiykti.o/pQs.wPvMxQ6Fm7I6IoYN3CmLs66x9t0oSwbtEW7o7UmJEiDwGqd8p4ur1'],
  ['$6$rounds=77777$short', 'we have a short salt string but not a short password', '$6$rounds=77777$short$WuQyW2YR.hBNpjjRhpYD/ifIw05xdfeEyQoMxIXbkvr0gge1a1x3yRULJ5CCaUeOxFmtlcGZelFl5CxtgfiAc0'],
  ['$6$rounds=123456$asaltof16chars..', 'a short string', '$6$rounds=123456$asaltof16chars..$BtCwjqMJGx5hrJhZywWvt0RLE8uZ4oPwcelCjmw2kSYu.Ec6ycULevoBK25fs2xXgMNrCzIMVcgEJAstJeonj1'],
  ['$6$rounds=10$roundstoolow', 'the minimum number is still observed', '$6$rounds=1000$roundstoolow$kUMsbe306n21p9R.FRkW3IGn.S9NPN0x50YhH1xhLsPuWGsUSklZt58jaTfF4ZEQpyUNGc0dqbpBYYBaHHrsX.'],
];

for (const [setting, password, expected] of VECTORS) {
  test(`SHA-crypt vector ${setting}`, () => {
    assert.equal(sha512Crypt(password, parseSha512Setting(setting)), expected);
    assert.ok(verifySha512(password, expected));
    assert.ok(!verifySha512(`${password}x`, expected));
  });
}

test('hashes match openssl passwd -6 for random salts and awkward passwords', (t) => {
  if (!need(t, hasCommand('openssl'), 'openssl is not installed')) return;
  for (const password of ['p', 'pässwörd ✓', 'x'.repeat(64), 'y'.repeat(65), 'z'.repeat(200), 'with:colon and $dollar']) {
    const salt = randomSalt();
    const r = spawnSync('openssl', ['passwd', '-6', '-salt', salt, '-stdin'], { input: `${password}\n`, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(sha512Crypt(password, { salt }), r.stdout.trim(), `password ${JSON.stringify(password)}`);
  }
});

test('fresh hashes carry a 16-character salt and verify', () => {
  const h = hashPasswordSha512('secret');
  assert.match(h, /^\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}$/);
  assert.ok(verifySha512('secret', h));
  assert.notEqual(hashPasswordSha512('secret'), h);
});
