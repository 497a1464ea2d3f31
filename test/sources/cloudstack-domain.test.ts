// CloudStack's FQDN as cloud-init 25.1 builds it (DataSourceCloudStack.get_hostname, _get_domainname): a host name
// without a domain takes the DHCP lease's domain name, from networkd's leases, else the newest dhclient lease.
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { hostnameAndFqdn } from '../../src/modules/support/hostname-facts';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cloudStackSource } from '../../src/sources/cloudstack';
import { cloudStackDomainName, parseDhclientLeaseOptions } from '../../src/sources/cloudstack-domain';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { tempDir } from '../helpers/temp';
import { moduleContext } from '../modules/module-context';
import { FakeFinder } from './fake-finder';

const log = new Logger().for('test');
const LEASE = (domain?: string) =>
  `lease {\n  interface "eth0";\n  fixed-address 10.1.1.23;\n  option dhcp-server-identifier 10.1.1.1;\n${domain ? `  option domain-name "${domain}";\n` : ''}}\n`;

function root(t: TestContext, files: Record<string, string>): string {
  const dir = tempDir(t);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('parse_leases: each lease block as options, quotes and the option prefix dropped, oldest first', () => {
  assert.deepEqual(parseDhclientLeaseOptions(LEASE('a.example') + LEASE()), [
    {
      interface: 'eth0',
      'fixed-address': '10.1.1.23',
      'dhcp-server-identifier': '10.1.1.1',
      'domain-name': 'a.example',
    },
    { interface: 'eth0', 'fixed-address': '10.1.1.23', 'dhcp-server-identifier': '10.1.1.1' },
  ]);
});

test("_get_domainname: networkd's DOMAINNAME first, then the newest dhclient lease file's last lease with a domain-name", async (t) => {
  const files = {
    '/run/systemd/netif/leases/2': 'ADDRESS=10.1.1.23\nDOMAINNAME=networkd.example\n',
    '/var/lib/dhcp/dhclient.eth0.leases': LEASE('old.example') + LEASE('dhclient.example') + LEASE(),
    '/var/lib/dhcp/dhclient.old.leases': LEASE('stale.example'),
  };
  const dir = root(t, files);
  utimesSync(join(dir, '/var/lib/dhcp/dhclient.old.leases'), new Date(2000, 1, 1), new Date(2000, 1, 1));
  assert.equal(await cloudStackDomainName(new LinuxPlatform({ root: dir, log }), log), 'networkd.example');
  const noNetworkd = root(t, { ...files, '/run/systemd/netif/leases/2': 'ADDRESS=10.1.1.23\n' });
  utimesSync(join(noNetworkd, '/var/lib/dhcp/dhclient.old.leases'), new Date(2000, 1, 1), new Date(2000, 1, 1));
  assert.equal(await cloudStackDomainName(new LinuxPlatform({ root: noNetworkd, log }), log), 'dhclient.example');
  const fallbackFolder = root(t, { '/var/lib/dhclient/eth0.lease': LEASE('fallback.example') });
  assert.equal(await cloudStackDomainName(new LinuxPlatform({ root: fallbackFolder, log }), log), 'fallback.example');
  assert.equal(
    await cloudStackDomainName(
      new LinuxPlatform({ root: root(t, { '/var/lib/dhcp/dhclient.eth0.leases': LEASE() }), log }),
      log,
    ),
    undefined,
  );
});

test("the crawl keeps the lease's domain, and the FQDN the modules use is the short host name with it (25.1's get_hostname); a name with a domain keeps its own", async (t) => {
  const server = await mockMetadataServer(t, {
    kind: 'cloudstack',
    dir: join(FIXTURES, 'sources', 'cloudstack', 'happy-path', 'tree'),
  });
  const dir = root(t, { '/var/lib/dhcp/dhclient.eth0.leases': LEASE('cs.example.internal') });
  const platform = new LinuxPlatform({ root: dir, log });
  const data = await cloudStackSource.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform, []),
    baseUrl: server.url,
    settings: { password_server_port: server.port, timeout: 2, max_wait: 10 },
  });
  assert.equal(data.localHostname, 'cs-web-1');
  assert.equal(data.fqdnDomain, 'cs.example.internal');
  const module = moduleContext(tempDir(t), { instance: data });
  assert.deepEqual(await hostnameAndFqdn(module, {}), {
    hostname: 'cs-web-1',
    fqdn: 'cs-web-1.cs.example.internal',
    isDefault: false,
  });
  const qualified = moduleContext(tempDir(t), { instance: { ...data, localHostname: 'web.own.example' } });
  assert.equal((await hostnameAndFqdn(qualified, {})).fqdn, 'web.own.example');
  const { fqdnDomain: _none, ...withoutDomain } = data;
  assert.equal((await hostnameAndFqdn(moduleContext(tempDir(t), { instance: withoutDomain }), {})).fqdn, 'cs-web-1');
});
