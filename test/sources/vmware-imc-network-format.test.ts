// VMware cust.cfg to network config v2: cloud-init 25.1's output for its documented shapes, and errors that name the
// key.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readCustSpec } from '../../src/config/vmware-cust-cfg';
import { convertVmwareImcNetwork } from '../../src/sources/vmware/imc-network-format';
import { NetworkConfigError } from '../../src/net/net-error';
import { ConfigError } from '../../src/util/errors';
import { FIXTURES } from '../net/fixture-cases';

const spec = (name: string) =>
  readCustSpec(readFileSync(join(FIXTURES, name, 'input.cfg'), 'utf8'), `${name}/input.cfg`);

test("the static two-NIC spec: no primary NIC, so every gateway (IPv4 and IPv6) is a route to its own network; the DNS is each NIC's; ONBOOT is wake-on-LAN", () => {
  const dns = { search: ['example.internal', 'corp.example.internal'], addresses: ['10.40.0.53', '10.40.0.54'] };
  assert.deepEqual(convertVmwareImcNetwork(spec('vmware-imc-static-2nic')), {
    version: 2,
    ethernets: {
      NIC1: {
        match: { macaddress: '00:50:56:ab:10:01' },
        'set-name': 'NIC1',
        wakeonlan: true,
        dhcp4: false,
        dhcp6: false,
        addresses: ['10.40.12.21/22', 'fd00:40:12::21/64'],
        routes: [
          { to: '10.40.12.0/22', via: '10.40.15.254' },
          { to: '10.40.12.0/22', via: '10.40.12.1' },
          { to: 'fd00:40:12::/64', via: 'fd00:40:12::1' },
        ],
        nameservers: dns,
      },
      NIC2: {
        match: { macaddress: '00:50:56:ab:10:02' },
        'set-name': 'NIC2',
        wakeonlan: true,
        dhcp4: false,
        addresses: ['192.168.30.5/16'],
        routes: [{ to: '192.168.0.0/16', via: '192.168.0.1' }],
        nameservers: dns,
      },
    },
  });
});

test('a primary NIC takes the gateway as its default route; the others get no route; IPv4_MODE=DISABLED is DHCP besides the static address', () => {
  const { ethernets } = convertVmwareImcNetwork(spec('vmware-imc-primary'));
  const dns = { addresses: ['172.16.5.53'] };
  assert.deepEqual(ethernets.NIC1, {
    match: { macaddress: '00:50:56:ab:30:01' },
    'set-name': 'NIC1',
    wakeonlan: true,
    dhcp4: false,
    addresses: ['172.16.5.10/24'],
    routes: [{ to: '0.0.0.0/0', via: '172.16.5.1' }],
    nameservers: dns,
  });
  assert.deepEqual(ethernets.NIC2, {
    match: { macaddress: '00:50:56:ab:30:02' },
    'set-name': 'NIC2',
    wakeonlan: true,
    dhcp4: false,
    dhcp6: false,
    addresses: ['172.16.6.10/24', '2001:db8:6::10/64', '2001:db8:7::10/80'],
    nameservers: dns,
  });
  assert.deepEqual(ethernets.NIC3, {
    match: { macaddress: '00:50:56:ab:30:03' },
    'set-name': 'NIC3',
    wakeonlan: true,
    dhcp4: true,
    'dhcp4-overrides': { 'use-dns': false },
    addresses: ['172.16.7.10/24'],
    nameservers: dns,
  });
});

test("a primary NIC's IPv6 gateway is its IPv6 default route; DHCP NICs ignore the DHCP server's DNS when the spec has its own", () => {
  const text =
    '[NIC-CONFIG]\nNICS = A,B\n[A]\nMACADDR = 00:00:00:00:00:0a\nPRIMARY = yes\nBOOTPROTO = static\nIPADDR = 10.0.0.2\nIPv6ADDR|1 = 2001:db8::2\nIPv6NETMASK|1 = ffff:ffff:ffff:ffff::\nIPv6GATEWAY|1 = 2001:db8::1\n[B]\nMACADDR = 00:00:00:00:00:0b\nBOOTPROTO = dhcp\n[DNS]\nSUFFIX|1 = x.example\n';
  const { ethernets } = convertVmwareImcNetwork(readCustSpec(text));
  assert.deepEqual(ethernets.A, {
    match: { macaddress: '00:00:00:00:00:0a' },
    'set-name': 'A',
    wakeonlan: false,
    dhcp4: false,
    dhcp6: false,
    addresses: ['10.0.0.2/32', '2001:db8::2/64'],
    routes: [{ to: '::/0', via: '2001:db8::1' }],
    nameservers: { search: ['x.example'] },
  });
  assert.deepEqual(ethernets.B, {
    match: { macaddress: '00:00:00:00:00:0b' },
    'set-name': 'B',
    wakeonlan: false,
    dhcp4: true,
    'dhcp4-overrides': { 'use-dns': false },
    nameservers: { search: ['x.example'] },
  });
});

