// The temporary DHCP lease: the commands run through the platform, and release always follows use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ok, scriptedPlatform } from '../../sources/scripted-platform';
import {
  LinuxEphemeralDhcp,
  randomLinkLocalAddress,
  type EphemeralNetwork,
} from '../../../src/net/ephemeral/ephemeral-network';
import { withEphemeralNetwork } from '../../../src/sources/ephemeral-lease';
import { EphemeralNetworkError, HostNetworkRefused } from '../../../src/net/ephemeral/ephemeral-network-error';
import { Logger } from '../../../src/util/log';

const DHCLIENT_LEASE =
  'lease {\n  interface "ens3";\n  fixed-address 10.0.0.9;\n  option subnet-mask 255.255.255.0;\n  option routers 10.0.0.1;\n}\n';
const UDHCPC_REPORT =
  'kiln-lease ip=10.0.0.9\nkiln-lease mask=24\nkiln-lease router=10.0.0.1\nkiln-lease staticroutes=\n';

/**
 * Records commands; answers `command -v` per the tools given, dhclient and udhcpc with CODE (and LEASE / REPORT), `ip
 * -o link show` with LINK LIST, a link-local `ip addr add` with ADD CODE, `ip route show` with ROUTES.
 */
function recordingPlatform(
  tools: string[],
  dhcpCode = 0,
  nics = ['lo', 'ens3'],
  linkList = '',
  addCode = 0,
  lease = DHCLIENT_LEASE,
  report = UDHCPC_REPORT,
  routes = '',
) {
  return scriptedPlatform({
    nics,
    readTextIfExists: (p) => (p.endsWith('.lease') ? lease : undefined),
    answer: (line) => {
      const probe = /command -v (\S+)/.exec(line);
      if (probe) return { code: tools.includes(probe[1] as string) ? 0 : 1, stdout: '', stderr: '' };
      if (line.startsWith('dhclient -1') || line.startsWith('udhcpc'))
        return {
          code: dhcpCode,
          stdout: line.startsWith('udhcpc') && !dhcpCode ? report : '',
          stderr: dhcpCode ? 'No DHCPOFFERS received.' : '',
        };
      if (line === 'ip route show 0.0.0.0/0') return ok(routes);
      if (line === 'ip -o link show') return ok(linkList);
      if (line.startsWith('ip -4 addr add 169.254.'))
        return { code: addCode, stdout: '', stderr: addCode ? 'RTNETLINK answers: Operation not permitted' : '' };
      return undefined;
    },
  });
}

const log = new Logger().for('test');

test('dhclient: one-shot lease with no distro hook, applied from the lease file, released with -r and an address flush', async () => {
  const { platform, runs, removed } = recordingPlatform(['dhclient']);
  const net = new LinuxEphemeralDhcp({ platform, log });
  const result = await withEphemeralNetwork(net, async () => {
    assert.ok(runs.some((r) => r.startsWith('dhclient -1') && r.includes(' -sf /bin/true ') && r.endsWith('ens3')));
    assert.ok(runs.includes('ip -4 addr add 10.0.0.9/24 broadcast + dev ens3'));
    // As cloud-init: an on-link host route to the router first, then the default route through it.
    const host = runs.indexOf('ip -4 route add 10.0.0.1 dev ens3 src 10.0.0.9');
    assert.ok(host > 0 && runs.indexOf('ip -4 route add default via 10.0.0.1 dev ens3') > host, runs.join('\n'));
    return 'crawled';
  });
  assert.equal(result, 'crawled');
  assert.ok(runs.some((r) => r.startsWith('dhclient -r') && r.includes(' -sf /bin/true ') && r.endsWith('ens3')));
  assert.ok(runs.includes('ip -4 addr flush dev ens3'));
  const undo = runs.indexOf('ip -4 route del default dev ens3');
  assert.ok(
    undo > 0 && runs.indexOf('ip -4 route del 10.0.0.1 dev ens3 src 10.0.0.9') > undo,
    'the routes go, newest first',
  );
  assert.deepEqual(removed, [
    '/run/kiln-ephemeral-dhcp.ens3.lease',
    '/run/kiln-ephemeral-dhcp.ens3.lease',
    '/run/kiln-ephemeral-dhcp.ens3.pid',
  ]);
});

