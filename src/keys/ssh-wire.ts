// The SSH wire encodings (RFC 4251) that OpenSSH's key formats are made of: length-prefixed strings, uint32s
// and mpints.

/** A uint32 length, then the bytes (a string is taken as UTF-8). */
export function sshString(data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([uint32(body.length), body]);
}

export function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** An unsigned big-endian integer as an SSH mpint: no leading zeros, one 0x00 when the top bit is set. */
export function sshMpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start++;
  const digits = unsigned.subarray(start);
  const body =
    digits.length > 0 && ((digits[0] as number) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), digits]) : digits;
  return sshString(body);
}
