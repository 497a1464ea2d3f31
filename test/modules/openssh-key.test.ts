// In-process host keys against OpenSSH itself: ssh-keygen reads our private files, derives the same public key,
// and prints the same fingerprint and randomart.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateOpenSshKey, privateKeyFile, publicKeyLine, sha256Digest, sha256Fingerprint, sshMpint } from '../../src/modules/openssh-key';
import { keygenReport, randomart } from '../../src/modules/ssh-randomart';
import { derIntegers } from '../../src/util/der-integers';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

function keygen(args: string[]): string {
  const r = spawnSync('ssh-keygen', args, { encoding: 'utf8', env: { ...process.env, LANG: 'C' } });
  assert.equal(r.status, 0, `ssh-keygen ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

for (const type of ['rsa', 'dsa', 'ecdsa', 'ed25519'] as const) {
  test(`${type}: ssh-keygen loads the private key, derives our public key and draws our fingerprint and randomart`, async (t) => {
    if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is needed as the oracle')) return;
    const dir = tempDir(t);
    const key = await generateOpenSshKey(type);
    const priv = join(dir, `ssh_host_${type}_key`);
    writeFileSync(priv, privateKeyFile(key, 'root@kiln-test'));
    chmodSync(priv, 0o600);
    const pubLine = publicKeyLine(key, 'root@kiln-test');
    writeFileSync(`${priv}.pub`, pubLine);
    // -y decrypts nothing (cipher none) and prints the public key with the comment stored in the private file.
    assert.equal(keygen(['-y', '-f', priv]), pubLine);
    const listed = keygen(['-lv', '-f', `${priv}.pub`]).split('\n');
    const bits = type === 'rsa' ? 3072 : type === 'dsa' ? 1024 : 256;
    assert.equal(listed[0], `${bits} ${sha256Fingerprint(key.publicBlob)} root@kiln-test (${key.displayName})`);
    assert.equal(listed.slice(1, 12).join('\n'), randomart(sha256Digest(key.publicBlob), `${key.displayName} ${bits}`));
  });
}

test('randomart matches ssh-keygen for keys ssh-keygen made itself, and the report reads like ssh-keygen', (t) => {
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is needed as the oracle')) return;
  const dir = tempDir(t);
  for (const [type, title] of [['ed25519', 'ED25519 256'], ['ecdsa', 'ECDSA 256'], ['ed25519', 'ED25519 256']] as const) {
    const file = join(dir, `k-${type}-${Math.random().toString(16).slice(2)}`);
    const made = keygen(['-t', type, '-N', '', '-C', 'me@here', '-f', file]);
    const blob = Buffer.from((keygen(['-y', '-f', file]).split(' ')[1] as string), 'base64');
    const art = randomart(sha256Digest(blob), title);
    assert.equal(made, keygenReport(type, file, sha256Fingerprint(blob), 'me@here', art));
  }
});

test('mpints: leading zeros dropped, a zero byte added before a set top bit, zero is empty', () => {
  assert.deepEqual([...sshMpint(Buffer.from([0, 0, 0x12]))], [0, 0, 0, 1, 0x12]);
  assert.deepEqual([...sshMpint(Buffer.from([0x80, 1]))], [0, 0, 0, 3, 0, 0x80, 1]);
  assert.deepEqual([...sshMpint(Buffer.from([0, 0]))], [0, 0, 0, 0]);
});

test('the private key block is padded to 8 bytes with 1, 2, 3 … and wrapped at 70 columns', async () => {
  const key = await generateOpenSshKey('ed25519');
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
  str();
  str();
  str();
  off += 4;
  str();
  const section = str();
  assert.equal(off, body.length);
  assert.equal(section.length % 8, 0);
  assert.equal(section.readUInt32BE(0), section.readUInt32BE(4), 'the two check integers agree');
  const pad = section[section.length - 1] as number;
  assert.deepEqual([...section.subarray(section.length - pad)], Array.from({ length: pad }, (_, i) => i + 1));
});

test('DER integers: nested sequences, wrapped BIT and OCTET STRINGs, long lengths; a truncated input is an error', () => {
  const int = (...b: number[]) => [0x02, b.length, ...b];
  const long = Array.from({ length: 200 }, (_, i) => (i % 250) + 1);
  const content = [...int(1), 0x30, 3, ...int(2), 0x02, 0x81, 200, ...long, 0x04, 3, ...int(3)];
  const der = Uint8Array.from([0x30, 0x81, content.length, ...content]);
  assert.deepEqual(
    derIntegers(der).map((b) => [...b]),
    [[1], [2], long, [3]],
  );
  assert.throws(() => derIntegers(Uint8Array.from([0x30, 5, 0x02, 1])), /runs past/);
});
