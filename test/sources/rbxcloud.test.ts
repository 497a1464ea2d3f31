// RbxCloud's gratuitous ARP (cloud-init's activate): the arping commands, their -S/-s flag by distro, failures as
// warnings.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rbxArpPairs, rbxCloudSource, rbxNetworkConfig } from '../../src/sources/rbxcloud';
import type { InstanceData } from '../../src/sources/datasource';
import { Logger, MemorySink } from '../../src/util/log';
import { ok, scriptedPlatform } from './scripted-platform';

const NETADP = [
  {
    macaddress: 'AA:00:00:00:00:01',
    ip: [{ address: '192.0.2.10' }],
    network: { gateway: '192.0.2.1', netmask: '255.255.255.0', dns: { nameservers: ['192.0.2.53'] } },
  },
  {
    macaddress: 'AA:00:00:00:00:02',
    ip: [{ address: '198.51.100.7' }],
    network: { gateway: '198.51.100.254', netmask: '255.255.255.0', dns: { nameservers: [] } },
  },
];

/** RbxCloud's activate() makes no module run again. */
async function noRerun(name: string): Promise<void> {
  assert.fail(`RbxCloud asked to rerun ${name}`);
}

function instance(): InstanceData {
  return {
    instanceId: 'i',
    cloudName: 'rbxcloud',
    platform: 'rbxcloud',
    subplatform: 'unknown',
    publicKeys: [],
    metadata: {},
    networkConfig: { format: 'v1', config: rbxNetworkConfig(NETADP) },
  };
}

test("the announcements: each address to its gateway, gateway+2 and gateway+3 (carrying over an octet as Python's IPv4Address)", () => {
  assert.deepEqual(
    rbxArpPairs(rbxNetworkConfig(NETADP)).map((p) => `${p.source}>${p.destination}`),
    [
      '192.0.2.10>192.0.2.1',
      '192.0.2.10>192.0.2.3',
      '192.0.2.10>192.0.2.4',
      '198.51.100.7>198.51.100.254',
      '198.51.100.7>198.51.101.0',
      '198.51.100.7>198.51.101.1',
    ],
  );
  assert.throws(
    () => rbxArpPairs(rbxNetworkConfig([{ ...NETADP[0], network: { ...NETADP[0]?.network, gateway: 'gw.example' } }])),
    /not an IPv4 address/,
  );
  assert.throws(
    () => rbxNetworkConfig([{ macaddress: 'AA:00:00:00:00:01', ip: [] }]),
    /netadp\[0\]\.network is missing/,
  );
});

test('activate runs arping -c 2 -S for each pair; a failing or missing arping is a warning and the rest still run', async () => {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const s = scriptedPlatform({
    nics: [],
    answer: (line) =>
      line.endsWith('192.0.2.3')
        ? { code: 1, stdout: '', stderr: 'arping: bind: Cannot assign requested address' }
        : ok(),
  });
  await rbxCloudSource.activate?.(
    { platform: s.platform, log: logger.for('t'), distroName: 'debian', isNewInstance: true, rerunModule: noRerun },
    instance(),
  );
  assert.equal(s.runs.length, 6);
  assert.equal(s.runs[0], 'arping -c 2 -S 192.0.2.10 192.0.2.1');
  assert.match(
    sink.lines.join(''),
    /Failed to arping from "192\.0\.2\.10" to "192\.0\.2\.3": exit code 1: arping: bind/,
  );
  const rhel = scriptedPlatform({ nics: [], answer: () => ok() });
  rhel.platform.run = async () => {
    throw new Error('spawn arping ENOENT');
  };
  const sink2 = new MemorySink();
  const logger2 = new Logger();
  logger2.addSink(sink2);
  await rbxCloudSource.activate?.(
    { platform: rhel.platform, log: logger2.for('t'), distroName: 'rhel', isNewInstance: true, rerunModule: noRerun },
    instance(),
  );
  assert.equal(sink2.lines.join('').match(/Failed to arping/g)?.length, 6);
  const fedora = scriptedPlatform({ nics: [], answer: () => ok() });
  await rbxCloudSource.activate?.(
    {
      platform: fedora.platform,
      log: logger2.for('t'),
      distroName: 'fedora',
      isNewInstance: false,
      rerunModule: noRerun,
    },
    instance(),
  );
  assert.equal(fedora.runs[0], 'arping -c 2 -s 192.0.2.10 192.0.2.1');
});

test('activate sends nothing when the root is an image, not the running system', async () => {
  const s = scriptedPlatform({ nics: [], answer: () => ok() });
  const image = { ...s.platform, root: '/tmp/image' };
  await rbxCloudSource.activate?.(
    { platform: image, log: new Logger().for('t'), distroName: 'debian', isNewInstance: true, rerunModule: noRerun },
    instance(),
  );
  assert.deepEqual(s.runs, []);
});
