// An RSA private key (as a JWK) whose two primes are searched for side by side on the thread pool.
//
// generateKeyPair('rsa', 3072) searches p, then q, on one thread: ~760 ms on average on a small two-core VM,
// with a long tail, which made RSA the longest step of a first boot. The two searches of probable-prime.ts
// run at once and find primes of the same size in well under half that. The key is the classic one OpenSSL
// 1.1 and ssh-keygen made for years: two random probable primes of half the size with their top two bits
// set (so n has exactly BITS bits), e = 65537 prime to p-1 and q-1, d = e^-1 mod lcm(p-1, q-1). Before it is
// returned, the key is checked by signing and verifying with it through OpenSSL.
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { bigintToBase64url as b64u, bitLength } from '../util/bigint-bytes';
import { checkSignsAndVerifies } from './key-self-check';
import { randomProbablePrime } from './probable-prime';

const E = 65537n;
/** FIPS 186-4's minimum distance between p and q, in bits below the prime size. */
const MIN_DISTANCE_SHORTFALL = 100;

/** A prime of BITS bits usable with e (p-1 not a multiple of 65537; about one in 65537 is not). */
function rsaPrime(bits: number, signal: AbortSignal | undefined): Promise<bigint> {
  return randomProbablePrime(bits, { accept: (p) => (p - 1n) % E !== 0n, ...(signal ? { signal } : {}) });
}

/** x^-1 mod m (x and m coprime), by the extended Euclidean algorithm. */
export function modInverse(x: bigint, m: bigint): bigint {
  let [r0, r1] = [((x % m) + m) % m, m];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  if (r0 !== 1n) throw new Error('not invertible');
  return ((s0 % m) + m) % m;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** The JWK of the RSA key made from P and Q (with e = 65537); throws when they do not make a sound BITS-bit key. */
export function rsaJwkFromPrimes(p: bigint, q: bigint, bits: number): JsonWebKey {
  if (p < q) [p, q] = [q, p];
  const n = p * q;
  if (bitLength(n) !== bits) throw new Error(`the primes make a ${bitLength(n)}-bit modulus, not ${bits}`);
  if (p - q <= 1n << BigInt(bits / 2 - MIN_DISTANCE_SHORTFALL)) throw new Error('the primes are too close together');
  const lambda = ((p - 1n) * (q - 1n)) / gcd(p - 1n, q - 1n);
  const d = modInverse(E, lambda);
  return { kty: 'RSA', n: b64u(n), e: b64u(E), d: b64u(d), p: b64u(p), q: b64u(q), dp: b64u(d % (p - 1n)), dq: b64u(d % (q - 1n)), qi: b64u(modInverse(q, p)) };
}

const ATTEMPTS = 10;

/** A new BITS-bit RSA key with e = 65537, its primes found in parallel. */
export async function generateRsaJwk(bits: number, signal?: AbortSignal): Promise<JsonWebKey> {
  let why = '';
  for (let i = 0; i < ATTEMPTS; i++) {
    const [p, q] = await Promise.all([rsaPrime(bits / 2, signal), rsaPrime(bits / 2, signal)]);
    let jwk: JsonWebKey;
    try {
      jwk = rsaJwkFromPrimes(p, q, bits);
    } catch (err) {
      why = (err as Error).message; // primes too close together (odds about 2^-100): draw again
      continue;
    }
    await checkSignsAndVerifies(createPrivateKey({ key: jwk, format: 'jwk' }), 'RSA');
    return jwk;
  }
  throw new Error(`no sound ${bits}-bit RSA key in ${ATTEMPTS} draws: ${why}`);
}