test('udhcpc when dhclient is missing; a failed lease is an EphemeralNetworkError naming the interface', async () => {
  const ok = recordingPlatform(['udhcpc']);
  const lease = await new LinuxEphemeralDhcp({ platform: ok.platform, log, interface: 'eth1' }).up();
  assert.ok(
    ok.runs.some(
      (r) =>
        r.startsWith('udhcpc ') && r.includes(' -i eth1 ') && r.includes(' -s /run/kiln-ephemeral-dhcp.eth1.script'),
    ),
  );
  assert.deepEqual(ok.written, ['/run/kiln-ephemeral-dhcp.eth1.script']);
  assert.ok(
    ok.runs.some((r) => r.startsWith('udhcpc ') && r.includes(' -O staticroutes ')),
    'option 121 is asked for',
  );
  assert.ok(ok.runs.includes('ip -4 addr add 10.0.0.9/24 broadcast + dev eth1'), 'kiln applies what the hook reported');
  assert.ok(ok.runs.includes('ip -4 route add default via 10.0.0.1 dev eth1'));
  await lease.release();
  const bad = recordingPlatform(['dhclient'], 2);
  await assert.rejects(
    new LinuxEphemeralDhcp({ platform: bad.platform, log }).up(),
    (e: unknown) => e instanceof EphemeralNetworkError && /ens3/.test(e.message),
  );
  const none = recordingPlatform(['dhclient'], 0, ['lo']);
  await assert.rejects(new LinuxEphemeralDhcp({ platform: none.platform, log }).up(), /no network interface/);
});

test('option 121: its routes are appended and the router ignored (RFC 3442), with dhclient and with udhcpc, and the lease carries them (Azure tells its primary NIC by them); released', async () => {
  const withRoutes = DHCLIENT_LEASE.replace(
    '}',
    '  option rfc3442-classless-static-routes 32,169,254,169,254,10,0,0,1,0,10,0,0,1;\n}',
  );
  const dh = recordingPlatform(['dhclient'], 0, ['lo', 'ens3'], '', 0, withRoutes);
  const lease = await new LinuxEphemeralDhcp({ platform: dh.platform, log }).up();
  assert.ok(dh.runs.includes('ip -4 route append 169.254.169.254/32 via 10.0.0.1 dev ens3'));
  assert.ok(dh.runs.includes('ip -4 route append 0.0.0.0/0 via 10.0.0.1 dev ens3'));
  assert.ok(!dh.runs.some((r) => r.startsWith('ip -4 route add')), 'no router route when option 121 is given');
  assert.deepEqual(lease.staticRoutes, [
    { destination: '169.254.169.254/32', gateway: '10.0.0.1' },
    { destination: '0.0.0.0/0', gateway: '10.0.0.1' },
  ]);
  await lease.release();
  assert.ok(
    dh.runs.indexOf('ip -4 route del 0.0.0.0/0 via 10.0.0.1 dev ens3') <
      dh.runs.indexOf('ip -4 route del 169.254.169.254/32 via 10.0.0.1 dev ens3'),
  );
  const report = UDHCPC_REPORT.replace('staticroutes=', 'staticroutes=169.254.169.254/32 10.0.0.1 10.5.0.0/16 0.0.0.0');
  const u = recordingPlatform(['udhcpc'], 0, ['lo', 'ens3'], '', 0, DHCLIENT_LEASE, report);
  const uLease = await new LinuxEphemeralDhcp({ platform: u.platform, log }).up();
  assert.deepEqual(uLease.staticRoutes, [
    { destination: '169.254.169.254/32', gateway: '10.0.0.1' },
    { destination: '10.5.0.0/16', gateway: '0.0.0.0' },
  ]);
  await uLease.release();
  assert.ok(u.runs.includes('ip -4 route append 169.254.169.254/32 via 10.0.0.1 dev ens3'));
  assert.ok(u.runs.includes('ip -4 route append 10.5.0.0/16 dev ens3'), 'a 0.0.0.0 gateway is on-link');
  assert.ok(u.runs.includes('ip -4 route del 10.5.0.0/16 dev ens3'));
});

