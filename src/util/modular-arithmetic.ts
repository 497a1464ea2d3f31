// Modular arithmetic on BigInts for key generation: uniform random residues, and modular powers done by
// OpenSSL (an RSA public-key operation without padding is exactly base^exponent mod modulus).
import { constants, createPublicKey, publicEncrypt, randomBytes } from 'node:crypto';
import { bigintFromBytes, bigintToBase64url, bigintToBytes, bitLength } from './bigint-bytes';

/** A uniform random integer in [low, high]. */
export function randomBetween(low: bigint, high: bigint): bigint {
  const span = high - low + 1n;
  const bits = bitLength(span);
  const bytes = Math.ceil(bits / 8);
  const excess = BigInt(bytes * 8 - bits);
  for (;;) {
    const r = bigintFromBytes(randomBytes(bytes)) >> excess;
    if (r < span) return low + r;
  }
}

/**
 * base ↦ base^EXPONENT mod MODULUS, by OpenSSL on this thread (under a millisecond at 1536 bits). MODULUS must be
 * odd and at least 512 bits, EXPONENT positive and below MODULUS; each base must lie in [0, MODULUS). Not
 * constant-time: for public values and for candidates, not for secret exponents.
 */
export function modularPower(modulus: bigint, exponent: bigint): (base: bigint) => bigint {
  const key = createPublicKey({ key: { kty: 'RSA', n: bigintToBase64url(modulus), e: bigintToBase64url(exponent) }, format: 'jwk' });
  const length = Math.ceil(bitLength(modulus) / 8);
  return (base) => bigintFromBytes(publicEncrypt({ key, padding: constants.RSA_NO_PADDING }, bigintToBytes(base, length)));
}
