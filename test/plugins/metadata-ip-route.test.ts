// add_metadata_private_ip_route: the /32 route to a link-local metadata host, added as a service is loaded (fake
// platform).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCloudbaseConf } from '../../src/config/cloudbase-init-conf';
import { runCloudbaseInit, type CloudbaseRunnerDeps } from '../../src/plugins/runner';
import type { Datasource } from '../../src/sources/datasource';
import { Logger, MemorySink } from '../../src/util/log';
import { FakeWindows } from '../platform/windows/fake-win32';
import { FakeFiles } from './fake-files';

const HTTP = 'cloudbaseinit.metadata.services.httpservice.HttpService';
const EC2 = 'cloudbaseinit.metadata.services.ec2service.EC2Service';
const CLOUDSTACK = 'cloudbaseinit.metadata.services.cloudstack.CloudStack';

/**
 * A machine with one DHCP adapter (interface 7) whose default route goes through 10.0.0.1, and one other default route
 * of higher metric.
 */
function machine(): FakeWindows {
  const win = new FakeWindows();
  win.adapters.push({
    ifIndex: 7,
    luid: 0x6000000000000n,
    guid: '{4D36E972-E325-11CE-BFC1-08002BE10318}',
    mac: 'fa:16:3e:00:00:01',
    friendlyName: 'Ethernet',
    description: 'virtio',
    mtu: 1500,
    dhcpv4: true,
    up: true,
    unicast: [{ address: '10.0.0.5', prefixLength: 24, family: 'ipv4' }],
    dnsServers: [],
  });
  win.routes.push({ ifIndex: 9, destination: '0.0.0.0', prefixLength: 0, nextHop: '192.168.9.1', metric: 50 });
  win.routes.push({ ifIndex: 7, destination: '0.0.0.0', prefixLength: 0, nextHop: '10.0.0.1', metric: 25 });
  win.routes.push({ ifIndex: 7, destination: '10.0.0.0', prefixLength: 24, nextHop: '0.0.0.0', metric: 256 });
  return win;
}

function run(conf: string, win: FakeWindows, answers = false, name = 'OpenStack') {
  const sink = new MemorySink();
  const logger = new Logger();
  logger.addSink(sink);
  const asked: string[] = [];
  const source: Datasource = {
    name,
    kind: 'network',
    detect: async () => false,
    crawl: async () => ({
      instanceId: 'i-1',
      cloudName: 'openstack',
      platform: 'openstack',
      subplatform: 'metadata',
      publicKeys: [],
      metadata: {},
    }),
  };
  const deps: CloudbaseRunnerDeps = {
    platform: new FakeFiles(),
    windows: win.platform(logger),
    log: logger.for('init.py'),
    conf: loadCloudbaseConf([
      { path: 'cloudbase-init.conf', text: `[DEFAULT]\nplugins=\nallow_reboot=false\n${conf}` },
    ]),
    sources: [source],
    finder: { find: async () => [] },
    randomPassword: (n) => 'x'.repeat(n),
    env: {},
    sleep: async () => undefined,
    metadataUrlAnswers: async (url) => {
      asked.push(url);
      return answers;
    },
  };
  return { result: runCloudbaseInit(deps), asked, sink };
}

const added = (win: FakeWindows) =>
  win.routes
    .filter((r) => r.prefixLength === 32)
    .map((r) => `${r.destination}/32 via ${r.nextHop} if ${r.ifIndex} metric ${r.metric}`);

