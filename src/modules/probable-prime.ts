// Random probable primes for RSA keys, tested with as many Miller-Rabin rounds as their size needs.
//
// crypto.generatePrime and crypto.checkPrime cannot be told to test less: OpenSSL 3 runs at least 64
// Miller-Rabin rounds on every prime it accepts, whatever `checks` asks for, and those rounds are about half
// of a 1536-bit prime search. For random candidates far fewer rounds bound the error below 2^-128
// (Damgård, Landrock and Pomerance; OpenSSL 1.1.1, whose keys ssh-keygen made for years, ran 4 on 1536-bit
// candidates). Node has no Miller-Rabin round on its own, but an RSA public-key operation is the modular
// power it needs: with the candidate n as modulus and d, the odd part of n - 1, as exponent, encrypting a
// block a gives a^d mod n, and the round finishes with a few squarings.
//
// - The sieve: candidates start + 0, 2, 4, … that no prime below 17,864 divides (the first 2048 primes, as
//   OpenSSL sieves). About one odd number in nine survives.
// - The screening round: WebCrypto's RSA-OAEP encryption, which runs on the thread pool, so the searches for
//   p and q go on beside each other and beside the boot, a few candidates at a time. Its base is the
//   OAEP-encoded block, random and unknown to us; nearly every composite fails here.
// - The confirming rounds, on a candidate that passed: publicEncrypt without padding, on this thread (under
//   a millisecond each), with bases drawn uniformly from [2, n - 2], as the error bound assumes.
import { constants, createPublicKey, type KeyObject, publicEncrypt, randomBytes, webcrypto } from 'node:crypto';
import { bigintFromBytes, bigintToBase64url, bigintToBytes, bitLength } from '../util/bigint-bytes';

/** The smallest prime size this module makes: OAEP with SHA-1 needs a modulus of at least 42 bytes. */
const MIN_BITS = 512;
const SIEVE_LIMIT = 17_864;
/**
 * How far past a random start the sieve looks before drawing a new start. Primes near 2^1536 are ~1065 apart,
 * so this window holds about 8 (none, once in ~2000 draws); a wider one costs more striking than it saves.
 */
const SCAN_SPAN = 1 << 13;
/** Screening rounds queued on the thread pool at once, for each prime searched. */
const IN_FLIGHT = 4;

/** The primes below SIEVE_LIMIT, by Eratosthenes. */
function smallPrimes(): number[] {
  const composite = new Uint8Array(SIEVE_LIMIT);
  const primes: number[] = [];
  for (let i = 2; i < SIEVE_LIMIT; i++) {
    if (composite[i]) continue;
    primes.push(i);
    for (let j = i * i; j < SIEVE_LIMIT; j += i) composite[j] = 1;
  }
  return primes;
}

let sievePrimes: number[] | undefined;

/** Confirming rounds for a random candidate of BITS bits: the table OpenSSL 1.1.1 used (error below 2^-128 from 1345 bits). */
export function confirmingRounds(bits: number): number {
  if (bits >= 3747) return 3;
  if (bits >= 1345) return 4;
  if (bits >= 476) return 5;
  if (bits >= 400) return 6;
  if (bits >= 347) return 7;
  if (bits >= 308) return 8;
  return 27;
}

/** n - 1 = 2^s · d with d odd. */
function splitEven(n: bigint): { d: bigint; s: number } {
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  return { d, s };
}

/** The end of a Miller-Rabin round given x = a^d mod n: does n pass as a strong probable prime to base a? */
export function passesRound(x: bigint, n: bigint, s: number): boolean {
  if (x === 1n || x === n - 1n) return true;
  for (let r = 1; r < s; r++) {
    x = (x * x) % n;
    if (x === n - 1n) return true;
    if (x === 1n) return false;
  }
  return false;
}

/** One round with a random base unknown to us, on the thread pool. */
async function screeningRound(n: bigint, d: bigint, s: number): Promise<boolean> {
  const key = await webcrypto.subtle.importKey('jwk', { kty: 'RSA', n: bigintToBase64url(n), e: bigintToBase64url(d), ext: true }, { name: 'RSA-OAEP', hash: 'SHA-1' }, false, ['encrypt']);
  const x = bigintFromBytes(new Uint8Array(await webcrypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, new Uint8Array(0))));
  return passesRound(x, n, s);
}

