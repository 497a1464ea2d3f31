// The SSH wire encodings, byte for byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sshMpint, sshString, uint32 } from '../../src/keys/ssh-wire';

test('mpints: leading zeros dropped, a zero byte added before a set top bit, zero is empty', () => {
  assert.deepEqual([...sshMpint(Buffer.from([0, 0, 0x12]))], [0, 0, 0, 1, 0x12]);
  assert.deepEqual([...sshMpint(Buffer.from([0x80, 1]))], [0, 0, 0, 3, 0, 0x80, 1]);
  assert.deepEqual([...sshMpint(Buffer.from([0, 0]))], [0, 0, 0, 0]);
});

test('strings are length-prefixed UTF-8 or bytes; uint32s are big-endian', () => {
  assert.deepEqual([...sshString('é')], [0, 0, 0, 2, 0xc3, 0xa9]);
  assert.deepEqual([...sshString(Buffer.from([7]))], [0, 0, 0, 1, 7]);
  assert.deepEqual([...uint32(0x01020304)], [1, 2, 3, 4]);
});
