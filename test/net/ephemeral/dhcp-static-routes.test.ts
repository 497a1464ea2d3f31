// DHCP option 121 as the clients write it (cloud-init's parse_static_routes cases), and the ip commands a lease's
// routes become.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  leaseRouteSteps,
  parseHexRfc3442Routes,
  parseRfc3442Routes,
  parseUdhcpcStaticRoutes,
} from '../../../src/net/ephemeral/dhcp-static-routes';

test("dhclient's comma form, every prefix length class, and dhcpcd's dotted form", () => {
  assert.deepEqual(parseRfc3442Routes('32,169,254,169,254,130,56,248,255,0,130,56,240,1'), [
    { destination: '169.254.169.254/32', gateway: '130.56.248.255' },
    { destination: '0.0.0.0/0', gateway: '130.56.240.1' },
  ]);
  assert.deepEqual(parseRfc3442Routes('24.191.168.128 192.168.128.1,0 192.168.128.1'), [
    { destination: '191.168.128.0/24', gateway: '192.168.128.1' },
    { destination: '0.0.0.0/0', gateway: '192.168.128.1' },
  ]);
  assert.deepEqual(
    parseRfc3442Routes('27,10,0,0,32,10,0,0,1;'),
    [{ destination: '10.0.0.32/27', gateway: '10.0.0.1' }],
    'a trailing semicolon is dropped',
  );
  assert.deepEqual(parseRfc3442Routes('16,172,16,10,0,0,1'), [{ destination: '172.16.0.0/16', gateway: '10.0.0.1' }]);
  assert.deepEqual(parseRfc3442Routes('8,10,10,0,0,1'), [{ destination: '10.0.0.0/8', gateway: '10.0.0.1' }]);
  assert.deepEqual(parseRfc3442Routes(''), []);
});

test('a malformed route ends the list, the routes before it kept, the reason told', () => {
  const problems: string[] = [];
  assert.deepEqual(parseRfc3442Routes('0,10,0,0,1,33,1,2,3,4,5,6,7,8,9', problems), [
    { destination: '0.0.0.0/0', gateway: '10.0.0.1' },
  ]);
  assert.match(problems[0] ?? '', /invalid prefix length '33'/);
  assert.deepEqual(parseRfc3442Routes('32,169,254,169', problems), []);
  assert.match(problems[1] ?? '', /needs 9 octets, 4 remain/);
  assert.deepEqual(parseRfc3442Routes('8,10,0,0,999,1', problems), []);
  assert.match(problems[2] ?? '', /non-octet/);
  assert.deepEqual(parseHexRfc3442Routes('zz:1', problems), []);
  assert.match(problems[3] ?? '', /not colon-separated hex/);
});

test("udhcpc's staticroutes pairs", () => {
  assert.deepEqual(parseUdhcpcStaticRoutes('169.254.169.254/32 10.0.0.1 0.0.0.0/0 10.0.0.1'), [
    { destination: '169.254.169.254/32', gateway: '10.0.0.1' },
    { destination: '0.0.0.0/0', gateway: '10.0.0.1' },
  ]);
  const problems: string[] = [];
  assert.deepEqual(parseUdhcpcStaticRoutes('10.0.0.0/8 10.0.0.1 bogus 1.2.3.4', problems), [
    { destination: '10.0.0.0/8', gateway: '10.0.0.1' },
  ]);
  assert.equal(problems.length, 1);
});

test('route steps: option 121 appended (on-link for 0.0.0.0), else a host route to the router, then the default', () => {
  assert.deepEqual(
    leaseRouteSteps('eth0', '10.0.0.9', '10.0.0.1', [
      { destination: '10.5.0.0/16', gateway: '0.0.0.0' },
      { destination: '0.0.0.0/0', gateway: '10.5.0.1' },
    ]),
    [
      {
        add: ['ip', '-4', 'route', 'append', '10.5.0.0/16', 'dev', 'eth0'],
        undo: ['ip', '-4', 'route', 'del', '10.5.0.0/16', 'dev', 'eth0'],
      },
      {
        add: ['ip', '-4', 'route', 'append', '0.0.0.0/0', 'via', '10.5.0.1', 'dev', 'eth0'],
        undo: ['ip', '-4', 'route', 'del', '0.0.0.0/0', 'via', '10.5.0.1', 'dev', 'eth0'],
      },
    ],
  );
  assert.deepEqual(
    leaseRouteSteps('eth0', '10.0.0.9', '192.0.2.1', []).map((s) => s.add.join(' ')),
    ['ip -4 route add 192.0.2.1 dev eth0 src 10.0.0.9', 'ip -4 route add default via 192.0.2.1 dev eth0'],
  );
  assert.deepEqual(leaseRouteSteps('eth0', '10.0.0.9', undefined, []), []);
});
