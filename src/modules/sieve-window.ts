// The sieve of the host-key prime search: which of the candidates start + i·step (0 ≤ i < SIEVE_WINDOW) an odd
// prime below 2^17 divides. The per-prime work (a residue, an inverse, the strikes) runs as WebAssembly, which
// is machine code from the first call: a boot sieves three or four windows, each cold, and the same loops in
// JavaScript spent most of ~10 ms per window in the interpreter, on the main thread the boot needs.
//
// The residues of start (and of the step) modulo each sieve prime come in two steps: BigInt divisions by the
// products of three sieve primes (each below 2^53, so exact as a double), then the kernel reduces those
// doubles by each prime.
import { ODD_PRIME_HALF_GAPS_BASE64 } from './sieve-primes';
import { op, writeWasmModule, type WasmFunction } from '../util/wasm-module-writer';

/** How many candidates one window covers. */
export const SIEVE_WINDOW = 1 << 12;

/** The kernel's memory: the primes (u32), the residues of start and of the step per product (f64), the struck flags (u8). */
const PRIMES_AT = 0;
const START_RESTS_AT = 1 << 16;
const STEP_RESTS_AT = START_RESTS_AT + (1 << 15);
const STRUCK_AT = STEP_RESTS_AT + (1 << 15);
const MEMORY_PAGES = 3; // 192 KiB: 12250 primes take 49 000 bytes, 4084 residues 32 672 bytes each

/** Locals of the strike function, after its parameters (0: how many primes, 1: whether the step is 2). */
const J = 2; // the prime's index
const P = 3; // the prime
const GROUP_BYTE = 4; // where its product's residue is: 8·floor(j/3)
const START_REST = 5; // start mod p
const STEP_REST = 6; // step mod p
const INVERSE = 7; // (step mod p)⁻¹ mod p
const K = 8; // index of the next candidate p divides
const R0 = 9; // extended Euclid's remainders and coefficients
const R1 = 10;
const S0 = 11;
const S1 = 12;
const QUOTIENT = 13;
const SPARE = 14;

/** f64 residue at ADDRESS (a product's) reduced modulo the prime in P, as an i32. */
const restModP = (address: number): number[] => [...op.localGet(GROUP_BYTE), ...op.f64Load(address), ...op.i64TruncF64U, ...op.localGet(P), ...op.i64ExtendI32U, ...op.i64RemU, ...op.i32WrapI64];

/**
 * strike(count, stepIsTwo): for each of the first COUNT primes p, sets struck[k] = 1 for every k < SIEVE_WINDOW
 * with start + k·step ≡ 0 (mod p): k ≡ -start·step⁻¹, found by the extended Euclidean algorithm (or (p+1)/2 for
 * a step of 2). A prime dividing the step divides every candidate or none.
 */
const STRIKE: WasmFunction = {
  name: 'strike',
  params: ['i32', 'i32'],
  results: [],
  locals: ['i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32', 'i32'],
  body: [
    ...op.block,
    ...op.loop,
    ...op.localGet(J), ...op.localGet(0), ...op.i32GeU, ...op.brIf(1),
    ...op.localGet(J), ...op.i32Const(4), ...op.i32Mul, ...op.i32Load(PRIMES_AT), ...op.localSet(P),
    ...op.localGet(J), ...op.i32Const(3), ...op.i32DivU, ...op.i32Const(8), ...op.i32Mul, ...op.localSet(GROUP_BYTE),
    ...restModP(START_RESTS_AT), ...op.localSet(START_REST),
    ...op.localGet(1),
    ...op.if, ...op.i32Const(2), ...op.localSet(STEP_REST),
    ...op.else, ...restModP(STEP_RESTS_AT), ...op.localSet(STEP_REST),
    ...op.end,
    ...op.block, // the prime's own work; br 0 skips to the next prime
    ...op.localGet(STEP_REST), ...op.i32Eqz,
    ...op.if,
    ...op.localGet(START_REST), ...op.i32Eqz,
    ...op.if, ...op.i32Const(STRUCK_AT), ...op.i32Const(1), ...op.i32Const(SIEVE_WINDOW), ...op.memoryFill, ...op.end,
    ...op.br(1),
    ...op.end,
    ...op.localGet(1),
    ...op.if,
    ...op.localGet(P), ...op.i32Const(1), ...op.i32Add, ...op.i32Const(1), ...op.i32ShrU, ...op.localSet(INVERSE),
    ...op.else,
    // Extended Euclid on (step mod p, p); every value stays below 2p, so i32 holds it.
    ...op.localGet(STEP_REST), ...op.localSet(R0), ...op.localGet(P), ...op.localSet(R1),
    ...op.i32Const(1), ...op.localSet(S0), ...op.i32Const(0), ...op.localSet(S1),
    ...op.block,
    ...op.loop,
    ...op.localGet(R1), ...op.i32Eqz, ...op.brIf(1),
    ...op.localGet(R0), ...op.localGet(R1), ...op.i32DivU, ...op.localSet(QUOTIENT),
    ...op.localGet(R0), ...op.localGet(QUOTIENT), ...op.localGet(R1), ...op.i32Mul, ...op.i32Sub, ...op.localSet(SPARE),
    ...op.localGet(R1), ...op.localSet(R0), ...op.localGet(SPARE), ...op.localSet(R1),
    ...op.localGet(S0), ...op.localGet(QUOTIENT), ...op.localGet(S1), ...op.i32Mul, ...op.i32Sub, ...op.localSet(SPARE),
    ...op.localGet(S1), ...op.localSet(S0), ...op.localGet(SPARE), ...op.localSet(S1),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.localGet(S0), ...op.localGet(P), ...op.i32RemS, ...op.localGet(P), ...op.i32Add, ...op.localGet(P), ...op.i32RemU, ...op.localSet(INVERSE),
    ...op.end,
    // k = (p - start mod p)·inverse mod p, below 2^34 before the reduction: in i64.
    ...op.localGet(P), ...op.localGet(START_REST), ...op.i32Sub, ...op.i64ExtendI32U,
    ...op.localGet(INVERSE), ...op.i64ExtendI32U, ...op.i64Mul,
    ...op.localGet(P), ...op.i64ExtendI32U, ...op.i64RemU, ...op.i32WrapI64, ...op.localSet(K),
    ...op.block,
    ...op.loop,
    ...op.localGet(K), ...op.i32Const(SIEVE_WINDOW), ...op.i32GeU, ...op.brIf(1),
    ...op.localGet(K), ...op.i32Const(1), ...op.i32Store8(STRUCK_AT),
    ...op.localGet(K), ...op.localGet(P), ...op.i32Add, ...op.localSet(K),
    ...op.br(0),
    ...op.end,
    ...op.end,
    ...op.end, // the prime's own work
    ...op.localGet(J), ...op.i32Const(1), ...op.i32Add, ...op.localSet(J),
    ...op.br(0),
    ...op.end,
    ...op.end,
  ],
};

