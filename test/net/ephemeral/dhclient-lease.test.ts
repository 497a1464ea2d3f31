// The dhclient lease file reader: the newest lease wins, masks become prefixes, bad leases are EphemeralNetworkErrors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskToPrefix as netMaskToPrefix } from '../../../src/net/ip';
import { parseDhclientLease } from '../../../src/net/ephemeral/dhclient-lease';
import { EphemeralNetworkError } from '../../../src/net/ephemeral/ephemeral-network-error';

/** A lease's subnet-mask goes through the one maskToPrefix with cloud-init's ipv4_mask_to_net_prefix rule. */
const maskToPrefix = (mask: string) => netMaskToPrefix(mask, 'ipv4');

test('the last lease block of the file is the one applied, with its mask as a prefix and its routers', () => {
  const text = [
    'lease {\n  interface "eth0";\n  fixed-address 10.0.0.5;\n  option subnet-mask 255.255.0.0;\n  option routers 10.0.0.1;\n}',
    'lease {\n  interface "eth0";\n  fixed-address 10.199.0.13;\n  option subnet-mask 255.255.255.0;\n  option routers 10.199.0.1,10.199.0.2;\n  option dhcp-server-identifier 10.199.0.1;\n  renew 4 2026/11/26 08:20:00;\n}',
  ].join('\n');
  assert.deepEqual(parseDhclientLease(text, 'x.lease'), {
    interface: 'eth0',
    address: '10.199.0.13',
    prefix: 24,
    routers: ['10.199.0.1', '10.199.0.2'],
    staticRoutes: [],
    routeProblems: [],
  });
  assert.deepEqual(parseDhclientLease('lease { fixed-address 192.0.2.4;\n}', 'x'), {
    address: '192.0.2.4',
    prefix: 32,
    routers: [],
    staticRoutes: [],
    routeProblems: [],
  });
});

test('masks: contiguous ones only', () => {
  assert.equal(maskToPrefix('255.255.255.0'), 24);
  assert.equal(maskToPrefix('255.255.255.255'), 32);
  assert.equal(maskToPrefix('0.0.0.0'), 0);
  assert.equal(maskToPrefix('255.0.255.0'), undefined);
  assert.equal(maskToPrefix('255.255.256.0'), undefined);
});

test("a lease's mask follows cloud-init's ipv4_mask_to_net_prefix (ip_network('0.0.0.0/MASK')): a prefix length of 0-32 too, never an IPv6 mask", () => {
  assert.equal(maskToPrefix('24'), 24);
  assert.equal(maskToPrefix('33'), undefined);
  assert.equal(maskToPrefix('ffff:ffff::'), undefined);
  assert.equal(
    parseDhclientLease('lease {\n  fixed-address 10.0.0.2;\n  option subnet-mask 24;\n}', '/run/l').prefix,
    24,
  );
  // A network config's mask (net/'s default rule) may be IPv6.
  assert.equal(netMaskToPrefix('ffff:ffff::'), 32);
});

test('no lease, no address, or a bad mask is an EphemeralNetworkError naming the file', () => {
  assert.throws(
    () => parseDhclientLease('', '/run/l'),
    (e: unknown) => e instanceof EphemeralNetworkError && /\/run\/l holds no lease/.test(e.message),
  );
  assert.throws(() => parseDhclientLease('lease {\n  option routers 10.0.0.1;\n}', '/run/l'), /no IPv4 fixed-address/);
  assert.throws(
    () => parseDhclientLease('lease {\n  fixed-address 10.0.0.2;\n  option subnet-mask 255.0.255.0;\n}', '/run/l'),
    /not a valid netmask/,
  );
});

test("option 121 under the name Debian declares, dhcpcd's name, or dhclient's unknown-121 hex", () => {
  const lease = (line: string) =>
    parseDhclientLease(`lease {\n  fixed-address 10.0.0.9;\n  option routers 10.0.0.1;\n  ${line}\n}`, 'x');
  const want = [
    { destination: '169.254.169.254/32', gateway: '10.0.0.1' },
    { destination: '0.0.0.0/0', gateway: '10.0.0.1' },
  ];
  assert.deepEqual(
    lease('option rfc3442-classless-static-routes 32,169,254,169,254,10,0,0,1,0,10,0,0,1;').staticRoutes,
    want,
  );
  assert.deepEqual(lease('option classless-static-routes 32.169.254.169.254 10.0.0.1,0 10.0.0.1;').staticRoutes, want);
  assert.deepEqual(lease('option unknown-121 20:a9:fe:a9:fe:a:0:0:1:0:a:0:0:1;').staticRoutes, want);
  const cut = lease('option rfc3442-classless-static-routes 32,169,254,169,254,10,0,0,1,24,10,1;');
  assert.deepEqual(cut.staticRoutes, want.slice(0, 1), 'the routes before a malformed one are kept');
  assert.match(cut.routeProblems[0] ?? '', /end inside a \/24 route/);
});
