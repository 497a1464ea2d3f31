// SOCKADDR bytes for the IP Helper calls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressBytes, sockaddrText } from '../../../src/platform/windows/win32/sockaddr';

function sockaddr(family: number, bytes: Uint8Array): Buffer {
  const b = Buffer.alloc(28);
  b.writeUInt16LE(family, 0);
  Buffer.from(bytes).copy(b, family === 2 ? 4 : 8);
  return b;
}

test('IPv4 and IPv6 addresses round-trip through SOCKADDR bytes', () => {
  assert.deepEqual([...addressBytes('10.0.0.5', 'ipv4')], [10, 0, 0, 5]);
  assert.deepEqual(sockaddrText(sockaddr(2, addressBytes('192.168.1.254', 'ipv4'))), {
    address: '192.168.1.254',
    family: 'ipv4',
  });
  for (const a of ['2001:db8::5', '::', '::1', 'fe80::1:2:3:4', '2001:db8:0:1:1:1:1:1', '2001:db8::1:0:0:1']) {
    assert.deepEqual(sockaddrText(sockaddr(23, addressBytes(a, 'ipv6'))), { address: a, family: 'ipv6' });
  }
  assert.equal(sockaddrText(Buffer.alloc(28)), undefined);
});

test('bad addresses are rejected with the address named', () => {
  assert.throws(() => addressBytes('10.0.0.256', 'ipv4'), /'10\.0\.0\.256' is not an IPv4 address/);
  assert.throws(() => addressBytes('1:2:3', 'ipv6'), /'1:2:3' is not an IPv6 address/);
  assert.throws(() => addressBytes('1::2::3', 'ipv6'), /not an IPv6 address/);
});
