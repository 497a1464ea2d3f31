// VMware cust.cfg to network config v1: cloud-init 22.4's output for its documented shapes, and errors that name the key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readCustSpec } from '../../src/config/vmware-cust-cfg';
import { convertVmwareImcNetwork } from '../../src/net/convert-vmware-imc';
import { NetworkConfigError } from '../../src/net/net-error';
import { ConfigError } from '../../src/util/errors';
import { FIXTURES } from './fixture-cases';

const spec = (name: string) => readCustSpec(readFileSync(join(FIXTURES, name, 'input.cfg'), 'utf8'), `${name}/input.cfg`);

test('the static two-NIC spec: no primary NIC, so every gateway is a route of metric 10000; IPv6 without gateway; DNS last', () => {
  assert.deepEqual(convertVmwareImcNetwork(spec('vmware-imc-static-2nic')), {
    version: 1,
    config: [
      {
        type: 'physical', name: 'NIC1', mac_address: '00:50:56:ab:10:01',
        subnets: [
          {
            control: 'auto', type: 'static', address: '10.40.12.21', netmask: '255.255.252.0',
            routes: [
              { destination: '10.40.12.0/22', type: 'route', gateway: '10.40.15.254', metric: 10000 },
              { destination: '10.40.12.0/22', type: 'route', gateway: '10.40.12.1', metric: 10000 },
            ],
          },
          { type: 'static6', address: 'fd00:40:12::21', netmask: '64' },
        ],
      },
      {
        type: 'physical', name: 'NIC2', mac_address: '00:50:56:ab:10:02',
        subnets: [{ control: 'auto', type: 'static', address: '192.168.30.5', netmask: '255.255.0.0', routes: [{ destination: '192.168.0.0/16', type: 'route', gateway: '192.168.0.1', metric: 10000 }] }],
      },
      { type: 'nameserver', address: ['10.40.0.53', '10.40.0.54'], search: ['example.internal', 'corp.example.internal'] },
    ],
  });
});

test('a primary NIC takes the gateway; the others get no route; IPv4_MODE=DISABLED ends as DHCP as in cloud-init', () => {
  const v1 = convertVmwareImcNetwork(spec('vmware-imc-primary'));
  assert.deepEqual(v1.config[0], { type: 'physical', name: 'NIC1', mac_address: '00:50:56:ab:30:01', subnets: [{ control: 'auto', type: 'static', address: '172.16.5.10', netmask: '255.255.255.0', gateway: '172.16.5.1' }] });
  assert.deepEqual((v1.config[1] as { subnets: unknown[] }).subnets[0], { control: 'auto', type: 'static', address: '172.16.6.10', netmask: '255.255.255.0' });
  assert.deepEqual((v1.config[2] as { subnets: unknown[] }).subnets, [{ control: 'auto', type: 'dhcp' }]);
});

test('the spec\'s other fields: hostname, domain, timezone, the password kept as given, DNS suffixes', () => {
  const s = spec('vmware-imc-dhcp-2nic');
  assert.equal(s.hostName, 'build7');
  assert.equal(s.domainName, 'example.internal');
  assert.equal(s.timezone, 'UTC');
  assert.equal(s.adminPassword, 'a2lsbi1pbWMK');
  assert.equal(s.resetPassword, false);
  assert.deepEqual(s.dnsSuffixes, ['example.internal']);
  assert.deepEqual(s.nameServers, []);
  assert.equal(s.nics[1]?.onboot, false);
});

test('MACs name the interfaces at boot; a MAC this machine lacks is an error naming the NIC', () => {
  const v1 = convertVmwareImcNetwork(spec('vmware-imc-dhcp-2nic'), new Map([['00:50:56:ab:20:01', 'ens192'], ['00:50:56:ab:20:02', 'ens224']]));
  assert.deepEqual(v1.config.slice(0, 2).map((c) => c.name), ['ens192', 'ens224']);
  assert.throws(() => convertVmwareImcNetwork(spec('vmware-imc-dhcp-2nic'), new Map([['00:50:56:ab:20:01', 'ens192']])), (e: unknown) => e instanceof NetworkConfigError && e.key === 'cust.cfg NIC2.MACADDR');
});

const BAD: Array<[string, string, RegExp]> = [
  ['two primaries', '[NIC-CONFIG]\nNICS = A,B\n[A]\nMACADDR = 00:00:00:00:00:0a\nPRIMARY = yes\n[B]\nMACADDR = 00:00:00:00:00:0b\nPRIMARY = true\n', /only one NIC may be PRIMARY, not A and B/],
  ['no NICs', '[NETWORK]\nHOSTNAME = x\n', /NIC-CONFIG.NICS.*no NICs/],
  ['bad netmask for a route', '[NIC-CONFIG]\nNICS = A\n[A]\nMACADDR = 00:00:00:00:00:0a\nBOOTPROTO = static\nIPADDR = 10.0.0.2\nNETMASK = 255.0.255.0\nGATEWAY = 10.0.0.1\n', /cust.cfg A.NETMASK.*'255.0.255.0' is not a netmask/],
  ['IPv6 address missing', '[NIC-CONFIG]\nNICS = A\n[A]\nMACADDR = 00:00:00:00:00:0a\nIPv6NETMASK|1 = 64\nIPv6ADDR|1 =\n', /A.IPv6ADDR\|1.*missing or empty/],
];
for (const [name, text, why] of BAD) {
  test(`bad spec: ${name}`, () => {
    assert.throws(() => convertVmwareImcNetwork(readCustSpec(text)), (e: unknown) => e instanceof NetworkConfigError && why.test(e.message));
  });
}

const BAD_INI: Array<[string, string, RegExp]> = [
  ['a NIC without MACADDR', '[NIC-CONFIG]\nNICS = NIC1\n[NIC1]\nONBOOT = yes\n', /\[NIC1\] has no MACADDR/],
  ['a key before any section', 'HOSTNAME = x\n', /cust.cfg:1: 'HOSTNAME' comes before any \[section\]/],
  ['a line that is not key = value', '[NETWORK]\njust words\n', /cust.cfg:2: not a 'key = value' line/],
  ['a key set twice', '[DNS]\nNAMESERVER|1 = 1.1.1.1\nNAMESERVER|1 = 8.8.8.8\n', /cust.cfg:3: 'NAMESERVER\|1' is set twice in \[DNS\]/],
  ['name servers not numbered from 1', '[DNS]\nNAMESERVER|2 = 1.1.1.1\n', /NAMESERVER\|1 is missing/],
  ['RESET not yes/no', '[PASSWORD]\nRESET = maybe\n', /PASSWORD RESET must be yes or no, not 'maybe'/],
];
for (const [name, text, why] of BAD_INI) {
  test(`bad cust.cfg: ${name}`, () => {
    assert.throws(() => readCustSpec(text), (e: unknown) => e instanceof ConfigError && why.test(e.message));
  });
}
