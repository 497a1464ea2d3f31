// The private key file's layout as ssh-keygen writes it (ssh-keygen itself reads our files in openssh-key.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateHostKey } from '../../src/keys/generate-host-key';
import { privateKeyFile, publicKeyLine } from '../../src/keys/openssh-key-files';

test('the private key block is padded to 8 bytes with 1, 2, 3 … and wrapped at 70 columns', async () => {
  const key = await generateHostKey('ed25519');
  const text = privateKeyFile(key, 'c');
  const lines = text.trim().split('\n');
  assert.equal(lines[0], '-----BEGIN OPENSSH PRIVATE KEY-----');
  assert.equal(lines.at(-1), '-----END OPENSSH PRIVATE KEY-----');
  for (const l of lines.slice(1, -2)) assert.equal(l.length, 70);
  const body = Buffer.from(lines.slice(1, -1).join(''), 'base64');
  assert.equal(body.subarray(0, 15).toString('latin1'), 'openssh-key-v1\0');
  // The private section is the last string: its length is a multiple of 8 and it ends in 1, 2, 3 … padding.
  let off = 15;
  const str = (): Buffer => {
    const n = body.readUInt32BE(off);
    const s = body.subarray(off + 4, off + 4 + n);
    off += 4 + n;
    return s;
  };
  assert.equal(str().toString(), 'none', 'cipher');
  assert.equal(str().toString(), 'none', 'KDF');
  assert.equal(str().length, 0, 'KDF options');
  assert.equal(body.readUInt32BE(off), 1, 'one key');
  off += 4;
  assert.deepEqual(str(), key.publicBlob);
  const section = str();
  assert.equal(off, body.length);
  assert.equal(section.length % 8, 0);
  assert.equal(section.readUInt32BE(0), section.readUInt32BE(4), 'the two check integers agree');
  const pad = section[section.length - 1] as number;
  assert.deepEqual(
    [...section.subarray(section.length - pad)],
    Array.from({ length: pad }, (_, i) => i + 1),
  );
});

test('the public line is "type base64 comment", without the comment when it is empty', async () => {
  const key = await generateHostKey('ed25519');
  assert.equal(publicKeyLine(key, 'root@h'), `ssh-ed25519 ${key.publicBlob.toString('base64')} root@h\n`);
  assert.equal(publicKeyLine(key, ''), `ssh-ed25519 ${key.publicBlob.toString('base64')}\n`);
});