test("the spec's other fields: hostname, domain, timezone, the password kept as given, DNS suffixes", () => {
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
  const v2 = convertVmwareImcNetwork(
    spec('vmware-imc-dhcp-2nic'),
    new Map([
      ['00:50:56:ab:20:01', 'ens192'],
      ['00:50:56:ab:20:02', 'ens224'],
    ]),
  );
  assert.deepEqual(
    Object.entries(v2.ethernets).map(([name, e]) => [name, e['set-name']]),
    [
      ['ens192', 'ens192'],
      ['ens224', 'ens224'],
    ],
  );
  assert.throws(
    () => convertVmwareImcNetwork(spec('vmware-imc-dhcp-2nic'), new Map([['00:50:56:ab:20:01', 'ens192']])),
    (e: unknown) => e instanceof NetworkConfigError && e.key === 'cust.cfg NIC2.MACADDR',
  );
});

const BAD: Array<[string, string, RegExp]> = [
  [
    'two primaries',
    '[NIC-CONFIG]\nNICS = A,B\n[A]\nMACADDR = 00:00:00:00:00:0a\nPRIMARY = yes\n[B]\nMACADDR = 00:00:00:00:00:0b\nPRIMARY = true\n',
    /only one NIC may be PRIMARY, not A and B/,
  ],
  ['no NICs', '[NETWORK]\nHOSTNAME = x\n', /NIC-CONFIG.NICS.*no NICs/],
  [
    'bad netmask for a route',
    '[NIC-CONFIG]\nNICS = A\n[A]\nMACADDR = 00:00:00:00:00:0a\nBOOTPROTO = static\nIPADDR = 10.0.0.2\nNETMASK = 255.0.255.0\nGATEWAY = 10.0.0.1\n',
    /cust.cfg A.NETMASK.*'255.0.255.0' is not a netmask/,
  ],
  [
    'IPv6 address missing',
    '[NIC-CONFIG]\nNICS = A\n[A]\nMACADDR = 00:00:00:00:00:0a\nIPv6NETMASK|1 = 64\nIPv6ADDR|1 =\n',
    /A.IPv6ADDR\|1.*missing or empty/,
  ],
  [
    'IPv6 netmask missing',
    '[NIC-CONFIG]\nNICS = A\n[A]\nMACADDR = 00:00:00:00:00:0a\nIPv6ADDR|1 = 2001:db8::2\n',
    /A.IPv6NETMASK\|1.*missing or empty/,
  ],
  [
    'IPv6 gateway not IPv6',
    '[NIC-CONFIG]\nNICS = A\n[A]\nMACADDR = 00:00:00:00:00:0a\nIPv6ADDR|1 = 2001:db8::2\nIPv6NETMASK|1 = 64\nIPv6GATEWAY|1 = 10.0.0.1\n',
    /A.IPv6GATEWAY\|1.*'10.0.0.1' is not an IPv6 address/,
  ],
];
for (const [name, text, why] of BAD) {
  test(`bad spec: ${name}`, () => {
    assert.throws(
      () => convertVmwareImcNetwork(readCustSpec(text)),
      (e: unknown) => e instanceof NetworkConfigError && why.test(e.message),
    );
  });
}

const BAD_INI: Array<[string, string, RegExp]> = [
  ['a NIC without MACADDR', '[NIC-CONFIG]\nNICS = NIC1\n[NIC1]\nONBOOT = yes\n', /\[NIC1\] has no MACADDR/],
  ['a key before any section', 'HOSTNAME = x\n', /cust.cfg:1: 'HOSTNAME' comes before any \[section\]/],
  ['a line that is not key = value', '[NETWORK]\njust words\n', /cust.cfg:2: not a 'key = value' line/],
  [
    'a key set twice',
    '[DNS]\nNAMESERVER|1 = 1.1.1.1\nNAMESERVER|1 = 8.8.8.8\n',
    /cust.cfg:3: 'NAMESERVER\|1' is set twice in \[DNS\]/,
  ],
  ['name servers not numbered from 1', '[DNS]\nNAMESERVER|2 = 1.1.1.1\n', /NAMESERVER\|1 is missing/],
  ['RESET not yes/no', '[PASSWORD]\nRESET = maybe\n', /PASSWORD RESET must be yes or no, not 'maybe'/],
];
for (const [name, text, why] of BAD_INI) {
  test(`bad cust.cfg: ${name}`, () => {
    assert.throws(
      () => readCustSpec(text),
      (e: unknown) => e instanceof ConfigError && why.test(e.message),
    );
  });
}
