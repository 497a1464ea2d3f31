import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildFacts } from '../../src/build-info';
import { loadSystemConfig } from '../../src/config/load-system-config';
import { parseYamlConfig } from '../../src/config/parse-yaml-config';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

test('embedded defaults < cloud.cfg < cloud.cfg.d (sorted) < /run/cloud-init/cloud.cfg', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  mkdirSync(join(root, 'run/cloud-init'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg'),
    'preserve_hostname: true\nsystem_info: {default_user: {name: admin}}\n',
  );
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/90-b.cfg'), 'datasource_list: [Ec2]\n');
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/10-a.cfg'), 'datasource_list: [NoCloud]\nfoo: 1\n');
  writeFileSync(join(root, 'etc/cloud/cloud.cfg.d/ignored.txt'), 'foo: 2\n');
  writeFileSync(join(root, 'run/cloud-init/cloud.cfg'), 'foo: 3\n');
  const loaded = await loadSystemConfig(
    new LinuxPlatform({ root, log: new Logger().for('t') }),
    buildFacts.defaultCloudConfig,
  );
  // biome-ignore lint/suspicious/noExplicitAny: the test reads nested values directly
  const c = loaded.config as Record<string, any>;
  assert.equal(c.preserve_hostname, true);
  assert.deepEqual(c.datasource_list, ['Ec2']);
  assert.equal(c.foo, 3);
  assert.equal(c.system_info.default_user.name, 'admin');
  assert.equal(c.system_info.default_user.shell, '/bin/bash', 'nested keys of the defaults survive');
  assert.ok(Array.isArray(c.cloud_init_modules));
  assert.deepEqual(loaded.sources.slice(1), [
    '/etc/cloud/cloud.cfg',
    '/etc/cloud/cloud.cfg.d/10-a.cfg',
    '/etc/cloud/cloud.cfg.d/90-b.cfg',
    '/run/cloud-init/cloud.cfg',
  ]);
});

test('bad YAML names the file, line and column', () => {
  assert.throws(
    () => parseYamlConfig('a: 1\nb: [1, 2\n', '/etc/cloud/cloud.cfg'),
    /\/etc\/cloud\/cloud\.cfg:\d+:\d+: invalid YAML/,
  );
  assert.throws(() => parseYamlConfig('- 1\n', 'x.cfg'), /x\.cfg: expected a mapping/);
});

test('cloud.cfg.d is read as YAML 1.1, as PyYAML reads it for cloud-init (0644 octal, on/off booleans, 0o17 a string)', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/50-mode.cfg'),
    'mode: 0644\nflag: on\nother: off\nnot_octal: 0o17\nbig: 1_000\n',
  );
  const loaded = await loadSystemConfig(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined);
  assert.deepEqual(loaded.config, { mode: 420, flag: true, other: false, not_octal: '0o17', big: 1000 });
});

test('the embedded cloud.cfg was read at build time, and each load gets its own copy of it', async (t) => {
  const embedded = buildFacts.defaultCloudConfig;
  assert.ok(embedded && Array.isArray(embedded.cloud_init_modules), 'the build embeds the value, not the text');
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log: new Logger().for('t') });
  const first = await loadSystemConfig(platform, embedded);
  (first.config.cloud_init_modules as unknown[]).push('changed');
  const second = await loadSystemConfig(platform, embedded);
  assert.deepEqual(second.config.cloud_init_modules, embedded.cloud_init_modules);
  assert.ok(!(embedded.cloud_init_modules as unknown[]).includes('changed'));
});

test('invalid UTF-8 in a cloud.cfg.d file is an error naming the file, line and column', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'etc/cloud/cloud.cfg.d'), { recursive: true });
  writeFileSync(
    join(root, 'etc/cloud/cloud.cfg.d/50-bad.cfg'),
    Buffer.concat([Buffer.from('a: 1\nb: x'), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]),
  );
  await assert.rejects(
    loadSystemConfig(new LinuxPlatform({ root, log: new Logger().for('t') }), undefined),
    /\/etc\/cloud\/cloud\.cfg\.d\/50-bad\.cfg:2:5: invalid UTF-8 \(byte 0xc3 at offset 9\)/,
  );
});
