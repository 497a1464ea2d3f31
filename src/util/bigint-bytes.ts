// Unsigned big-endian integers as bytes and as JWK's base64url, for the key arithmetic done with BigInt.

/** How many bits N (not negative) takes, without leading zeros. */
export function bitLength(n: bigint): number {
  return n.toString(2).length;
}

export function bigintFromBytes(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

/** N as an unsigned big-endian integer of exactly LENGTH bytes (or as few as it needs when LENGTH is absent). */
export function bigintToBytes(n: bigint, length?: number): Buffer {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  const bytes = Buffer.from(hex, 'hex');
  if (length === undefined || bytes.length === length) return bytes;
  if (bytes.length > length) throw new RangeError(`${bytes.length}-byte integer does not fit in ${length} bytes`);
  return Buffer.concat([Buffer.alloc(length - bytes.length), bytes]);
}

/** N as JWK writes integers: unsigned big-endian, base64url. */
export function bigintToBase64url(n: bigint): string {
  return bigintToBytes(n).toString('base64url');
}
