// Hetzner's user data decoding and the public-key shapes its and DigitalOcean's metadata use, as cloud-init reads them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maybeBase64Decode } from '../../src/sources/hetzner/hetzner';
import { normalizePublicKeys } from '../../src/sources/public-keys';

const dec = (s: string) => Buffer.from(maybeBase64Decode(Buffer.from(s, 'latin1'))).toString('latin1');

test("maybe_b64decode: strict base64 is decoded, anything else is kept byte for byte (Python's b64decode(validate=True))", () => {
  assert.equal(dec('YWJj'), 'abc');
  assert.equal(dec('YWI='), 'ab');
  assert.equal(dec('YW=='), 'a');
  assert.equal(dec(''), '');
  for (const kept of ['YWJ', 'YWJjZA', 'YQ==YQ==', 'YW=', 'YWJj\n', '#cloud-config\nruncmd: []\n', 'a b c d'])
    assert.equal(dec(kept), kept, JSON.stringify(kept));
  const gz = Buffer.from([0x1f, 0x8b, 0x08, 0x00]);
  assert.deepEqual(Buffer.from(maybeBase64Decode(Buffer.from(gz.toString('base64')))), gz);
});

test('normalize_pubkey_data: a string is one key a line, a list as it is, a dict of strings or lists, empty values none', () => {
  assert.deepEqual(normalizePublicKeys('ssh-rsa AAA a@b\nssh-ed25519 BBB c@d'), [
    'ssh-rsa AAA a@b',
    'ssh-ed25519 BBB c@d',
  ]);
  assert.deepEqual(normalizePublicKeys(['ssh-rsa AAA a@b', 'ssh-ed25519 BBB c@d']), [
    'ssh-rsa AAA a@b',
    'ssh-ed25519 BBB c@d',
  ]);
  assert.deepEqual(normalizePublicKeys({ one: 'ssh-rsa AAA a@b', two: ['ssh-ed25519 BBB c@d', ''] }), [
    'ssh-rsa AAA a@b',
    'ssh-ed25519 BBB c@d',
  ]);
  for (const none of ['', null, undefined, [], {}]) assert.deepEqual(normalizePublicKeys(none), []);
});
