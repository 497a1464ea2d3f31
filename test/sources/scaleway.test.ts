// Scaleway: the mock refuses user data to unprivileged source ports as the real service does, kiln asks from a
// privileged one, and the network config and keys follow cloud-init.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { CrawlContext } from '../../src/sources/datasource';
import type { EphemeralNetwork, EphemeralUpOptions } from '../../src/net/ephemeral/ephemeral-network';
import { EphemeralNetworkRefused } from '../../src/sources/ephemeral-lease';
import { queryPrivilegedDataApi } from '../../src/sources/scaleway/privileged-data-api';
import { scalewayPublicKeys, scalewaySource } from '../../src/sources/scaleway/scaleway';
import { scalewayNetworkConfig } from '../../src/sources/scaleway/scaleway-network';
import { SourceError } from '../../src/sources/source-error';
import { Logger } from '../../src/util/log';
import { mockMetadataServer } from '../helpers/mock-metadata-server';
import { FIXTURES } from '../helpers/repo';
import { isRoot, need } from '../helpers/requirements';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

const TREE = join(FIXTURES, 'sources/scaleway/happy-path/tree');
const log = new Logger().for('test');

test('mock: user and vendor data are refused (403) to a source port of 1024 or above; the metadata is not', async (t) => {
  const server = await mockMetadataServer(t, { kind: 'scaleway', dir: TREE });
  const ud = await fetch(`${server.url}/user_data/cloud-init`);
  assert.equal(ud.status, 403);
  assert.match(await ud.text(), /privileged source port/);
  assert.equal((await fetch(`${server.url}/vendor_data/cloud-init`)).status, 403);
  const md = await fetch(`${server.url}/conf?format=json`);
  assert.equal(md.status, 200);
  assert.equal(((await md.json()) as { hostname: string }).hostname, 'scw-web-1');
});

test('user data is asked for from source port 1, and the vendor data query starts after it', async (t) => {
  if (!need(t, isRoot(), 'binding a source port below 1024 needs root')) return;
  const server = await mockMetadataServer(t, { kind: 'scaleway', dir: TREE });
  const seen: number[] = [];
  server.requests.length = 0;
  const ud = await queryPrivilegedDataApi('user-data', `${server.url}/user_data/cloud-init`, {
    log,
    timeoutMs: 2000,
    retries: 5,
    pauseMs: 10,
  });
  assert.match(Buffer.from(ud.data ?? []).toString(), /scaleway-user-data/);
  assert.equal(ud.nextPort, 2);
  const vd = await queryPrivilegedDataApi('vendor-data', `${server.url}/vendor_data/cloud-init`, {
    log,
    timeoutMs: 2000,
    retries: 5,
    pauseMs: 10,
    firstPort: ud.nextPort,
  });
  assert.match(Buffer.from(vd.data ?? []).toString(), /scaleway-vendor-data/);
  for (const r of server.requests) seen.push(r.status);
  assert.deepEqual(seen, [200, 200]);
});

test('a 429 moves on to the next source port after the pause; 404 is no data', async (t) => {
  if (!need(t, isRoot(), 'binding a source port below 1024 needs root')) return;
  const server = await mockMetadataServer(t, {
    kind: 'scaleway',
    dir: TREE,
    misbehave: [{ kind: 'status', value: 429, times: 1, path: '/user_data' }],
  });
  const ud = await queryPrivilegedDataApi('user-data', `${server.url}/user_data/cloud-init`, {
    log,
    timeoutMs: 2000,
    retries: 5,
    pauseMs: 10,
    firstPort: 10,
  });
  assert.ok(ud.data);
  assert.equal(ud.nextPort, 12);
  const none = await queryPrivilegedDataApi('user-data', `${server.url}/user_data/other`, {
    log,
    timeoutMs: 2000,
    retries: 5,
    pauseMs: 10,
    firstPort: 20,
  });
  assert.equal(none.data, undefined);
});

test("keys: ssh_public_keys, then AUTHORIZED_KEY= tags with underscores as spaces (the key, not 22.4's prefix)", () => {
  assert.deepEqual(
    scalewayPublicKeys({
      ssh_public_keys: [{ key: 'ssh-rsa AAA a@b' }, { fingerprint: 'x' }],
      tags: ['web', 'AUTHORIZED_KEY=ssh-ed25519_BBB_c@d'],
    }),
    ['ssh-rsa AAA a@b', 'ssh-ed25519 BBB c@d'],
  );
  assert.deepEqual(scalewayPublicKeys({}), []);
});

