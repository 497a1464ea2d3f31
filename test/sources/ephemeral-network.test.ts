// The temporary DHCP lease: the commands run through the platform, and release always follows use.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Platform, RunOpts, RunResult } from '../../src/platform/platform';
import { LinuxEphemeralDhcp, withEphemeralNetwork, type EphemeralNetwork } from '../../src/sources/ephemeral-network';
import { SourceError } from '../../src/sources/source-error';
import { Logger } from '../../src/util/log';

const DHCLIENT_LEASE = 'lease {\n  interface "ens3";\n  fixed-address 10.0.0.9;\n  option subnet-mask 255.255.255.0;\n  option routers 10.0.0.1;\n}\n';

/** Records commands; answers `command -v` per the tools given and dhclient with CODE. */
function recordingPlatform(tools: string[], dhcpCode = 0, nics = ['lo', 'ens3']) {
  const runs: string[] = [];
  const removed: string[] = [];
  const written: string[] = [];
  const unused = async (): Promise<never> => {
    throw new Error('not used by ephemeral DHCP');
  };
  const platform: Platform = {
    root: '/',
    os: 'linux',
    hostPath: (p) => p,
    readFile: unused,
    readText: unused,
    readTextIfExists: async (p) => (p.endsWith('.lease') ? DHCLIENT_LEASE : undefined),
    exists: async () => false,
    listDir: async (p) => {
      if (p === '/sys/class/net') return nics;
      throw new Error('ENOENT');
    },
    writeFile: async (p) => {
      written.push(p);
    },
    mkdir: unused,
    remove: async (p) => {
      removed.push(p);
    },
    symlink: unused,
    osVersion: unused,
    setHostname: unused,
    run: async (cmd: string[] | string, _opts?: RunOpts): Promise<RunResult> => {
      const line = typeof cmd === 'string' ? cmd : cmd.join(' ');
      runs.push(line);
      const probe = /command -v (\S+)/.exec(line);
      if (probe) return { code: tools.includes(probe[1] as string) ? 0 : 1, stdout: '', stderr: '' };
      if (line.startsWith('dhclient -1') || line.startsWith('udhcpc')) return { code: dhcpCode, stdout: '', stderr: dhcpCode ? 'No DHCPOFFERS received.' : '' };
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  return { platform, runs, removed, written };
}

const log = new Logger().for('test');

test('dhclient: one-shot lease with no distro hook, applied from the lease file, released with -r and an address flush', async () => {
  const { platform, runs, removed } = recordingPlatform(['dhclient']);
  const net = new LinuxEphemeralDhcp({ platform, log });
  const result = await withEphemeralNetwork(net, async () => {
    assert.ok(runs.some((r) => r.startsWith('dhclient -1') && r.includes(' -sf /bin/true ') && r.endsWith('ens3')));
    assert.ok(runs.includes('ip -4 addr add 10.0.0.9/24 broadcast + dev ens3'));
    assert.ok(runs.includes('ip -4 route add default via 10.0.0.1 dev ens3'));
    return 'crawled';
  });
  assert.equal(result, 'crawled');
  assert.ok(runs.some((r) => r.startsWith('dhclient -r') && r.includes(' -sf /bin/true ') && r.endsWith('ens3')));
  assert.ok(runs.includes('ip -4 addr flush dev ens3'));
  assert.deepEqual(removed, ['/run/kiln-ephemeral-dhcp.ens3.lease', '/run/kiln-ephemeral-dhcp.ens3.lease', '/run/kiln-ephemeral-dhcp.ens3.pid']);
});

test('udhcpc when dhclient is missing; a failed lease is a SourceError naming the interface', async () => {
  const ok = recordingPlatform(['udhcpc']);
  const lease = await new LinuxEphemeralDhcp({ platform: ok.platform, log, interface: 'eth1' }).up();
  assert.ok(ok.runs.some((r) => r.startsWith('udhcpc ') && r.includes(' -i eth1 ') && r.includes(' -s /run/kiln-ephemeral-dhcp.eth1.script')));
  assert.deepEqual(ok.written, ['/run/kiln-ephemeral-dhcp.eth1.script']);
  await lease.release();
  const bad = recordingPlatform(['dhclient'], 2);
  await assert.rejects(new LinuxEphemeralDhcp({ platform: bad.platform, log }).up(), (e: unknown) => e instanceof SourceError && /ens3/.test(e.message));
  const none = recordingPlatform(['dhclient'], 0, ['lo']);
  await assert.rejects(new LinuxEphemeralDhcp({ platform: none.platform, log }).up(), /no network interface/);
});

test('the lease is released even when the crawl fails', async () => {
  const events: string[] = [];
  const fake: EphemeralNetwork = { up: async () => (events.push('up'), { interface: 'eth0', release: async () => void events.push('release') }) };
  await assert.rejects(withEphemeralNetwork(fake, async () => {
    events.push('crawl');
    throw new Error('crawl failed');
  }), /crawl failed/);
  assert.deepEqual(events, ['up', 'crawl', 'release']);
});
