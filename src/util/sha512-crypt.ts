// SHA-512 crypt ("$6$", Drepper's SHA-crypt as glibc implements it), so kiln hashes passwords without any system tool.
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ROUNDS_DEFAULT = 5000;
const ROUNDS_MIN = 1000;
const ROUNDS_MAX = 999_999_999;
const SALT_MAX = 16;

/** The order in which digest bytes are taken, three at a time, for the final encoding. */
const ENCODE_ORDER: Array<[number, number, number]> = [
  [0, 21, 42], [22, 43, 1], [44, 2, 23], [3, 24, 45], [25, 46, 4], [47, 5, 26], [6, 27, 48],
  [28, 49, 7], [50, 8, 29], [9, 30, 51], [31, 52, 10], [53, 11, 32], [12, 33, 54], [34, 55, 13],
  [56, 14, 35], [15, 36, 57], [37, 58, 16], [59, 17, 38], [18, 39, 60], [40, 61, 19], [62, 20, 41],
];

function sha512(...parts: Buffer[]): Buffer {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** LEN bytes made of DIGEST repeated (the "P sequence" and "S sequence" of the spec). */
function repeatTo(digest: Buffer, len: number): Buffer {
  const out = Buffer.alloc(len);
  for (let off = 0; off < len; off += digest.length) digest.copy(out, off, 0, Math.min(digest.length, len - off));
  return out;
}

function encode24(b2: number, b1: number, b0: number, chars: number): string {
  let w = (b2 << 16) | (b1 << 8) | b0;
  let s = '';
  for (let i = 0; i < chars; i++) {
    s += ALPHABET[w & 0x3f];
    w >>= 6;
  }
  return s;
}

export interface Sha512CryptSettings {
  salt: string;
  /** Undefined means the default 5000, which is then left out of the result as glibc does. */
  rounds?: number;
}

/** Parses a "$6$[rounds=N$]salt[$hash]" setting string; salt is cut at 16 characters as glibc does. */
export function parseSha512Setting(setting: string): Sha512CryptSettings {
  if (!setting.startsWith('$6$')) throw new Error('a SHA-512 crypt setting starts with "$6$"');
  let rest = setting.slice(3);
  let rounds: number | undefined;
  const m = /^rounds=(\d+)\$/.exec(rest);
  if (m) {
    rounds = Math.min(ROUNDS_MAX, Math.max(ROUNDS_MIN, Number(m[1])));
    rest = rest.slice(m[0].length);
  }
  const salt = (rest.split('$')[0] ?? '').slice(0, SALT_MAX);
  return rounds === undefined ? { salt } : { salt, rounds };
}

/** The "$6$…" hash of PASSWORD with the given salt and rounds. */
export function sha512Crypt(password: string | Uint8Array, settings: Sha512CryptSettings): string {
  const key = Buffer.from(password);
  const salt = Buffer.from(settings.salt.slice(0, SALT_MAX), 'utf8');
  const rounds = settings.rounds === undefined ? ROUNDS_DEFAULT : Math.min(ROUNDS_MAX, Math.max(ROUNDS_MIN, settings.rounds));

  const altResult = sha512(key, salt, key);
  const ctx = createHash('sha512');
  ctx.update(key);
  ctx.update(salt);
  let cnt = key.length;
  for (; cnt > 64; cnt -= 64) ctx.update(altResult);
  ctx.update(altResult.subarray(0, cnt));
  for (cnt = key.length; cnt > 0; cnt >>= 1) ctx.update(cnt & 1 ? altResult : key);
  let a = ctx.digest();

  const dp = createHash('sha512');
  for (let i = 0; i < key.length; i++) dp.update(key);
  const pSeq = repeatTo(dp.digest(), key.length);

  const ds = createHash('sha512');
  for (let i = 0; i < 16 + (a[0] as number); i++) ds.update(salt);
  const sSeq = repeatTo(ds.digest(), salt.length);

  for (let i = 0; i < rounds; i++) {
    const c = createHash('sha512');
    c.update(i & 1 ? pSeq : a);
    if (i % 3 !== 0) c.update(sSeq);
    if (i % 7 !== 0) c.update(pSeq);
    c.update(i & 1 ? a : pSeq);
    a = c.digest();
  }

  let out = '';
  for (const [x, y, z] of ENCODE_ORDER) out += encode24(a[x] as number, a[y] as number, a[z] as number, 4);
  out += encode24(0, 0, a[63] as number, 2);
  const roundsPart = settings.rounds === undefined ? '' : `rounds=${rounds}$`;
  return `$6$${roundsPart}${salt.toString('utf8')}$${out}`;
}

/** A fresh random 16-character salt from crypt's alphabet. */
export function randomSalt(length = SALT_MAX): string {
  const bytes = randomBytes(length);
  let s = '';
  for (const b of bytes) s += ALPHABET[b & 0x3f];
  return s;
}

/** Hashes PASSWORD with a fresh random salt and the default rounds, as chpasswd/openssl passwd -6 would. */
export function hashPasswordSha512(password: string): string {
  return sha512Crypt(password, { salt: randomSalt() });
}

/** Checks PASSWORD against a "$6$" HASH. */
export function verifySha512(password: string, hash: string): boolean {
  return sha512Crypt(password, parseSha512Setting(hash)) === hash;
}
