// Deterministic pseudo-random numbers for tests (xorshift32), so that a failure can be replayed from its seed.

/**
 * The next 32-bit unsigned value of xorshift32 from SEED at each call; a zero seed (which would stay zero) becomes
 * ZERO_SEED_AS.
 */
export function xorshift32(seed: number, zeroSeedAs = 1): () => number {
  let x = seed >>> 0 || zeroSeedAs;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

/** Numbers in [0, 1) from xorshift32. */
export function seededRandom(seed: number, zeroSeedAs = 1): () => number {
  const next = xorshift32(seed, zeroSeedAs);
  return () => next() / 2 ** 32;
}
