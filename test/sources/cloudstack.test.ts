// CloudStack's virtual router as cloud-init finds it (DNS, networkd lease, dhclient lease, gateway), and
// cloudbase-init's way (metadata_base_url, then the adapters' DHCP servers).
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cloudStackSource } from '../../src/sources/cloudstack';
import { defaultGateway, findCloudStackRouter, leaseServerIdentifier } from '../../src/sources/cloudstack-router';
import { aliyunPublicKeys } from '../../src/sources/aliyun';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const log = new Logger().for('test');
const noDns = async () => undefined;

function root(t: TestContext, files: Record<string, string>): string {
  const dir = tempDir(t);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const ROUTE =
  'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\neth0\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\neth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n';
const LEASE = (server: string) =>
  `lease {\n  interface "eth0";\n  fixed-address 10.1.1.23;\n  option subnet-mask 255.255.255.0;\n  option dhcp-server-identifier ${server};\n}\n`;

test('get_default_gateway: the default route of /proc/net/route, little-endian hex', () => {
  assert.equal(defaultGateway(ROUTE), '192.168.1.1');
  assert.equal(defaultGateway('Iface\tDestination\tGateway\n'), undefined);
});

test('the dhcp-server-identifier of a lease file: the last one, the third word', () => {
  assert.equal(leaseServerIdentifier(LEASE('10.1.1.1') + LEASE('10.1.1.9')), '10.1.1.9');
  assert.equal(leaseServerIdentifier('  option dhcp-server-identifier;\n'), undefined);
});

test('the virtual router: DNS data-server first, then networkd, then the newest dhclient lease, then the gateway', async (t) => {
  const files = {
    '/run/systemd/netif/leases/2': 'ADDRESS=10.1.1.23\nSERVER_ADDRESS=10.1.1.2\n',
    '/var/lib/dhcp/dhclient.eth0.leases': LEASE('10.1.1.3'),
    '/var/lib/dhcp/dhclient.old.leases': LEASE('10.1.1.4'),
    '/var/lib/dhcp/dhclient6.eth0.leases': LEASE('10.1.1.5'),
    '/proc/net/route': ROUTE,
  };
  const dir = root(t, files);
  utimesSync(join(dir, '/var/lib/dhcp/dhclient.old.leases'), new Date(2000, 1, 1), new Date(2000, 1, 1));
  const platform = new LinuxPlatform({ root: dir, log });
  assert.deepEqual(
    await findCloudStackRouter(platform, async (n) => (n === 'data-server' ? '10.1.1.1' : undefined), log),
    { address: '10.1.1.1', via: 'data-server DNS entry' },
  );
  assert.equal((await findCloudStackRouter(platform, noDns, log))?.address, '10.1.1.2');
  const noNetworkd = root(t, { ...files, '/run/systemd/netif/leases/2': 'ADDRESS=10.1.1.23\n' });
  utimesSync(join(noNetworkd, '/var/lib/dhcp/dhclient.old.leases'), new Date(2000, 1, 1), new Date(2000, 1, 1));
  assert.equal(
    (await findCloudStackRouter(new LinuxPlatform({ root: noNetworkd, log }), noDns, log))?.address,
    '10.1.1.3',
    'the newest lease file, dhclient6 left out',
  );
  const onlyGateway = root(t, { '/proc/net/route': ROUTE });
  assert.deepEqual(await findCloudStackRouter(new LinuxPlatform({ root: onlyGateway, log }), noDns, log), {
    address: '192.168.1.1',
    via: 'default gateway',
  });
  assert.equal(await findCloudStackRouter(new LinuxPlatform({ root: tempDir(t), log }), noDns, log), undefined);
});

test("cloudbase-init's CloudStack service: metadata_base_url first, then each adapter's DHCP server; the password under its rules", async (t) => {
  const tree = join(FIXTURES, 'sources', 'cloudstack', 'happy-path', 'tree');
  const server = await mockMetadataServer(t, { kind: 'cloudstack', dir: tree });
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const data = await cloudStackSource.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform, []),
    // Nothing listens on port 9 of loopback: the configured URL fails and the DHCP server (the mock) answers.
    settings: {
      metadata_base_url: 'http://127.0.0.1:9/',
      dhcp_servers: [`127.0.0.1:${server.port}`],
      password_server_port: server.port,
      retries: 1,
      timeout: 2,
    },
  });
  assert.equal(data.instanceId, 'i-2-77-VM');
  assert.equal(data.adminPassword, 's3cret-Admin-Pass');
  assert.ok(server.passwordServer?.acknowledged, 'the password was acknowledged');
  assert.ok(
    server.requests.some((r) => r.path === '/latest/meta-data/service-offering'),
    "cloudbase-init's _test_api reads service-offering",
  );
});

test("AliYun's parse_public_keys: a key, a list of keys, or a folder's openssh-key", () => {
  assert.deepEqual(
    aliyunPublicKeys({
      a: 'ssh-rsa A a\n',
      b: ['ssh-rsa B b'],
      'skp-c': { 'openssh-key': 'ssh-rsa C c\n' },
      'skp-d': { 'openssh-key': ['ssh-rsa D d'] },
    }),
    ['ssh-rsa A a', 'ssh-rsa B b', 'ssh-rsa C c', 'ssh-rsa D d'],
  );
  assert.deepEqual(aliyunPublicKeys(undefined), []);
});
