// A DSA host key as ssh-keygen -t dsa makes one (1024-bit p, 160-bit q), from primes kiln searches for itself.
//
// generateKeyPair('dsa') runs OpenSSL's FIPS 186 parameter generation: about 40 ms of one pool thread on a
// small VM, with a tail past 100 ms, most of it 64 Miller-Rabin rounds on the final p and a shallow sieve.
// Here q comes from crypto.generatePrime (160 bits: its rounds cost next to nothing), p from the sieved search
// of probable-prime.ts among 1 + k·2q (so that q divides p - 1), g = h^((p-1)/q) mod p for the first h that
// gives g ≠ 1, and x uniform in [1, q - 1]. OpenSSL then takes p, q, g, x as PKCS#8 and derives y = g^x mod p
// itself (in constant time, x being the secret); the key is checked by signing and verifying before use.
// sshd and ssh-keygen accept any p of exactly 1024 bits and q of exactly 160 bits.
import { createPrivateKey, createPublicKey, generatePrime } from 'node:crypto';
import { bitLength } from '../util/bigint-bytes';
import { DER_OID_DSA, derInteger, derOctetString, derSequence } from '../util/der-writer';
import { modularPower, randomBetween } from '../util/modular-arithmetic';
import { checkSignsAndVerifies } from './key-self-check';
import { randomProbablePrime } from './probable-prime';

const P_BITS = 1024;
const Q_BITS = 160;

function primeQ(): Promise<bigint> {
  return new Promise((resolve, reject) => generatePrime(Q_BITS, { bigint: true }, (err, q) => (err ? reject(err) : resolve(q))));
}

/** The generator of the order-q subgroup: h^((p-1)/q) mod p for h = 2, 3, … until it is not 1. */
export function dsaGenerator(p: bigint, q: bigint): bigint {
  const power = modularPower(p, (p - 1n) / q);
  for (let h = 2n; h < p - 1n; h++) {
    const g = power(h);
    if (g > 1n) return g;
  }
  throw new Error('no DSA generator found (p and q do not fit together)');
}

/** PKCS#8 for the DSA private key X with domain parameters P, Q, G. */
export function dsaPkcs8(p: bigint, q: bigint, g: bigint, x: bigint): Buffer {
  return derSequence(derInteger(0n), derSequence(DER_OID_DSA, derSequence(derInteger(p), derInteger(q), derInteger(g))), derOctetString(derInteger(x)));
}

/** A new DSA key as SPKI and PKCS#8 DER (the forms openssh-key.ts reads p, q, g, y and x from). */
export async function generateDsaDer(signal?: AbortSignal): Promise<{ spki: Buffer; pkcs8: Buffer }> {
  const q = await primeQ();
  if (bitLength(q) !== Q_BITS) throw new Error(`the DSA q has ${bitLength(q)} bits, not ${Q_BITS}`);
  const p = await randomProbablePrime(P_BITS, { form: { step: 2n * q, residue: 1n }, ...(signal ? { signal } : {}) });
  const g = dsaGenerator(p, q);
  const x = randomBetween(1n, q - 1n);
  const privateKey = createPrivateKey({ key: dsaPkcs8(p, q, g, x), format: 'der', type: 'pkcs8' });
  await checkSignsAndVerifies(privateKey, 'DSA');
  return { spki: createPublicKey(privateKey).export({ format: 'der', type: 'spki' }), pkcs8: privateKey.export({ format: 'der', type: 'pkcs8' }) };
}