interface SieveKernel {
  primes: number[];
  /** The products of three consecutive sieve primes (the last may hold fewer). */
  products: bigint[];
  startRests: Float64Array;
  stepRests: Float64Array;
  struck: Uint8Array;
  strike: (count: number, stepIsTwo: number) => void;
}

let kernel: SieveKernel | undefined;

function makeKernel(): SieveKernel {
  const halfGaps = Buffer.from(ODD_PRIME_HALF_GAPS_BASE64, 'base64');
  const instance = new WebAssembly.Instance(new WebAssembly.Module(writeWasmModule(MEMORY_PAGES, [STRIKE])));
  const memory = instance.exports.memory as WebAssembly.Memory;
  const primeTable = new Uint32Array(memory.buffer, PRIMES_AT, halfGaps.length);
  const primes: number[] = new Array(halfGaps.length);
  let prime = 1;
  for (let i = 0; i < halfGaps.length; i++) primeTable[i] = primes[i] = prime += 2 * (halfGaps[i] as number);
  const products: bigint[] = [];
  for (let i = 0; i < primes.length; i += 3) products.push(BigInt((primes[i] as number) * (primes[i + 1] ?? 1) * (primes[i + 2] ?? 1)));
  return {
    primes,
    products,
    startRests: new Float64Array(memory.buffer, START_RESTS_AT, products.length),
    stepRests: new Float64Array(memory.buffer, STEP_RESTS_AT, products.length),
    struck: new Uint8Array(memory.buffer, STRUCK_AT, SIEVE_WINDOW),
    strike: instance.exports.strike as (count: number, stepIsTwo: number) => void,
  };
}

/** The sieve's primes: every odd prime below 2^17, in order. */
export function oddSievePrimes(): readonly number[] {
  return (kernel ??= makeKernel()).primes;
}

/** A search's step with its residues modulo the sieve's products, worked out once per search. */
export interface SieveStep {
  step: bigint;
  /** undefined for a step of 2, which the kernel handles without residues. */
  rests: Float64Array | undefined;
}

export function sieveStep(step: bigint): SieveStep {
  if (step === 2n) return { step, rests: undefined };
  const { products } = (kernel ??= makeKernel());
  return { step, rests: Float64Array.from(products, (product) => Number(step % product)) };
}

/** Sets STRUCK[i] (SIEVE_WINDOW flags) to 1 where a sieve prime divides start + i·step, to 0 elsewhere. */
export function strikeSievePrimeMultiples(start: bigint, step: SieveStep, struck: Uint8Array): void {
  const k = (kernel ??= makeKernel());
  const { products, startRests } = k;
  for (let g = 0; g < products.length; g++) startRests[g] = Number(start % (products[g] as bigint));
  if (step.rests) k.stepRests.set(step.rests);
  k.struck.fill(0);
  k.strike(k.primes.length, step.rests ? 0 : 1);
  // The kernel's memory is shared by every search; the caller's window outlives this call.
  struck.set(k.struck);
}