test("network: 22.4's DHCPv4 on the fallback NIC plus the metadata's IPv6 with a default route", () => {
  const md = { private_ip: '10.1.2.3', ipv6: { address: '2001:bc8::a1', netmask: '64', gateway: '2001:bc8::1' } };
  assert.deepEqual(scalewayNetworkConfig(md, 'ens2', true), {
    version: 1,
    config: [
      {
        type: 'physical',
        name: 'ens2',
        subnets: [
          { type: 'dhcp4' },
          {
            type: 'static',
            address: '2001:bc8::a1',
            netmask: '64',
            routes: [{ network: '::', prefix: '0', gateway: '2001:bc8::1' }],
          },
        ],
      },
    ],
  });
  assert.deepEqual(scalewayNetworkConfig({ private_ip: '10.1.2.3', ipv6: null }, 'ens2', true), {
    version: 1,
    config: [{ type: 'physical', name: 'ens2', subnets: [{ type: 'dhcp4' }] }],
  });
});

test('network: without a private_ip, the public_ips become v2: DHCP for the leased IPv4 with the metadata route, IPv6 static with a default route', () => {
  const md = {
    private_ip: null,
    public_ips: [
      { address: '51.15.1.2', netmask: '32', family: 'inet', provisioning_mode: 'dhcp' },
      { address: '2001:bc8:1::1', netmask: '64', gateway: '2001:bc8:1::', family: 'inet6', provisioning_mode: 'slaac' },
    ],
  };
  assert.deepEqual(scalewayNetworkConfig(md, 'ens2', true), {
    version: 2,
    ethernets: {
      ens2: {
        dhcp4: true,
        addresses: ['2001:bc8:1::1/64'],
        routes: [
          { to: '169.254.42.42/32', via: '62.210.0.1' },
          { via: '2001:bc8:1::', to: '::/0' },
        ],
      },
    },
  });
  // Read over IPv6 (no DHCPv4 lease): no address is DHCP's.
  assert.deepEqual(
    (
      scalewayNetworkConfig(md, 'ens2', false) as {
        ethernets: Record<string, { dhcp4?: boolean; addresses: string[] }>;
      }
    ).ethernets.ens2?.addresses,
    ['51.15.1.2/32', '2001:bc8:1::1/64'],
  );
});

test('init-local: DHCPv4 first; without a DHCPv4 lease the crawl is done again over IPv6 (newer cloud-init), net_in_use says which (25.1), and a refused lease is left to init', async (t) => {
  if (!need(t, isRoot(), 'binding a source port below 1024 needs root')) return;
  const server = await mockMetadataServer(t, { kind: 'scaleway', dir: TREE });
  const asked: Array<EphemeralUpOptions | undefined> = [];
  const network: EphemeralNetwork = {
    up: async (o) => {
      asked.push(o);
      if (asked.length === 1) throw new SourceError('dhcp', 'no DHCPv4 lease on eth0');
      return { interface: 'eth0', release: async () => undefined };
    },
  };
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const ctx: CrawlContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: { sys_vendor: 'Scaleway' },
    config: {},
    finder: new FakeFinder(platform),
    settings: { retries: 3, timeout: 2 },
    baseUrl: server.url,
    network,
    stage: 'local',
    signal: AbortSignal.timeout(10_000),
  };
  const data = await scalewaySource.crawl(ctx);
  assert.deepEqual(asked, [undefined, { ipv6: true, ipv4: false }]);
  assert.equal(data.localHostname, 'scw-web-1');
  assert.equal(data.metadata.net_in_use, 'ipv6', '25.1 records the family it read the metadata over');
  assert.equal(data.subplatform, 'unknown', "25.1's Scaleway names no metadata_address");
  const v4: EphemeralNetwork = { up: async () => ({ interface: 'eth0', release: async () => undefined }) };
  assert.equal((await scalewaySource.crawl({ ...ctx, network: v4 })).metadata.net_in_use, 'ipv4');
  const refusing: EphemeralNetwork = {
    up: async () => Promise.reject(new EphemeralNetworkRefused('Scaleway', 'a --root sandbox in the host network')),
  };
  await assert.rejects(scalewaySource.crawl({ ...ctx, network: refusing }), EphemeralNetworkRefused);
});
