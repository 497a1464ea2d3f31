// cloudbase-init's CloudStack service on kiln's CloudStack source: [cloudstack] options, the DHCP servers of the
// adapters as the fallback metadata hosts, the password injected and acknowledged.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import type { NetAdapter } from '../../src/platform/windows/windows-system';
import { cloudbaseCloudStackService } from '../../src/sources/cloudbase-cloudstack-service';
import { cloudStackSource } from '../../src/sources/cloudstack';
import { Logger, MemorySink } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFinder } from '../sources/fake-finder';
import { FakeFiles } from './fake-files';

const CLASS = 'cloudbaseinit.metadata.services.cloudstack.CloudStack';
const PLUGINS =
  'cloudbaseinit.plugins.windows.createuser.CreateUserPlugin,cloudbaseinit.plugins.common.setuserpassword.SetUserPasswordPlugin';
const TREE = join(FIXTURES, 'sources', 'cloudstack', 'happy-path', 'tree');

function adapter(over: Partial<NetAdapter>): NetAdapter {
  return {
    ifIndex: 3,
    luid: 1n,
    guid: '{A}',
    mac: '02:00:00:00:00:01',
    friendlyName: 'Ethernet',
    description: 'virtio',
    mtu: 1500,
    dhcpv4: true,
    up: true,
    unicast: [],
    dnsServers: [],
    ...over,
  };
}

test("[cloudstack] options and the DHCP-enabled adapters' DHCP servers become the source's settings", () => {
  const conf = loadCloudbaseConf([
    {
      path: 'c.conf',
      text: '[DEFAULT]\nretry_count=2\n[cloudstack]\nmetadata_base_url=http://10.0.0.1/\npassword_server_port=8081\nadd_metadata_private_ip_route=true\n',
    },
  ]);
  const adapters = [
    adapter({ dhcpServer: '10.1.1.1' }),
    adapter({ dhcpv4: false, dhcpServer: '10.9.9.9' }),
    adapter({}),
  ];
  assert.deepEqual(cloudbaseCloudStackService.settings(conf, () => adapters).settings, {
    metadata_base_url: 'http://10.0.0.1/',
    password_server_port: 8081,
    retries: 2,
    dhcp_servers: ['10.1.1.1'],
  });
  const defaults = loadCloudbaseConf([{ path: 'c.conf', text: '[DEFAULT]\n' }]);
  assert.deepEqual(
    cloudbaseCloudStackService.settings(defaults, () => {
      throw new Error('GetAdaptersAddresses failed');
    }).settings,
    { metadata_base_url: 'http://data-server/', password_server_port: 8080, retries: 5, dhcp_servers: [] },
  );
});

test('CloudStack service: metadata_base_url does not answer, the DHCP server does; the password is set on the user and acknowledged', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'cloudstack', dir: TREE });
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const win = new FakeWindows();
  // The mock listens on a port of its own: the "DHCP server address" carries it, as a real one would be port 80.
  win.adapters.push(adapter({ dhcpServer: `127.0.0.1:${server.port}` }));
  const conf = `[DEFAULT]\nmetadata_services=${CLASS}\nplugins=${PLUGINS}\nusername=csadmin\ninject_user_password=true\nallow_reboot=false\nretry_count=1\n[cloudstack]\nmetadata_base_url=http://127.0.0.1:9/\npassword_server_port=${server.port}\n`;
  const deps: CloudbaseRunnerDeps = {
    platform: new FakeFiles(),
    windows: win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([{ path: 'cloudbase-init.conf', text: conf }]),
    sources: [cloudStackSource],
    finder: new FakeFinder(new LinuxPlatform({ root: '/', log: logger.for('test') }), []),
    randomPassword: (n) => 'Rr1!'.padEnd(n, 'x'),
    env: { SystemRoot: 'C:\\Windows' },
    sleep: async () => undefined,
  };
  const report = await runCloudbaseInit(deps);
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.service, { classPath: CLASS, datasource: 'CloudStack' });
  assert.equal(report.instanceId, 'i-2-77-VM');
  assert.equal(win.users.get('csadmin')?.password, 's3cret-Admin-Pass');
  assert.deepEqual(server.passwordServer, { handedOut: 1, acknowledged: true, strayAcks: 0 });
  assert.ok(!sink.lines.join('').includes('s3cret-Admin-Pass'), 'the password never reaches the log');
});
