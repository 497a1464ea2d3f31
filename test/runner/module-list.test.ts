import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readModuleList } from '../../src/runner/module-list';
import { semaphorePath } from '../../src/runner/semaphores';
import { cloudPaths } from '../../src/runner/cloud-paths';
import { canonicalCloudId } from '../../src/runner/cloud-id';

test('module lists: names, [name, freq] overrides, {name, frequency}, cc_ prefixes and dashes', () => {
  const l = readModuleList(
    {
      cloud_config_modules: [
        'cc_runcmd',
        ['ssh-import-id', 'always'],
        { name: 'locale', frequency: 'once' },
        ['ntp', 'per-instance', 'x'],
      ],
    },
    'config',
  );
  assert.deepEqual(l, [
    { name: 'runcmd', args: [], listedAs: 'cc_runcmd' },
    { name: 'ssh_import_id', frequency: 'always', args: [], listedAs: 'ssh-import-id' },
    { name: 'locale', frequency: 'once', args: [], listedAs: 'locale' },
    { name: 'ntp', frequency: 'once-per-instance', args: ['x'], listedAs: 'ntp' },
  ]);
  // As cloud-init: an unknown frequency is a deprecation and the module keeps its own; empty items are skipped.
  const notes: string[] = [];
  assert.deepEqual(
    readModuleList(
      {
        cloud_final_modules: [
          ['x', 'sometimes'],
          null,
          '',
          [],
          { frequency: 'always' },
          { name: 'y', frequency: 'rarely' },
        ],
      },
      'final',
      (m) => notes.push(m),
    ),
    [
      { name: 'x', args: [], listedAs: 'x' },
      { name: 'y', args: [], listedAs: 'y' },
    ],
  );
  assert.deepEqual(notes, [
    'Config specified module x has an unknown frequency sometimes is deprecated in 22.1 and scheduled to be removed in 27.1. Use always, once or once-per-instance',
    'Config specified module y has an unknown frequency rarely is deprecated in 22.1 and scheduled to be removed in 27.1. Use always, once or once-per-instance',
  ]);
  assert.throws(
    () => readModuleList({ cloud_final_modules: [42] }, 'final'),
    /cloud_final_modules\[0\]: expected a module name/,
  );
  assert.deepEqual(readModuleList({}, 'init'), []);
});

test('semaphore paths as cloud-init names them', () => {
  const p = cloudPaths({ system_info: { paths: { cloud_dir: '/var/lib/cloud/', run_dir: '/run/cloud-init/' } } });
  assert.equal(
    semaphorePath(p, 'i-1', 'runcmd', 'once-per-instance'),
    '/var/lib/cloud/instances/i-1/sem/config_runcmd',
  );
  assert.equal(semaphorePath(p, 'i-1', 'runcmd', 'once'), '/var/lib/cloud/sem/config_runcmd.once');
  assert.equal(semaphorePath(p, 'i-1', 'runcmd', 'always'), undefined);
});

test('canonical cloud ids', () => {
  assert.equal(canonicalCloudId('aws', 'cn-north-1', 'ec2'), 'aws-china');
  assert.equal(canonicalCloudId('aws', 'us-gov-west-1', 'ec2'), 'aws-gov');
  assert.equal(canonicalCloudId('aws', 'eu-west-1', 'ec2'), 'aws');
  assert.equal(canonicalCloudId('unknown', undefined, 'nocloud'), 'nocloud');
  assert.equal(canonicalCloudId('openstack', 'r', 'openstack'), 'openstack');
});
