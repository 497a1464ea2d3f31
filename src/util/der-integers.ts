// The INTEGERs of a DER structure in document order, descending into SEQUENCEs, BIT STRINGs and OCTET STRINGs
// that wrap further DER (as SPKI and PKCS#8 keys do). Enough to take DSA keys apart; not a general ASN.1 parser.

const SEQUENCE = 0x30;
const INTEGER = 0x02;
const BIT_STRING = 0x03;
const OCTET_STRING = 0x04;

function readLength(der: Uint8Array, at: number): [length: number, next: number] {
  const first = der[at];
  if (first === undefined) throw new Error('DER: truncated length');
  if (first < 0x80) return [first, at + 1];
  const count = first & 0x7f;
  if (count === 0 || count > 4) throw new Error(`DER: unsupported length form 0x${first.toString(16)}`);
  let length = 0;
  for (let i = 1; i <= count; i++) {
    const b = der[at + i];
    if (b === undefined) throw new Error('DER: truncated length');
    length = length * 256 + b;
  }
  return [length, at + 1 + count];
}

/** Unsigned big-endian magnitudes of every INTEGER, outermost first. */
export function derIntegers(der: Uint8Array): Buffer[] {
  const found: Buffer[] = [];
  const walk = (start: number, end: number): void => {
    let at = start;
    while (at < end) {
      const tag = der[at];
      const [length, body] = readLength(der, at + 1);
      if (body + length > end) throw new Error('DER: an element runs past its container');
      if (tag === INTEGER) found.push(Buffer.from(der.subarray(body, body + length)));
      else if (tag === SEQUENCE) walk(body, body + length);
      else if (tag === BIT_STRING && der[body] === 0 && der[body + 1] === INTEGER) walk(body + 1, body + length);
      else if (tag === OCTET_STRING && der[body] === INTEGER) walk(body, body + length);
      at = body + length;
    }
  };
  walk(0, der.length);
  return found;
}
