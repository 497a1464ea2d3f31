// crc32 gives zlib's CRC-32, the value Python's binascii.crc32 gives, on every Node kiln runs under.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from '../../src/util/crc32';

test('crc32 matches the published check value and binascii.crc32 of a SmartOS frame body', () => {
  // The CRC-32 check value of '123456789' (the catalogue every CRC implementation is checked against).
  assert.equal(crc32('123456789'), 0xcbf43926);
  assert.equal(crc32(''), 0);
  // binascii.crc32(b'dc3f4a17 GET aG9zdG5hbWU=') & 0xffffffff, computed by CPython.
  assert.equal(crc32('dc3f4a17 GET aG9zdG5hbWU='), 1400907998);
  assert.equal(crc32(Buffer.from('dc3f4a17 GET aG9zdG5hbWU=')), 1400907998);
});
