// isIpInNetwork and gatewayIsOnLink: whether a gateway lies in a subnet, as Python's `ip_address(a) in
// ip_network(n, strict=False)` answers (cloud-init 25.1's is_ip_in_subnet), and the on-link flag derived from it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatewayIsOnLink, isIpInNetwork } from '../../src/net/ip';

test('an address is in a network by prefix or dotted mask, host bits of the network ignored', () => {
  assert.equal(isIpInNetwork('10.0.0.1', '10.0.0.5/24'), true);
  assert.equal(isIpInNetwork('10.0.1.1', '10.0.0.5/24'), false);
  assert.equal(isIpInNetwork('10.0.0.1', '10.0.0.5/255.255.255.0'), true);
  assert.equal(isIpInNetwork('192.168.1.1', '10.0.0.5/0'), true);
  assert.equal(isIpInNetwork('2001:db8::1', '2001:db8::5/64'), true);
  assert.equal(isIpInNetwork('2001:db8:1::1', '2001:db8::5/64'), false);
});

test('a network without a prefix is one address; IPv4 and IPv6 never contain each other', () => {
  assert.equal(isIpInNetwork('10.0.0.1', '10.0.0.1'), true);
  assert.equal(isIpInNetwork('10.0.0.2', '10.0.0.1'), false);
  assert.equal(isIpInNetwork('10.0.0.1', '2001:db8::5/64'), false);
  assert.equal(isIpInNetwork('::ffff:10.0.0.1', '10.0.0.0/8'), false);
});

test('what Python would reject is neither in nor out', () => {
  assert.equal(isIpInNetwork('not-an-ip', '10.0.0.5/24'), undefined);
  assert.equal(isIpInNetwork('10.0.0.1', '10.0.0.5/33'), undefined);
  assert.equal(isIpInNetwork('10.0.0.1', '10.0.0.5/24/1'), undefined);
});

test('a gateway outside its subnet is on-link; one inside, or one that cannot be checked, is not', () => {
  assert.equal(gatewayIsOnLink('10.99.0.1', '10.42.0.5/24'), true);
  assert.equal(gatewayIsOnLink('2001:db8:99::1', '2001:db8:43::5/64'), true);
  assert.equal(gatewayIsOnLink('10.42.0.1', '10.42.0.5/24'), false);
  assert.equal(gatewayIsOnLink('bogus', '10.42.0.5/24'), false);
});