test('[openstack] add_metadata_private_ip_route (default true): 169.254.169.254/32 via the default gateway, metric 10, before the service loads; false: none', async () => {
  const win = machine();
  const { result, asked } = run(`metadata_services=${HTTP}\n`, win);
  assert.equal((await result).service?.datasource, 'OpenStack');
  assert.deepEqual(asked, ['http://169.254.169.254/']);
  assert.deepEqual(added(win), ['169.254.169.254/32 via 10.0.0.1 if 7 metric 10']);
  assert.ok(win.calls.includes('CreateIpForwardEntry2 7 169.254.169.254/32 via 10.0.0.1'));

  // add_metadata_private_ip_route=false: no route, and the URL is not asked.
  for (const conf of [
    `metadata_services=${HTTP}\n[openstack]\nadd_metadata_private_ip_route=false\n`,
    `metadata_services=${EC2}\n[ec2]\nadd_metadata_private_ip_route=false\n`,
  ]) {
    const win = machine();
    const { result, asked } = run(conf, win, false, conf.includes('ec2') ? 'Ec2' : 'OpenStack');
    await result;
    assert.deepEqual(asked, []);
    assert.deepEqual(added(win), []);
    assert.ok(!win.calls.some((c) => c.startsWith('CreateIpForwardEntry2')));
  }
});

test("[ec2] and the deprecated [DEFAULT] name: the route to the host of that section's metadata_base_url", async () => {
  const win = machine();
  const { result } = run(
    `metadata_services=${EC2}\n[ec2]\nmetadata_base_url=http://169.254.169.123:8080/latest/\n`,
    win,
    false,
    'Ec2',
  );
  await result;
  assert.deepEqual(added(win), ['169.254.169.123/32 via 10.0.0.1 if 7 metric 10']);
  const old = machine();
  const { result: r2 } = run(`metadata_services=${HTTP}\nadd_metadata_private_ip_route=false\n`, old);
  await r2;
  assert.deepEqual(added(old), []);
});

test('no route when the URL answers, a route to the host exists, the host is not link-local, or there is no default gateway; [cloudstack] is off by default', async () => {
  const answers = machine();
  await run(`metadata_services=${HTTP}\n`, answers, true).result;
  assert.deepEqual(added(answers), []);

  const routed = machine();
  routed.routes.push({ ifIndex: 7, destination: '169.254.169.254', prefixLength: 32, nextHop: '10.0.0.2', metric: 1 });
  const r = run(`metadata_services=${HTTP}\n`, routed);
  await r.result;
  assert.deepEqual(r.asked, [], 'an existing route: the URL is not even asked');
  assert.equal(routed.routes.length, 4);

  const notLinkLocal = machine();
  await run(`metadata_services=${HTTP}\n[openstack]\nmetadata_base_url=http://127.0.0.1:8775/\n`, notLinkLocal).result;
  assert.deepEqual(added(notLinkLocal), []);

  const noGateway = machine();
  noGateway.routes.splice(0, 2);
  const g = run(`metadata_services=${HTTP}\n`, noGateway);
  await g.result;
  assert.deepEqual(added(noGateway), []);
  assert.deepEqual(g.asked, []);

  const cloudstack = machine();
  await run(
    `metadata_services=${CLOUDSTACK}\n[cloudstack]\nmetadata_base_url=http://169.254.169.254/\n`,
    cloudstack,
    false,
    'CloudStack',
  ).result;
  assert.deepEqual(added(cloudstack), []);
  const cloudstackOn = machine();
  await run(
    `metadata_services=${CLOUDSTACK}\n[cloudstack]\nmetadata_base_url=http://169.254.169.254/\nadd_metadata_private_ip_route=true\n`,
    cloudstackOn,
    false,
    'CloudStack',
  ).result;
  assert.deepEqual(added(cloudstackOn), ['169.254.169.254/32 via 10.0.0.1 if 7 metric 10']);
});

test('a route that cannot be added is logged and the service still loads, as in cloudbase-init', async () => {
  const win = machine();
  // An adapter that is gone between the table read and the add: the fake's CreateIpForwardEntry2 fails.
  win.routes.splice(1, 1);
  const { result, sink } = run(`metadata_services=${HTTP}\n`, win);
  const r = await result;
  assert.equal(r.service?.datasource, 'OpenStack');
  assert.deepEqual(r.errors, []);
  assert.match(sink.lines.join(''), /Cannot add a route to the metadata host 169\.254\.169\.254: .*no interface 9/);
});
