// The network-manager renderer where no fixture can hold cloud-init 25.1's output: inputs on which 25.1 itself fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNetworkInput } from '../../src/net/parse-network-config';
import { renderNetworkManager } from '../../src/net/render/network-manager';

test("a v2 default IPv6 route with a metric ahead of the interface's IPv6 section gets [ipv6] route-metric (25.1 fails with KeyError 'ipv6')", () => {
  const ns = parseNetworkInput('v2', {
    network: {
      version: 2,
      ethernets: {
        eth0: {
          addresses: ['10.62.0.5/24', '2001:db8:62::5/64'],
          routes: [{ to: '::/0', via: '2001:db8:62::1', metric: 70 }],
        },
      },
    },
  });
  const file = renderNetworkManager(ns).find((f) => f.path.endsWith('/cloud-init-eth0.nmconnection'));
  assert.ok(file, 'eth0 keyfile');
  const ipv6 = file.content.split('\n[ipv6]\n')[1]?.split('\n\n')[0];
  assert.equal(
    ipv6,
    'route-metric=70\nroute1=::/0,2001:db8:62::1\nmethod=manual\nmay-fail=false\naddress1=2001:db8:62::5/64',
  );
  assert.doesNotMatch(file.content.split('\n[ipv6]\n')[0] as string, /route/, 'nothing of the IPv6 route in [ipv4]');
});
