// The prime search's sieve (WebAssembly): its table is every odd prime below 2^17, and the candidates it strikes
// are exactly those a sieve prime divides, for RSA's odd numbers, DSA's 1 + k·2q and a step sieve primes divide.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { oddSievePrimes, SIEVE_WINDOW, sieveStep, strikeSievePrimeMultiples } from '../../src/modules/sieve-window';
import { bigintFromBytes } from '../../src/util/bigint-bytes';

test('the sieve table is every odd prime below 2^17, as Eratosthenes finds them', () => {
  const limit = 1 << 17;
  const composite = new Uint8Array(limit);
  const expected: number[] = [];
  for (let i = 3; i < limit; i += 2) {
    if (composite[i]) continue;
    expected.push(i);
    for (let j = i * i; j < limit; j += 2 * i) composite[j] = 1;
  }
  assert.deepEqual(oddSievePrimes(), expected);
});

/** The flags by trial division of every candidate by every sieve prime (slow, plain). */
function expectedStrikes(start: bigint, step: bigint): Uint8Array {
  const primes = oddSievePrimes().map(BigInt);
  const struck = new Uint8Array(SIEVE_WINDOW);
  for (let i = 0; i < SIEVE_WINDOW; i++) {
    const n = start + BigInt(i) * step;
    struck[i] = primes.some((p) => n % p === 0n) ? 1 : 0;
  }
  return struck;
}

const randomOdd = (bits: number): bigint => (bigintFromBytes(randomBytes(bits / 8)) | (1n << BigInt(bits - 1))) | 1n;
/** A BITS-bit start that is 1 modulo STEP: no prime dividing the step divides a candidate (as DSA's 1 + k·2q). */
const oneModulo = (bits: number, step: bigint): bigint => (randomOdd(bits) / step) * step + 1n;
const dsaStep = 2n * randomOdd(160);

for (const [name, start, step, survivors] of [
  ['odd 1536-bit candidates (RSA)', randomOdd(1536), 2n, true],
  ['odd 512-bit candidates', randomOdd(512), 2n, true],
  ['1 + k·2q with a 160-bit q (DSA)', oneModulo(1024, dsaStep), dsaStep, true],
  ['a step that sieve primes divide (3·5·131071·2)', oneModulo(1024, 2n * 3n * 5n * 131071n), 2n * 3n * 5n * 131071n, true],
  ['a start that the step shares a sieve prime with: every candidate struck', 7n * randomOdd(600), 2n * 7n, false],
] as const) {
  test(`the sieve strikes exactly the candidates a sieve prime divides: ${name}`, () => {
    const struck = new Uint8Array(SIEVE_WINDOW).fill(7); // stale flags must all be overwritten
    strikeSievePrimeMultiples(start, sieveStep(step), struck);
    const expected = expectedStrikes(start, step);
    const wrong = [...struck.keys()].filter((i) => struck[i] !== expected[i]);
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${SIEVE_WINDOW} flags differ`);
    const left = struck.filter((f) => f === 0).length;
    // About one candidate in ten survives when no sieve prime divides them all.
    if (survivors) assert.ok(left > SIEVE_WINDOW / 20 && left < SIEVE_WINDOW / 4, `${left} survivors`);
    else assert.equal(left, 0);
  });
}

test('two searches with different steps do not disturb each other (the kernel memory is shared)', () => {
  const a = sieveStep(2n * randomOdd(160));
  const b = sieveStep(2n);
  const startA = randomOdd(1024);
  const startB = randomOdd(1536);
  const first = new Uint8Array(SIEVE_WINDOW);
  strikeSievePrimeMultiples(startA, a, first);
  strikeSievePrimeMultiples(startB, b, new Uint8Array(SIEVE_WINDOW));
  const again = new Uint8Array(SIEVE_WINDOW);
  strikeSievePrimeMultiples(startA, a, again);
  assert.deepEqual(again, first);
});
