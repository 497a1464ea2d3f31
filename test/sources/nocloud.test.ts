// NoCloud's seed files are read as cloud-init reads them (PyYAML, YAML 1.1), with errors naming file and line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMetaData, parseNetworkConfig } from '../../src/sources/nocloud';

const bytes = (text: string) => Buffer.from(text, 'utf8');

test('meta-data: YAML 1.1 values (0644 octal, yes a boolean), JSON too, an empty file is an empty mapping', () => {
  assert.deepEqual(parseMetaData(bytes('instance-id: i-1\nmode: 0644\nflag: yes\nlabel: 0o17\n'), '/seed'), { 'instance-id': 'i-1', mode: 420, flag: true, label: '0o17' });
  assert.deepEqual(parseMetaData(bytes('{"instance-id": "i-2", "n": 1}'), '/seed'), { 'instance-id': 'i-2', n: 1 });
  assert.deepEqual(parseMetaData(bytes('\n'), '/seed'), {});
});

test('meta-data and network-config that do not parse name the file, line and column', () => {
  assert.throws(() => parseMetaData(bytes('instance-id: i-1\nbad: [1\n'), '/seed'), { name: 'SourceError', message: /\/seed\/meta-data:\d+:\d+: invalid YAML/ });
  assert.throws(() => parseNetworkConfig(bytes('version: 2\nethernets: {\n'), '/seed'), { name: 'SourceError', message: /\/seed\/network-config:\d+:\d+: invalid YAML/ });
  assert.throws(() => parseMetaData(bytes('- a\n'), '/seed'), { name: 'SourceError', message: /must be a mapping/ });
});

test('network-config: v2 under `network:` with YAML 1.1 booleans', () => {
  const nc = parseNetworkConfig(bytes('network:\n  version: 2\n  ethernets:\n    eth0:\n      dhcp4: on\n'), '/seed');
  assert.deepEqual(nc, { format: 'v2', config: { version: 2, ethernets: { eth0: { dhcp4: true } } } });
});
