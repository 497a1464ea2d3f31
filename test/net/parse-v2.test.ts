// Network config v2 into the model as cloud-init 25.1's network_state does: interface DNS stays the interface's,
// routes keep their metric and MTU, ethernets keep `optional`.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readYaml } from '../../src/config/read-yaml';
import { NetworkConfigError } from '../../src/net/net-error';
import { parseNetworkDocument } from '../../src/net/parse-network-config';

const parse = (yaml: string) => parseNetworkDocument(readYaml(yaml, 'v2.yaml'));

test("an interface's nameservers are that interface's only, not the global DNS (25.1; 22.4 made them global too)", () => {
  const ns = parse(`network:
  version: 2
  ethernets:
    eth0: {dhcp4: true, nameservers: {addresses: [10.0.0.53], search: [a.example]}}
    eth1: {dhcp4: true, nameservers: {addresses: [10.0.1.53]}}
`);
  assert.deepEqual(ns.dns, { nameservers: [], search: [] });
  assert.deepEqual(ns.interfaces.get('eth0')?.dns, { nameservers: ['10.0.0.53'], search: ['a.example'] });
  assert.deepEqual(ns.interfaces.get('eth1')?.dns, { nameservers: ['10.0.1.53'], search: [] });
});

test("nameservers without addresses: a warning, and (as in cloud-init) the section's later interface DNS is not applied", () => {
  const ns = parse(`network:
  version: 2
  ethernets:
    eth0: {dhcp4: true, nameservers: {addresses: [10.0.0.53]}}
    eth1: {dhcp4: true, nameservers: {search: [only-search.example]}}
    eth2: {dhcp4: true, nameservers: {addresses: [10.0.2.53]}}
  bonds:
    bond0: {interfaces: [], dhcp4: true, nameservers: {addresses: [10.0.3.53]}}
`);
  assert.deepEqual(ns.interfaces.get('eth0')?.dns, { nameservers: ['10.0.0.53'], search: [] });
  assert.equal(ns.interfaces.get('eth1')?.dns, undefined);
  assert.equal(ns.interfaces.get('eth2')?.dns, undefined);
  assert.deepEqual(ns.interfaces.get('bond0')?.dns, { nameservers: ['10.0.3.53'], search: [] });
  assert.equal(ns.warnings.length, 1);
  assert.match(ns.warnings[0] as string, /network\.ethernets\.eth1\.nameservers: no addresses/);
});

test('nameservers that are not lists of strings are errors naming the key', () => {
  assert.throws(
    () =>
      parse(
        'network:\n  version: 2\n  ethernets:\n    eth0: {dhcp4: true, nameservers: {addresses: {a: 10.0.0.53}}}\n',
      ),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'network.ethernets.eth0.nameservers.addresses',
  );
  assert.throws(
    () => parse('network:\n  version: 2\n  ethernets:\n    eth0: {dhcp4: true, nameservers: [10.0.0.53]}\n'),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'network.ethernets.eth0.nameservers',
  );
});

test('routes keep metric and mtu; ethernets keep optional', () => {
  const ns = parse(`network:
  version: 2
  ethernets:
    eth0:
      optional: true
      addresses: [10.0.0.2/24]
      routes: [{to: 10.9.0.0/16, via: 10.0.0.1, metric: 50, mtu: 1400}]
    eth1: {dhcp4: true}
`);
  const eth0 = ns.interfaces.get('eth0');
  assert.equal(eth0?.optional, true);
  assert.equal(ns.interfaces.get('eth1')?.optional, undefined);
  assert.deepEqual(
    eth0?.subnets[0]?.routes.map((r) => [r.network, r.prefix, r.gateway, r.metric, r.mtu]),
    [['10.9.0.0', 16, '10.0.0.1', 50, 1400]],
  );
});
