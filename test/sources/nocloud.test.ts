// NoCloud: cloud_name and cloud_id (meta-data's `cloud-name` when it is a string, else 'unknown', as cloud-init 26.2),
// and its seed files read as cloud-init reads them (PyYAML, YAML 1.1), with errors naming file and line.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { describeSource } from '../../src/runner/describe-source';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { canonicalCloudId } from '../../src/runner/cloud-id';
import { buildInstanceData } from '../../src/runner/instance-data';
import type { CrawlContext } from '../../src/sources/datasource';
import { noCloudSource, parseMetaData, parseNetworkConfig } from '../../src/sources/nocloud';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';
import { hostUname } from '../../src/platform/host-uname';

async function crawl(t: TestContext, metaData: string) {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/cloud/seed/nocloud'), { recursive: true });
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/meta-data'), metaData);
  writeFileSync(join(root, 'var/lib/cloud/seed/nocloud/user-data'), '');
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  const ctx: CrawlContext = {
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform),
    settings: {},
  };
  return noCloudSource.crawl(ctx);
}

test("NoCloud without cloud-name: cloud_name 'unknown', cloud_id the platform 'nocloud'", async (t) => {
  const data = await crawl(t, 'instance-id: i-1\n');
  assert.equal(data.cloudName, 'unknown');
  assert.equal(data.platform, 'nocloud');
  assert.equal(canonicalCloudId(data.cloudName, data.region, data.platform), 'nocloud');
  assert.equal(describeSource('NoCloud', data, 'local'), 'DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud]');
});

test("NoCloud with meta-data's cloud-name: that name, lower-cased, is cloud_name and cloud_id", async (t) => {
  const data = await crawl(t, 'instance-id: i-1\ncloud-name: MyPrivateCloud\n');
  assert.equal(data.cloudName, 'myprivatecloud');
  assert.equal(canonicalCloudId(data.cloudName, data.region, data.platform), 'myprivatecloud');
  // The class still comes from the platform, whatever the cloud is called.
  assert.equal(
    describeSource('NoCloud', { ...data, cloudName: 'openstack' }, 'local'),
    'DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud]',
  );
  const v1 = (
    buildInstanceData({
      kernel: hostUname(),
      instance: data,
      distro: { name: 'debian', family: 'debian', version: '12' },
      mergedConfig: {},
      systemConfig: {},
    }) as { v1: Record<string, unknown> }
  ).v1;
  assert.equal(v1.cloud_name, 'myprivatecloud');
  assert.equal(v1['cloud-name'], 'myprivatecloud');
  assert.equal(v1.cloud_id, 'myprivatecloud');
});

test("instance-data's v1 local_hostname is cloud-init's short form of local-hostname (first label; ip-a-b-c-d for an address)", async (t) => {
  const v1 = async (host: string) => {
    const data = await crawl(t, `instance-id: i-1\nlocal-hostname: ${host}\n`);
    return (
      buildInstanceData({
        kernel: hostUname(),
        instance: data,
        distro: { name: 'debian', family: 'debian', version: '12' },
        mergedConfig: {},
        systemConfig: {},
      }) as { v1: Record<string, unknown> }
    ).v1;
  };
  assert.equal((await v1('web1.example.internal')).local_hostname, 'web1');
  assert.equal((await v1('web1.example.internal'))['local-hostname'], 'web1');
  assert.equal((await v1('10.1.2.3')).local_hostname, 'ip-10-1-2-3');
  assert.equal((await v1('plain')).local_hostname, 'plain');
});

test('NoCloud ignores a cloud-name that is not a string', async (t) => {
  for (const value of ['42', '[a, b]', '{x: 1}', 'true', "''"]) {
    const data = await crawl(t, `instance-id: i-1\ncloud-name: ${value}\n`);
    assert.equal(data.cloudName, 'unknown', value);
  }
});

const bytes = (text: string) => Buffer.from(text, 'utf8');

test('meta-data: YAML 1.1 values (0644 octal, yes a boolean), JSON too, an empty file is an empty mapping', () => {
  assert.deepEqual(parseMetaData(bytes('instance-id: i-1\nmode: 0644\nflag: yes\nlabel: 0o17\n'), '/seed'), {
    'instance-id': 'i-1',
    mode: 420,
    flag: true,
    label: '0o17',
  });
  assert.deepEqual(parseMetaData(bytes('{"instance-id": "i-2", "n": 1}'), '/seed'), { 'instance-id': 'i-2', n: 1 });
  assert.deepEqual(parseMetaData(bytes('\n'), '/seed'), {});
});

test('meta-data and network-config that do not parse name the file, line and column', () => {
  assert.throws(() => parseMetaData(bytes('instance-id: i-1\nbad: [1\n'), '/seed'), {
    name: 'SourceError',
    message: /\/seed\/meta-data:\d+:\d+: invalid YAML/,
  });
  assert.throws(() => parseNetworkConfig(bytes('version: 2\nethernets: {\n'), '/seed'), {
    name: 'SourceError',
    message: /\/seed\/network-config:\d+:\d+: invalid YAML/,
  });
  assert.throws(() => parseMetaData(bytes('- a\n'), '/seed'), { name: 'SourceError', message: /must be a mapping/ });
});

test('network-config: v2 under `network:` with YAML 1.1 booleans', () => {
  const nc = parseNetworkConfig(bytes('network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: on\n'), '/seed');
  assert.deepEqual(nc, { format: 'v2', config: { version: 2, ethernets: { eth0: { dhcp4: true } } } });
});