/** A uniform random integer in [low, high]. */
function randomBetween(low: bigint, high: bigint): bigint {
  const span = high - low + 1n;
  const bits = bitLength(span);
  const bytes = Math.ceil(bits / 8);
  const excess = BigInt(bytes * 8 - bits);
  for (;;) {
    const r = bigintFromBytes(randomBytes(bytes)) >> excess;
    if (r < span) return low + r;
  }
}

/** ROUNDS rounds with uniformly drawn bases. */
function confirms(n: bigint, d: bigint, s: number, rounds: number): boolean {
  const key: KeyObject = createPublicKey({ key: { kty: 'RSA', n: bigintToBase64url(n), e: bigintToBase64url(d) }, format: 'jwk' });
  const length = Math.ceil(bitLength(n) / 8);
  for (let i = 0; i < rounds; i++) {
    const a = randomBetween(2n, n - 2n);
    const x = bigintFromBytes(publicEncrypt({ key, padding: constants.RSA_NO_PADDING }, bigintToBytes(a, length)));
    if (!passesRound(x, n, s)) return false;
  }
  return true;
}

/** A random odd BITS-bit number with its top two bits set (so that the product of two has exactly 2·BITS bits). */
function randomStart(bits: number): bigint {
  const bytes = randomBytes(Math.ceil(bits / 8));
  let n = bigintFromBytes(bytes) >> BigInt(bytes.length * 8 - bits);
  n |= (3n << BigInt(bits - 2)) | 1n;
  return n;
}

/** Odd BITS-bit numbers with their top two bits set that no sieve prime divides and ACCEPT takes, endlessly. */
function* sievedCandidates(bits: number, accept: (n: bigint) => boolean): Generator<bigint, never> {
  sievePrimes ??= smallPrimes();
  const primes = sievePrimes;
  const struck = new Uint8Array(SCAN_SPAN / 2); // index i stands for start + 2i
  for (;;) {
    const start = randomStart(bits);
    struck.fill(0);
    for (const p of primes) {
      // The first even offset that lands on a multiple of p, then every 2p after it.
      let offset = (p - Number(start % BigInt(p))) % p;
      if (offset % 2) offset += p;
      for (let i = offset / 2; i < struck.length; i += p) struck[i] = 1;
    }
    for (let i = 0; i < struck.length; i++) {
      if (struck[i]) continue;
      const n = start + BigInt(2 * i);
      if (n >> BigInt(bits) !== 0n) break; // ran past BITS bits: draw a new start
      if (accept(n)) yield n;
    }
  }
}

/**
 * A random probable prime of BITS bits with its top two bits set, for which ACCEPT (when given) holds.
 *
 * IN_FLIGHT candidates are screened at a time: the thread pool goes on with them while this thread is busy
 * (a boot mostly makes synchronous system calls), and each turn of the event loop collects every result
 * that came in meanwhile. The rounds still running when a prime is found are left to finish and ignored.
 */
export function randomProbablePrime(bits: number, accept: (n: bigint) => boolean = () => true): Promise<bigint> {
  if (!Number.isInteger(bits) || bits < MIN_BITS) return Promise.reject(new RangeError(`primes of ${bits} bits are not supported (at least ${MIN_BITS})`));
  const candidates = sievedCandidates(bits, accept);
  const rounds = confirmingRounds(bits);
  return new Promise((resolve, reject) => {
    let settled = false;
    const screenNext = (): void => {
      const n = candidates.next().value;
      const { d, s } = splitEven(n);
      screeningRound(n, d, s).then(
        (passed) => {
          if (settled) return;
          if (passed && confirms(n, d, s, rounds)) {
            settled = true;
            resolve(n);
          } else screenNext();
        },
        (err: unknown) => {
          if (settled) return;
          settled = true;
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    };
    for (let i = 0; i < IN_FLIGHT; i++) screenNext();
  });
}
