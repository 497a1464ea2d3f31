// The runner names a found source only through what the source registers: its class per stage and its own description.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeSource, sourceClassName } from '../../src/runner/describe-source';
import type { InstanceData } from '../../src/sources/datasource';
import { DATASOURCES, WINDOWS_ONLY_SOURCES } from '../../src/sources/registry';

const data: InstanceData = {
  instanceId: 'i-1',
  cloudName: 'c',
  platform: 'p',
  subplatform: 'seed-dir (/dev/sr0)',
  publicKeys: [],
  metadata: { dsmode: 'local' },
};

test('every source is named by its registered class per stage, else DataSource<name>', () => {
  const perStage = DATASOURCES.filter((s) => s.classNames);
  assert.deepEqual(perStage.map((s) => s.name).sort(), [
    'AliYun',
    'Ec2',
    'GCE',
    'NoCloud',
    'OVF',
    'OpenStack',
    'UpCloud',
  ]);
  for (const s of [...DATASOURCES, ...WINDOWS_ONLY_SOURCES]) {
    for (const stage of ['local', 'network'] as const)
      assert.equal(
        sourceClassName(s.name, stage),
        `DataSource${s.classNames?.[stage] ?? s.name}`,
        `${s.name} ${stage}`,
      );
  }
  assert.equal(sourceClassName('Ec2', 'local'), 'DataSourceEc2Local');
});

test("a source's own description is the one the runner writes; the others are their class name", () => {
  const described = DATASOURCES.filter((s) => s.describe);
  assert.equal(described.length, 12);
  for (const s of DATASOURCES) {
    const cls = sourceClassName(s.name, 'network');
    assert.equal(describeSource(s.name, data, 'network'), s.describe ? s.describe(data, cls) : cls, s.name);
  }
  assert.equal(describeSource('NoCloud', data, 'network'), 'DataSourceNoCloudNet [seed=/dev/sr0][dsmode=local]');
});
