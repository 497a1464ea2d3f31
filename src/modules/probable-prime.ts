// Random probable primes for host keys, tested with as many Miller-Rabin rounds as their size needs.
//
// crypto.generatePrime and crypto.checkPrime cannot be told to test less: OpenSSL 3 runs at least 64
// Miller-Rabin rounds on every prime it accepts, whatever `checks` asks for, and those rounds are about half
// of a 1536-bit prime search. For random candidates far fewer rounds bound the error below 2^-128
// (Damgård, Landrock and Pomerance; OpenSSL 1.1.1, whose keys ssh-keygen made for years, ran 4 on 1536-bit
// candidates). Node has no Miller-Rabin round on its own, but an RSA public-key operation is the modular
// power it needs: with the candidate n as modulus and d, the odd part of n - 1, as exponent, encrypting a
// block a gives a^d mod n, and the round finishes with a few squarings.
//
// - The candidates: residue + k·step from a random start (step 2 for RSA's primes; 2q for DSA's p, which must
//   be 1 modulo q).
// - The sieve: candidates that no odd prime below 2^17 divides (sieve-window.ts). About one odd number in ten
//   survives; sieving this deep spares a 1536-bit search about ten modular powers against the first 2048
//   primes that OpenSSL sieves with.
// - The screening round: WebCrypto's RSA-OAEP encryption, which runs on the thread pool, so several searches
//   go on beside each other and beside the boot, a few candidates at a time. Its base is the OAEP-encoded
//   block, random and unknown to us; nearly every composite fails here.
// - The confirming rounds, on a candidate that passed: publicEncrypt without padding, on this thread (under
//   a millisecond each), with bases drawn uniformly from [2, n - 2], as the error bound assumes.
import { randomBytes, webcrypto } from 'node:crypto';
import { bigintFromBytes, bigintToBase64url } from '../util/bigint-bytes';
import { modularPower, randomBetween } from '../util/modular-arithmetic';
import { whenSlotFree } from './screening-slots';
import { SIEVE_WINDOW, sieveStep, strikeSievePrimeMultiples } from './sieve-window';

/** The smallest prime size this module makes: OAEP with SHA-1 needs a modulus of at least 42 bytes. */
const MIN_BITS = 512;
/** Screening rounds each search keeps asking for; screening-slots.ts bounds how many run at once in all. */
const IN_FLIGHT = 4;

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

/** ROUNDS rounds with uniformly drawn bases. */
function confirms(n: bigint, d: bigint, s: number, rounds: number): boolean {
  const power = modularPower(n, d);
  for (let i = 0; i < rounds; i++) {
    if (!passesRound(power(randomBetween(2n, n - 2n)), n, s)) return false;
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

/** Which numbers a search looks among: residue + k·step (step even, residue odd). */
export interface PrimeForm {
  step: bigint;
  residue: bigint;
}

const ODD: PrimeForm = { step: 2n, residue: 1n };

/**
 * Numbers of FORM with BITS bits, their top two bits set, that no sieve prime divides and ACCEPT takes, endlessly:
 * windows of SIEVE_WINDOW candidates, each from a new random start. Among odd numbers near 2^1536 one in ~532
 * is prime, so a window holds about 8 (none, once in ~2000 draws); among DSA's candidates (1 mod 2q, near
 * 2^1024) one in ~355, about 11.
 */
function* sievedCandidates(bits: number, form: PrimeForm, accept: (n: bigint) => boolean): Generator<bigint, never> {
  const step = sieveStep(form.step);
  const struck = new Uint8Array(SIEVE_WINDOW); // index i stands for start + i·step
  for (;;) {
    const low = randomStart(bits);
    const start = low + ((((form.residue - low) % form.step) + form.step) % form.step);
    strikeSievePrimeMultiples(start, step, struck);
    for (let k = 0; k < SIEVE_WINDOW; k++) {
      if (struck[k]) continue;
      const n = start + BigInt(k) * form.step;
      if (n >> BigInt(bits) !== 0n) break; // ran past BITS bits: draw a new start
      if (accept(n)) yield n;
    }
  }
}

export interface PrimeSearch {
  /** Only primes this holds for are returned (RSA's: p - 1 prime to e). */
  accept?: (n: bigint) => boolean;
  /** The progression searched (default: odd numbers). */
  form?: PrimeForm;
  /** Abandons the search: no further candidate is screened, and the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * A random probable prime of BITS bits with its top two bits set, of the search's form, which its ACCEPT takes.
 *
 * Up to IN_FLIGHT candidates are screened at a time, as screening slots come free: the thread pool goes on
 * with them while this thread is busy (a boot mostly makes synchronous system calls), and each turn of the
 * event loop collects every result that came in meanwhile. A round still running when a prime is found is
 * left to finish and ignored.
 */
export function randomProbablePrime(bits: number, search: PrimeSearch = {}): Promise<bigint> {
  if (!Number.isInteger(bits) || bits < MIN_BITS) return Promise.reject(new RangeError(`primes of ${bits} bits are not supported (at least ${MIN_BITS})`));
  const form = search.form ?? ODD;
  if (form.step <= 0n || form.step % 2n !== 0n || form.residue % 2n !== 1n) return Promise.reject(new RangeError('a prime search needs an even step and an odd residue'));
  const candidates = sievedCandidates(bits, form, search.accept ?? (() => true));
  const rounds = confirmingRounds(bits);
  return new Promise((resolve, reject) => {
    let settled = false;
    const screenNext = (release: () => void): void => {
      if (settled) return release();
      if (search.signal?.aborted) {
        settled = true;
        release();
        reject(search.signal.reason instanceof Error ? search.signal.reason : new Error('the prime search was abandoned'));
        return;
      }
      const n = candidates.next().value;
      const { d, s } = splitEven(n);
      screeningRound(n, d, s).then(
        (passed) => {
          release();
          if (settled) return;
          if (passed && confirms(n, d, s, rounds)) {
            settled = true;
            resolve(n);
          } else whenSlotFree(screenNext);
        },
        (err: unknown) => {
          release();
          if (settled) return;
          settled = true;
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    };
    for (let i = 0; i < IN_FLIGHT; i++) whenSlotFree(screenNext);
  });
}
