// The dhclient lease file reader: the newest lease wins, masks become prefixes, bad leases are SourceErrors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskToPrefix, parseDhclientLease } from '../../src/sources/dhclient-lease';
import { SourceError } from '../../src/sources/source-error';

test('the last lease block of the file is the one applied, with its mask as a prefix and its routers', () => {
  const text = [
    'lease {\n  interface "eth0";\n  fixed-address 10.0.0.5;\n  option subnet-mask 255.255.0.0;\n  option routers 10.0.0.1;\n}',
    'lease {\n  interface "eth0";\n  fixed-address 10.199.0.13;\n  option subnet-mask 255.255.255.0;\n  option routers 10.199.0.1,10.199.0.2;\n  option dhcp-server-identifier 10.199.0.1;\n  renew 4 2026/11/26 08:20:00;\n}',
  ].join('\n');
  assert.deepEqual(parseDhclientLease(text, 'x.lease'), { interface: 'eth0', address: '10.199.0.13', prefix: 24, routers: ['10.199.0.1', '10.199.0.2'] });
  assert.deepEqual(parseDhclientLease('lease { fixed-address 192.0.2.4;\n}', 'x'), { address: '192.0.2.4', prefix: 32, routers: [] });
});

test('masks: contiguous ones only', () => {
  assert.equal(maskToPrefix('255.255.255.0'), 24);
  assert.equal(maskToPrefix('255.255.255.255'), 32);
  assert.equal(maskToPrefix('0.0.0.0'), 0);
  assert.equal(maskToPrefix('255.0.255.0'), undefined);
  assert.equal(maskToPrefix('255.255.256.0'), undefined);
});

test('no lease, no address, or a bad mask is a SourceError naming the file', () => {
  assert.throws(() => parseDhclientLease('', '/run/l'), (e: unknown) => e instanceof SourceError && /\/run\/l holds no lease/.test(e.message));
  assert.throws(() => parseDhclientLease('lease {\n  option routers 10.0.0.1;\n}', '/run/l'), /no IPv4 fixed-address/);
  assert.throws(() => parseDhclientLease('lease {\n  fixed-address 10.0.0.2;\n  option subnet-mask 255.0.255.0;\n}', '/run/l'), /not a valid netmask/);
});
