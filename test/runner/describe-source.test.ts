import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeSource, sourceClassName } from '../../src/runner/describe-source';
import type { InstanceData } from '../../src/sources/datasource';

const data = (subplatform: string, metadata: Record<string, unknown> = {}): InstanceData => ({
  instanceId: 'i',
  cloudName: 'x',
  platform: 'x',
  subplatform,
  publicKeys: [],
  metadata,
});

test("Azure and OVF describe themselves by their seed, as cloud-init 22.4's __str__ does", () => {
  assert.equal(
    describeSource('Azure', data('seed-dir (/var/lib/cloud/seed/azure)')),
    'DataSourceAzure [seed=/var/lib/cloud/seed/azure]',
  );
  assert.equal(describeSource('Azure', data('config-disk (/dev/sr0)')), 'DataSourceAzure [seed=/dev/sr0]');
  assert.equal(describeSource('Azure', data('imds (IMDS)')), 'DataSourceAzure [seed=IMDS]');
  assert.equal(describeSource('OVF', data('vmware (/dev/sr0)'), 'network'), 'DataSourceOVFNet [seed=/dev/sr0]');
});

test('the *Local classes in init-local, the plain ones in init; sources registered once keep one class', () => {
  assert.equal(sourceClassName('Ec2', 'local'), 'DataSourceEc2Local');
  assert.equal(sourceClassName('Ec2', 'network'), 'DataSourceEc2');
  assert.equal(sourceClassName('AliYun', 'local'), 'DataSourceAliYunLocal');
  assert.equal(sourceClassName('AliYun', 'network'), 'DataSourceAliYun');
  assert.equal(sourceClassName('GCE', 'local'), 'DataSourceGCELocal');
  assert.equal(sourceClassName('NoCloud', 'network'), 'DataSourceNoCloudNet');
  assert.equal(sourceClassName('Oracle', 'network'), 'DataSourceOracle');
  assert.equal(
    describeSource('OpenStack', data('metadata (http://169.254.169.254)')),
    'DataSourceOpenStackLocal [net,ver=2]',
  );
  assert.equal(describeSource('Hetzner', data('metadata (http://169.254.169.254/hetzner/v1/)')), 'DataSourceHetzner');
});

test("every other class prints as 22.4's __str__ does: the class alone, or its own bracketed detail", () => {
  for (const name of [
    'Scaleway',
    'Vultr',
    'NWCS',
    'CloudStack',
    'Exoscale',
    'DigitalOcean',
    'LXD',
    'Bigstep',
    'CloudSigma',
    'None',
  ]) {
    assert.equal(describeSource(name, data('metadata (http://169.254.169.254/x)')), `DataSource${name}`, name);
  }
  assert.equal(
    describeSource('UpCloud', data('metadata (http://169.254.169.254/metadata/v1.json)')),
    'DataSourceUpCloudLocal',
  );
  assert.equal(
    describeSource('UpCloud', data('metadata (http://169.254.169.254/metadata/v1.json)'), 'network'),
    'DataSourceUpCloud',
  );
  assert.equal(
    describeSource('MAAS', data('seed-dir (http://10.199.0.1/MAAS/metadata/)'), 'network'),
    'DataSourceMAAS [http://10.199.0.1/MAAS/metadata/]',
  );
  assert.equal(
    describeSource('OpenNebula', data('config-disk (/dev/sr0)')),
    'DataSourceOpenNebula [seed=/dev/sr0][dsmode=net]',
  );
  assert.equal(
    describeSource('ConfigDrive', data('config-disk (/dev/sr0)', { dsmode: 'local' })),
    'DataSourceConfigDrive [local,ver=2][source=/dev/sr0]',
  );
  assert.equal(describeSource('RbxCloud', data('unknown')), 'DataSourceRbxCloud [seed=None]');
  assert.equal(
    describeSource('SmartOS', data('serial (/dev/ttyS1)')),
    'DataSourceSmartOS [client=JoyentMetadataSerialClient(device=/dev/ttyS1, timeout=60)]',
  );
});

test("NoCloud prints as 25.1's __str__: its seed, and the dsmode only when it is not the default net", () => {
  assert.equal(
    describeSource('NoCloud', data('seed-dir (/var/lib/cloud/seed/nocloud)')),
    'DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud]',
  );
  assert.equal(
    describeSource('NoCloud', data('seed-dir (/var/lib/cloud/seed/nocloud)', { dsmode: 'local' })),
    'DataSourceNoCloud [seed=/var/lib/cloud/seed/nocloud][dsmode=local]',
  );
  assert.equal(
    describeSource('NoCloud', data('seed-dir (/var/lib/cloud/seed/nocloud)', { dsmode: 'net' }), 'network'),
    'DataSourceNoCloudNet [seed=/var/lib/cloud/seed/nocloud]',
  );
});

test("VMware prints as 25.1's __str__: the data access method as its seed (22.4 printed the class alone)", () => {
  assert.equal(describeSource('VMware', data('guestinfo (guestinfo.metadata)')), 'DataSourceVMware [seed=guestinfo]');
  assert.equal(describeSource('VMware', data('envvar (vmx.guestinfo.metadata)')), 'DataSourceVMware [seed=envvar]');
  assert.equal(describeSource('VMware', data('imc (/var/run/vmware-imc/cust.cfg)')), 'DataSourceVMware [seed=imc]');
});
