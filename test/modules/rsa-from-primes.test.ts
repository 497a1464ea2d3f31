// RSA keys assembled from two primes found at once, checked by OpenSSL's own key check (primes, n = pq,
// d·e ≡ 1, the CRT values) and by OpenSSH signing and verifying with the host key file.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createPrivateKey, generatePrimeSync } from 'node:crypto';
import { test } from 'node:test';
import { generateOpenSshKey } from '../../src/modules/openssh-key';
import { generateRsaJwk, modInverse, rsaJwkFromPrimes } from '../../src/modules/rsa-from-primes';
import { hasCommand, need } from '../helpers/requirements';
import { assertOpenSshSignsAndVerifies } from '../helpers/openssh-sign-verify';
import { tempDir } from '../helpers/temp';

const big = (b64u: string | undefined) => BigInt(`0x${Buffer.from(b64u ?? '', 'base64url').toString('hex') || '0'}`);

test('modInverse gives x·x⁻¹ ≡ 1 and refuses numbers that share a factor with the modulus', () => {
  for (const [x, m] of [[3n, 7n], [65537n, 3120n * 1000003n], [10n, 17n], [-4n, 9n]] as const) {
    assert.equal((((x * modInverse(x, m)) % m) + m) % m, 1n, `${x} mod ${m}`);
  }
  assert.throws(() => modInverse(6n, 9n), /not invertible/);
});

test('a 3072-bit key: OpenSSL finds it valid, n has 3072 bits, e is 65537, d inverts e modulo lcm(p-1, q-1)', async (t) => {
  if (!need(t, hasCommand('openssl'), 'openssl is needed as the oracle')) return;
  const jwk = await generateRsaJwk(3072);
  const [n, e, d, p, q] = [big(jwk.n), big(jwk.e), big(jwk.d), big(jwk.p), big(jwk.q)];
  assert.equal(n.toString(2).length, 3072);
  assert.equal(e, 65537n);
  assert.equal(p * q, n);
  assert.ok(p > q);
  const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
  const lambda = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
  assert.equal((d * e) % lambda, 1n);
  const pem = createPrivateKey({ key: jwk, format: 'jwk' }).export({ format: 'pem', type: 'pkcs8' });
  const r = spawnSync('openssl', ['pkey', '-check', '-noout'], { input: pem, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(`${r.stdout}${r.stderr}`, /Key is valid/);
});

test('primes that make the wrong size of modulus, or lie too close together, are refused', () => {
  const p = generatePrimeSync(256, { bigint: true });
  const q = generatePrimeSync(256, { bigint: true });
  assert.throws(() => rsaJwkFromPrimes(p, q, 514), /514/);
  assert.throws(() => rsaJwkFromPrimes(p, p, 512), /too close/);
  assert.equal(big(rsaJwkFromPrimes(p, q, 512).n), p * q);
});

test('OpenSSH signs with the RSA host key file and verifies the signature with its .pub line', async (t) => {
  if (!need(t, hasCommand('ssh-keygen'), 'ssh-keygen (openssh-client) is needed as the oracle')) return;
  assertOpenSshSignsAndVerifies(tempDir(t), await generateOpenSshKey('rsa'));
});
