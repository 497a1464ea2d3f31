// A few DER encodings (INTEGER, OCTET STRING, SEQUENCE, a fixed OID): enough to hand OpenSSL a key it has no
// JWK form for. Not a general ASN.1 writer.
import { bigintToBytes } from './bigint-bytes';

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function derElement(tag: number, body: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(body.length), body]);
}

/** A non-negative INTEGER: big-endian, with a zero byte in front when the top bit is set. */
export function derInteger(n: bigint): Buffer {
  if (n < 0n) throw new RangeError('only non-negative DER integers are written');
  const bytes = bigintToBytes(n);
  const body = bytes.length === 0 || ((bytes[0] as number) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes;
  return derElement(0x02, body);
}

export function derOctetString(body: Uint8Array): Buffer {
  return derElement(0x04, body);
}

export function derSequence(...items: Uint8Array[]): Buffer {
  return derElement(0x30, Buffer.concat(items));
}

/** id-dsa, 1.2.840.10040.4.1, already encoded. */
export const DER_OID_DSA = Buffer.from([0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01]);
