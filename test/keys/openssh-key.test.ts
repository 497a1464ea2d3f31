// Host keys from OpenSSL written in OpenSSH's formats, against the two tools themselves: OpenSSL checks the key,
// ssh-keygen reads the private file we wrote, derives our public line and prints our fingerprint and randomart,
// and signs with it what the .pub line verifies.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sha256Digest, sha256Fingerprint } from '../../src/keys/fingerprint';
import { generateHostPrivateKey } from '../../src/keys/generate-host-key';
import { openSshKeyFromPrivateKey } from '../../src/keys/openssh-key';
import { privateKeyFile, publicKeyLine } from '../../src/keys/openssh-key-files';
import { randomart } from '../../src/keys/ssh-randomart';
import { assertOpenSshSignsAndVerifies } from '../helpers/openssh-sign-verify';
import { hasCommand, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';

function run(program: string, args: string[], input?: string): string {
  const r = spawnSync(program, args, {
    encoding: 'utf8',
    env: { ...process.env, LANG: 'C' },
    ...(input !== undefined ? { input } : {}),
  });
  assert.equal(r.status, 0, `${program} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const BITS = { rsa: 3072, ecdsa: 256, ed25519: 256 } as const;

for (const type of ['rsa', 'ecdsa', 'ed25519'] as const) {
  test(`${type}: openssl pkey -check finds the key valid; ssh-keygen loads our private file, derives our public line, draws our fingerprint and randomart`, async (t) => {
    if (
      !need(
        t,
        hasCommand('ssh-keygen') && hasCommand('openssl'),
        'ssh-keygen (openssh-client) and openssl are needed as the oracles',
      )
    )
      return;
    const dir = tempDir(t);
    const privateKey = await generateHostPrivateKey(type);
    const pkcs8 = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    assert.match(run('openssl', ['pkey', '-check', '-noout'], pkcs8), /Key is valid/);
    const key = openSshKeyFromPrivateKey(type, privateKey);
    assert.equal(key.bits, BITS[type]);
    const priv = join(dir, `ssh_host_${type}_key`);
    writeFileSync(priv, privateKeyFile(key, 'root@kiln-test'));
    chmodSync(priv, 0o600);
    const pubLine = publicKeyLine(key, 'root@kiln-test');
    writeFileSync(`${priv}.pub`, pubLine);
    // -y decrypts nothing (cipher none) and prints the public key with the comment stored in the private file.
    assert.equal(run('ssh-keygen', ['-y', '-f', priv]), pubLine);
    const listed = run('ssh-keygen', ['-lv', '-f', `${priv}.pub`]).split('\n');
    assert.equal(listed[0], `${BITS[type]} ${sha256Fingerprint(key.publicBlob)} root@kiln-test (${key.displayName})`);
    assert.equal(
      listed.slice(1, 12).join('\n'),
      randomart(sha256Digest(key.publicBlob), `${key.displayName} ${BITS[type]}`),
    );
    // ssh-keygen has no PEM form for Ed25519 keys; for the others, it rewrites our file as PEM and OpenSSL
    // checks what we wrote (RSA: the primes, d, the CRT values; ECDSA: the scalar and the point) and finds the
    // same public key as in the key OpenSSL made.
    if (type !== 'ed25519') {
      const pem = join(dir, 'as-pem');
      copyFileSync(priv, pem);
      run('ssh-keygen', ['-q', '-p', '-N', '', '-P', '', '-m', 'PEM', '-f', pem]);
      assert.match(run('openssl', ['pkey', '-check', '-noout', '-in', pem]), /Key is valid/);
      assert.equal(run('openssl', ['pkey', '-pubout', '-in', pem]), run('openssl', ['pkey', '-pubout'], pkcs8));
    }
  });

  test(`${type}: OpenSSH signs with the host key file and verifies the signature with its .pub line`, async (t) => {
    if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is needed as the oracle')) return;
    assertOpenSshSignsAndVerifies(tempDir(t), openSshKeyFromPrivateKey(type, await generateHostPrivateKey(type)));
  });
}

test('a key of another type than the one asked for is refused, not laid out wrongly', async () => {
  const ed25519 = await generateHostPrivateKey('ed25519');
  assert.throws(() => openSshKeyFromPrivateKey('rsa', ed25519), /RSA host key was expected/);
  assert.throws(() => openSshKeyFromPrivateKey('ecdsa', ed25519), /P-256 was expected/);
});
