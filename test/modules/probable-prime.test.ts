// The prime search behind RSA host keys: its primes are primes by OpenSSL's own 64-round test and by
// `openssl prime`, have the size and top bits asked for, and the Miller-Rabin round's last step tells strong
// pseudoprimes from primes as the textbook examples say.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { checkPrimeSync, generatePrimeSync } from 'node:crypto';
import { test } from 'node:test';
import { confirmingRounds, passesRound, randomProbablePrime } from '../../src/modules/probable-prime';
import { endScreeningAhead, screenAhead, screenAwaited, screeningSlotsInUse } from '../../src/modules/screening-slots';
import { bigintFromBytes, bigintToBytes } from '../../src/util/bigint-bytes';
import { powMod } from '../helpers/pow-mod';
import { hasCommand, need } from '../helpers/requirements';

/** Does N pass the strong probable-prime test to base A (computed here by square-and-multiply)? */
function strongToBase(n: bigint, a: bigint): boolean {
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) [d, s] = [d >> 1n, s + 1];
  return passesRound(powMod(a, d, n), n, s);
}

test('the round: 2047 = 23·89 passes to base 2 but not 3, the Carmichael number 561 fails to base 2, primes pass every base', () => {
  assert.equal(strongToBase(2047n, 2n), true);
  assert.equal(strongToBase(2047n, 3n), false);
  assert.equal(strongToBase(561n, 2n), false);
  assert.equal(strongToBase(3215031751n, 2n) && strongToBase(3215031751n, 3n) && strongToBase(3215031751n, 5n) && strongToBase(3215031751n, 7n), true); // 151·751·28351
  assert.equal(strongToBase(3215031751n, 11n), false);
  for (const p of [1009n, 65537n, 2147483647n]) {
    for (const a of [2n, 3n, 5n, 7n, 11n, 1000n]) assert.equal(strongToBase(p, a), true, `${p} to base ${a}`);
  }
});

test('confirming rounds follow the size table (4 for the 1536-bit primes of RSA-3072, more for smaller)', () => {
  assert.equal(confirmingRounds(1536), 4);
  assert.equal(confirmingRounds(1024), 5);
  assert.equal(confirmingRounds(4096), 3);
  assert.equal(confirmingRounds(512), 5);
  assert.equal(confirmingRounds(256), 27);
});

test('primes of 512 and 1536 bits: exactly that many bits, top two bits set, prime by OpenSSL (64 rounds) and `openssl prime`', async (t) => {
  const canAsk = need(t, hasCommand('openssl'), 'openssl is needed as the second oracle');
  for (const bits of [512, 512, 512, 1536, 1536]) {
    const p = await randomProbablePrime(bits);
    assert.equal(p.toString(2).length, bits);
    assert.equal(p >> BigInt(bits - 2), 3n, 'top two bits');
    assert.equal(checkPrimeSync(p), true, `${p} is not prime`);
    if (canAsk) {
      const r = spawnSync('openssl', ['prime', p.toString()], { encoding: 'utf8' });
      assert.match(r.stdout, /is prime/, r.stdout + r.stderr);
    }
  }
});

test('the predicate chooses among primes, and sizes below 512 bits are refused', async () => {
  const p = await randomProbablePrime(512, { accept: (n) => n % 4n === 3n });
  assert.equal(p % 4n, 3n);
  await assert.rejects(randomProbablePrime(256), /256 bits/);
});

test('a search along residue + k·step: DSA-sized p ≡ 1 (mod 2q) and prime, a step some sieve primes divide, bad forms refused', async () => {
  const q = generatePrimeSync(160, { bigint: true });
  for (let i = 0; i < 3; i++) {
    const p = await randomProbablePrime(1024, { form: { step: 2n * q, residue: 1n } });
    assert.equal(p.toString(2).length, 1024);
    assert.equal(p % (2n * q), 1n);
    assert.equal(checkPrimeSync(p), true);
  }
  const step = 2n * 3n * 5n * 7n;
  const p = await randomProbablePrime(512, { form: { step, residue: 11n } });
  assert.equal(p % step, 11n);
  assert.equal(checkPrimeSync(p), true);
  await assert.rejects(randomProbablePrime(512, { form: { step: 3n, residue: 1n } }), /even step/);
  await assert.rejects(randomProbablePrime(512, { form: { step: 2n, residue: 0n } }), /odd residue/);
});

test('integers to and from fixed-length big-endian bytes', () => {
  assert.deepEqual([...bigintToBytes(258n, 4)], [0, 0, 1, 2]);
  assert.deepEqual([...bigintToBytes(0xabcn)], [0x0a, 0xbc]);
  assert.equal(bigintFromBytes(bigintToBytes(2n ** 200n + 7n, 40)), 2n ** 200n + 7n);
  assert.equal(bigintFromBytes(new Uint8Array(0)), 0n);
  assert.throws(() => bigintToBytes(2n ** 40n, 4), /does not fit/);
});

test('an abandoned search rejects and stops screening; searches together never screen more than three candidates at once', async () => {
  const stop = new AbortController();
  const abandoned = randomProbablePrime(1536, { signal: stop.signal });
  stop.abort(new Error('not needed after all'));
  await assert.rejects(abandoned, /not needed after all/);
  let most = 0;
  const watch = setInterval(() => (most = Math.max(most, screeningSlotsInUse())), 0);
  const found = await Promise.all([randomProbablePrime(1024), randomProbablePrime(1024), randomProbablePrime(1024), randomProbablePrime(512)]);
  clearInterval(watch);
  assert.equal(found.every((p) => checkPrimeSync(p)), true);
  assert.ok(most >= 1 && most <= 3, `at most three rounds at once, saw ${most}`);
  // Rounds still running when their search found its prime give their slots back as they end.
  for (let i = 0; i < 200 && screeningSlotsInUse() > 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(screeningSlotsInUse(), 0);
});

test('screening ahead of need runs up to twelve rounds at once; once awaited, no new round starts while three or more run', async () => {
  screenAhead();
  let most = 0;
  const watch = setInterval(() => (most = Math.max(most, screeningSlotsInUse())), 0);
  const searches = Promise.all([randomProbablePrime(1536), randomProbablePrime(1536), randomProbablePrime(1024)]);
  // Each search asks for four rounds at once: all twelve start now.
  assert.equal(screeningSlotsInUse(), 12);
  await new Promise((r) => setTimeout(r, 20));
  screenAwaited();
  // Rounds started before the switch end one by one; once three or fewer run, there are never more again.
  let fellToThree = false;
  let mostAfter = 0;
  const watchAfter = setInterval(() => {
    const now = screeningSlotsInUse();
    if (now <= 3) fellToThree = true;
    else if (fellToThree) mostAfter = Math.max(mostAfter, now);
  }, 0);
  const found = await searches;
  // The searches may all find their primes while rounds started ahead still run: keep watching
  // while those drain, so that the fall to three is seen whenever it happens.
  for (let i = 0; i < 200 && screeningSlotsInUse() > 0; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(watch);
  clearInterval(watchAfter);
  endScreeningAhead();
  assert.equal(found.every((p) => checkPrimeSync(p)), true);
  assert.ok(most <= 12, `at most twelve rounds at once ahead of need, saw ${most}`);
  assert.equal(screeningSlotsInUse(), 0);
  assert.equal(fellToThree, true);
  assert.equal(mostAfter, 0, 'no round started beyond three once awaited');
});
