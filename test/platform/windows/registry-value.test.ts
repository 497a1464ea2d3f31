// The byte encoding of registry values, as RegSetValueExW and RegQueryValueExW exchange them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  REG_TYPES,
  decodeRegValue,
  encodeRegValue,
  type RegValue,
} from '../../../src/platform/windows/win32/registry-value';

const cases: RegValue[] = [
  { type: 'REG_SZ', data: 'Cloudbase-Init ünïcode' },
  { type: 'REG_EXPAND_SZ', data: '%SystemRoot%\\System32' },
  { type: 'REG_DWORD', data: 0xfffffffe },
  { type: 'REG_QWORD', data: 2n ** 40n + 5n },
  { type: 'REG_MULTI_SZ', data: ['C:\\pagefile.sys 0 0', 'D:\\pagefile.sys 0 0'] },
  { type: 'REG_BINARY', data: Uint8Array.from([0, 1, 2, 255]) },
];

for (const value of cases) {
  test(`${value.type} round-trips`, () => {
    const bytes = encodeRegValue(value);
    assert.deepEqual(decodeRegValue(REG_TYPES[value.type], bytes), value);
  });
}

test('strings carry their terminating NULs as Windows expects', () => {
  assert.deepEqual([...encodeRegValue({ type: 'REG_SZ', data: 'A' })], [0x41, 0, 0, 0]);
  assert.deepEqual(
    [...encodeRegValue({ type: 'REG_MULTI_SZ', data: ['A', 'B'] })],
    [0x41, 0, 0, 0, 0x42, 0, 0, 0, 0, 0],
  );
  assert.deepEqual([...encodeRegValue({ type: 'REG_DWORD', data: 1 })], [1, 0, 0, 0]);
});

test('an empty REG_MULTI_SZ decodes to no strings', () => {
  assert.deepEqual(decodeRegValue(REG_TYPES.REG_MULTI_SZ, Buffer.from([0, 0])), { type: 'REG_MULTI_SZ', data: [] });
});
