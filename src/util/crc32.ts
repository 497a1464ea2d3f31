// CRC-32 (zlib's, as Python's binascii.crc32) of some bytes, from zlib itself: node:zlib's crc32 where the Node has it
// (22.2+), else the CRC a gzip member's trailer carries.
import * as zlib from 'node:zlib';

type Crc32 = (data: Uint8Array | string) => number;

/**
 * The executables run Node 22 (zlib.crc32); the test runner may be an older Node, where the same checksum is
 * read from the trailer of a gzip member zlib made of the data (RFC 1952: CRC-32 then length, little-endian).
 */
export function crc32(data: Uint8Array | string): number {
  const native = (zlib as unknown as { crc32?: Crc32 }).crc32;
  if (typeof native === 'function') return native(data) >>> 0;
  const member = zlib.gzipSync(typeof data === 'string' ? Buffer.from(data, 'utf8') : data, { level: 0 });
  return member.readUInt32LE(member.length - 8);
}