test('an existing default route is left alone, as cloud-init does', async () => {
  const p = recordingPlatform(
    ['dhclient'],
    0,
    ['lo', 'ens3'],
    '',
    0,
    DHCLIENT_LEASE,
    UDHCPC_REPORT,
    'default via 192.0.2.1 dev ens4\n',
  );
  await (await new LinuxEphemeralDhcp({ platform: p.platform, log }).up()).release();
  assert.ok(!p.runs.some((r) => r.startsWith('ip -4 route add') || r.startsWith('ip -4 route del')), p.runs.join('\n'));
});

test('the lease is released even when the crawl fails', async () => {
  const events: string[] = [];
  const fake: EphemeralNetwork = {
    up: async () => {
      events.push('up');
      return { interface: 'eth0', release: async () => void events.push('release') };
    },
  };
  await assert.rejects(
    withEphemeralNetwork(fake, async () => {
      events.push('crawl');
      throw new Error('crawl failed');
    }),
    /crawl failed/,
  );
  assert.deepEqual(events, ['up', 'crawl', 'release']);
});

// `ip -o link show` lists by ifindex; the order here is shuffled so the test proves kiln sorts by the index.
const LINKS = [
  '5: ens4: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN',
  '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 state UNKNOWN',
  '7: veth9@if2: <BROADCAST> mtu 1500',
  '3: ens3: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN',
  '',
].join('\n');

test('link-local: a random 169.254.x.y/16 on the lowest-index NIC, the link up; release deletes only that address and downs the link again', async () => {
  const { platform, runs } = recordingPlatform([], 0, ['lo'], LINKS);
  const net = new LinuxEphemeralDhcp({ platform, log });
  let address = '';
  await withEphemeralNetwork(
    net,
    async () => {
      const add = runs.find((r) => r.startsWith('ip -4 addr add '));
      const m = /^ip -4 addr add (169\.254\.(\d+)\.(\d+)\/16) dev ens3$/.exec(add ?? '');
      assert.ok(m, `no link-local address added on ens3: ${runs.join(' | ')}`);
      address = m[1] as string;
      assert.ok(Number(m[2]) >= 1 && Number(m[2]) <= 168 && Number(m[3]) <= 255);
      assert.ok(runs.indexOf('ip link set dev ens3 up') > runs.indexOf(add as string));
      assert.ok(!runs.some((r) => /dhclient|udhcpc/.test(r)), 'no DHCP client in link-local mode');
    },
    { mode: 'link-local' },
  );
  assert.ok(runs.includes(`ip -4 addr del ${address} dev ens3`));
  assert.ok(!runs.some((r) => r.includes('addr flush')), "only kiln's own address goes, the NIC keeps its others");
  assert.equal(runs.at(-1), 'ip link set dev ens3 down');
});

test('link-local: the address range is 169.254.1.0 to 169.254.168.255, as cloud-init draws it', () => {
  assert.equal(
    randomLinkLocalAddress(() => 0),
    '169.254.1.0/16',
  );
  assert.equal(
    randomLinkLocalAddress(() => 0.999999),
    '169.254.168.255/16',
  );
});

test('link-local: a refused address is an EphemeralNetworkError naming the NIC, and nothing is left behind; no NIC at all is one too', async () => {
  const bad = recordingPlatform([], 0, ['lo'], LINKS, 2);
  await assert.rejects(
    new LinuxEphemeralDhcp({ platform: bad.platform, log }).up({ mode: 'link-local' }),
    (e: unknown) => e instanceof EphemeralNetworkError && /169\.254\.\d+\.\d+\/16 on ens3: RTNETLINK/.test(e.message),
  );
  assert.ok(!bad.runs.includes('ip link set dev ens3 up'));
  const none = recordingPlatform([], 0, ['lo'], '1: lo: <LOOPBACK> mtu 65536\n');
  await assert.rejects(
    new LinuxEphemeralDhcp({ platform: none.platform, log }).up({ mode: 'link-local' }),
    /no network interface .* link-local/,
  );
});

test("link-local: never under a --root that shares the host's network namespace", async () => {
  const { platform, runs } = recordingPlatform([], 0, ['lo'], LINKS);
  const sandboxed = { ...platform, root: '/tmp/some-root' };
  await assert.rejects(
    new LinuxEphemeralDhcp({ platform: sandboxed, log, sharesHostNetwork: async () => true }).up({
      mode: 'link-local',
    }),
    (e: unknown) => e instanceof HostNetworkRefused && /link-local address under --root/.test(e.message),
  );
  assert.deepEqual(runs, []);
});
