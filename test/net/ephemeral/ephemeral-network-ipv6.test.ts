// Ec2Local's IPv6 in the temporary network: DHCPv4 first, IPv6 link-local when it fails, the address waited for past
// DAD.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ok, scriptedPlatform } from '../../sources/scripted-platform';
import {
  LinuxEphemeralDhcp,
  usableLinkLocalIpv6,
  type EphemeralNetwork,
  type EphemeralUpOptions,
} from '../../../src/net/ephemeral/ephemeral-network';
import { withEphemeralNetwork } from '../../../src/sources/ephemeral-lease';
import { EphemeralNetworkError } from '../../../src/net/ephemeral/ephemeral-network-error';
import { Logger } from '../../../src/util/log';

const log = new Logger().for('test');

/**
 * A target with busybox's udhcpc (no dhclient) on ens3: DHCP answers with DHCP_CODE; `ip -6 addr` shows the
 * link-local address in the states ADDR_STATES gives, one per query (the last one repeats).
 */
function fakeTarget(dhcpCode: number, addrStates: Array<'none' | 'tentative' | 'ok' | 'dadfailed'>, linkUp = false) {
  let queries = 0;
  let up = linkUp;
  return scriptedPlatform({
    nics: ['lo', 'ens3'],
    answer: (line) => {
      if (/command -v dhclient/.test(line)) return { code: 1, stdout: '', stderr: '' };
      if (line === 'ip link set dev ens3 up') up = true;
      if (line === 'ip link set dev ens3 down') up = false;
      if (line === 'ip -o link show dev ens3')
        return ok(`2: ens3: <BROADCAST,MULTICAST${up ? ',UP,LOWER_UP' : ''}> mtu 1500\n`);
      if (line.startsWith('udhcpc'))
        return dhcpCode === 0
          ? ok('kiln-lease ip=10.0.0.9\nkiln-lease mask=24\nkiln-lease router=10.0.0.1\nkiln-lease staticroutes=\n')
          : { code: 1, stdout: '', stderr: 'no lease, failing' };
      if (line === 'ip -6 -o addr show dev ens3 scope link') {
        const state = addrStates[Math.min(queries++, addrStates.length - 1)];
        if (state === 'none' || !up) return ok();
        const flags = state === 'ok' ? '' : ` ${state}`;
        return ok(
          `2: ens3    inet6 fe80::5054:ff:fe12:3456/64 scope link${flags} \\       valid_lft forever preferred_lft forever\n`,
        );
      }
      return undefined;
    },
  });
}

test('ipv6: no DHCPv4 lease, so IPv6 link-local is used once it has passed DAD (cloud-init: "using link-local ipv6")', async () => {
  const { platform, runs } = fakeTarget(1, ['tentative', 'tentative', 'ok']);
  const lease = await new LinuxEphemeralDhcp({ platform, log }).up({ ipv6: true });
  assert.equal(lease.interface, 'ens3');
  assert.equal(lease.state, 'using link-local ipv6');
  assert.equal(runs.filter((r) => r.startsWith('udhcpc')).length, 1, 'DHCPv4 was tried first');
  assert.equal(
    runs.filter((r) => r === 'ip -6 -o addr show dev ens3 scope link').length,
    3,
    'polled until no longer tentative',
  );
  // The failed DHCPv4 attempt put the link back down; IPv6 brought it up again and leaves it up, as cloud-init.
  assert.equal(runs.filter((r) => r === 'ip link set dev ens3 up').length, 2);
  const before = runs.length;
  await lease.release();
  assert.equal(runs.length, before, 'nothing to undo for link-local IPv6');
});

test('ipv6: with a DHCPv4 lease nothing is waited for; IPv6 comes with the link', async () => {
  const { platform, runs } = fakeTarget(0, ['none']);
  const lease = await new LinuxEphemeralDhcp({ platform, log }).up({ ipv6: true });
  assert.equal(lease.state, undefined);
  assert.ok(!runs.some((r) => r.startsWith('ip -6')), 'no IPv6 polling when DHCPv4 worked');
  await lease.release();
  assert.ok(runs.includes('ip -4 addr flush dev ens3'));
});

test('ipv6: neither DHCPv4 nor a link-local address: the DHCPv4 error, soon (IPv6 off on the link)', {
  timeout: 60_000,
}, async () => {
  const { platform } = fakeTarget(1, ['none']);
  await assert.rejects(
    new LinuxEphemeralDhcp({ platform, log }).up({ ipv6: true }),
    (e: unknown) => e instanceof EphemeralNetworkError && /no DHCP answer on ens3/.test(e.message),
  );
});

test('ipv6: a link-local address that stays tentative is waited for only up to the limit; DAD failure is not usable', {
  timeout: 60_000,
}, async () => {
  const stuck = fakeTarget(1, ['tentative']);
  assert.equal(await usableLinkLocalIpv6(stuck.platform, log, 'ens3', 600), undefined);
  const dup = fakeTarget(1, ['tentative', 'dadfailed']);
  assert.equal(await usableLinkLocalIpv6(dup.platform, log, 'ens3', 5000), undefined);
  const ok = fakeTarget(1, ['ok'], true);
  assert.equal(await usableLinkLocalIpv6(ok.platform, log, 'ens3', 5000), 'fe80::5054:ff:fe12:3456/64');
  assert.ok(!ok.runs.includes('ip link set dev ens3 up'), 'a link already up is left as it is');
});

test('withEphemeralNetwork passes what the source asks for (Ec2: ipv6) to the network', async () => {
  const asked: Array<EphemeralUpOptions | undefined> = [];
  const fake: EphemeralNetwork = {
    up: async (o) => {
      asked.push(o);
      return { interface: 'eth0', release: async () => undefined };
    },
  };
  await withEphemeralNetwork(fake, async () => 1, { ipv6: true });
  await withEphemeralNetwork(fake, async () => 1);
  assert.deepEqual(asked, [{ ipv6: true }, undefined]);
});

test('ipv6 only (ipv4: false): no DHCP client runs; the link-local address is used once past DAD, or the error says there is none', async () => {
  const { platform, runs } = fakeTarget(0, ['tentative', 'ok']);
  const lease = await new LinuxEphemeralDhcp({ platform, log }).up({ ipv6: true, ipv4: false });
  assert.equal(lease.interface, 'ens3');
  assert.equal(lease.state, undefined);
  assert.ok(!runs.some((r) => r.startsWith('udhcpc') || r.startsWith('dhclient')), 'no DHCPv4 attempt');
  const off = fakeTarget(0, ['none']);
  await assert.rejects(
    new LinuxEphemeralDhcp({ platform: off.platform, log }).up({ ipv6: true, ipv4: false }),
    (e: unknown) => e instanceof EphemeralNetworkError && /no usable IPv6 link-local address on ens3/.test(e.message),
  );
});
