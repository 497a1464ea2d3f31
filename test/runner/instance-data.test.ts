// instance-data.json's v1 keys and ds block, as cloud-init 22.4 writes them for a datasource's findings.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { test } from 'node:test';
import { buildInstanceData, REDACT_SENSITIVE_VALUE, redactInstanceData } from '../../src/runner/instance-data';
import type { InstanceData } from '../../src/sources/datasource';
import { hostUname } from '../../src/platform/host-uname';

function build(instance: InstanceData): { v1: Record<string, unknown>; ds: Record<string, unknown> } {
  return buildInstanceData({
    kernel: hostUname(),
    instance,
    distro: { name: 'debian', family: 'debian', version: '12' },
    mergedConfig: {},
    systemConfig: {},
  }) as { v1: Record<string, unknown>; ds: Record<string, unknown> };
}

const BASE: InstanceData = {
  instanceId: 'i-1',
  cloudName: 'aws',
  platform: 'ec2',
  subplatform: 'metadata (http://169.254.169.254)',
  publicKeys: [],
  metadata: { 'instance-id': 'i-1' },
};

test('v1.local_hostname is the short name of local-hostname (DataSource.get_hostname), ip-A-B-C-D for an address', () => {
  assert.equal(
    build({ ...BASE, localHostname: 'ip-10-0-0-5.us-east-2.compute.internal' }).v1.local_hostname,
    'ip-10-0-0-5',
  );
  assert.equal(
    build({ ...BASE, localHostname: 'ip-10-0-0-5.us-east-2.compute.internal' }).v1['local-hostname'],
    'ip-10-0-0-5',
  );
  assert.equal(build({ ...BASE, localHostname: '10.0.0.5' }).v1.local_hostname, 'ip-10-0-0-5');
  assert.equal(build({ ...BASE, localHostname: 'plain' }).v1.local_hostname, 'plain');
  // Without one (or an empty one), get_hostname falls back to the machine's own name, its first label.
  assert.equal(build(BASE).v1.local_hostname, (hostname() || 'localhost').split('.')[0]);
  assert.equal(build({ ...BASE, localHostname: '' }).v1['local-hostname'], (hostname() || 'localhost').split('.')[0]);
});

test("a source's crawled metadata is the ds block as crawled; otherwise ds is meta_data plus the source's extra", () => {
  const crawled = {
    _metadata_api_version: '2021-03-23',
    'meta-data': { 'instance-id': 'i-1' },
    dynamic: { 'instance-identity': { document: { region: 'r' } } },
  };
  const ds = build({ ...BASE, crawledMetadata: crawled, extra: { ec2_metadata: {} } }).ds;
  assert.deepEqual(Object.keys(ds).sort(), ['_doc', '_metadata_api_version', 'dynamic', 'meta-data']);
  assert.deepEqual(ds['meta-data'], { 'instance-id': 'i-1' });
  const plain = build({ ...BASE, extra: { ec2_metadata: { a: 1 } } }).ds;
  assert.deepEqual(Object.keys(plain).sort(), ['_doc', 'ec2_metadata', 'meta_data']);
});

test('non-root readers lose the secrets in ds, not the settings that only name a password (Azure: disable_password, disablePasswordAuthentication)', () => {
  const full = buildInstanceData({
    kernel: hostUname(),
    instance: {
      instanceId: 'i-1',
      cloudName: 'azure',
      platform: 'azure',
      subplatform: 'imds (IMDS)',
      publicKeys: [],
      metadata: {
        disable_password: true,
        lock_passwd: false,
        admin_password: 'hunter22secret',
        imds: {
          compute: {
            osProfile: { disablePasswordAuthentication: 'true', adminPassword: 'p4ss' },
            userData: 'I2Nsb3Vk',
          },
        },
      },
    },
    distro: { name: 'debian', family: 'debian', version: '12' },
    mergedConfig: {},
    systemConfig: {},
  });
  // biome-ignore lint/suspicious/noExplicitAny: the test reads nested values directly
  const md = (redactInstanceData(full).ds as { meta_data: Record<string, any> }).meta_data;
  assert.equal(md.disable_password, true);
  assert.equal(md.lock_passwd, false);
  assert.equal(md.imds.compute.osProfile.disablePasswordAuthentication, 'true');
  assert.equal(md.admin_password, REDACT_SENSITIVE_VALUE);
  assert.equal(md.imds.compute.osProfile.adminPassword, REDACT_SENSITIVE_VALUE);
  assert.equal(md.imds.compute.userData, REDACT_SENSITIVE_VALUE);
});
