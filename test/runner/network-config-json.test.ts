// network-config.json: the applied network config in the instance folder, linked from /run/cloud-init (25.1).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { cloudPaths } from '../../src/runner/cloud-paths';
import { writeNetworkConfigJson } from '../../src/runner/network-config-json';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

test('the applied network config goes to the instance folder as sorted JSON (0600), linked from /run/cloud-init; nothing before an instance is known', async (t) => {
  const root = tempDir(t);
  const platform = new LinuxPlatform({ root, log: new Logger().for('p') });
  const paths = cloudPaths();
  const config = { version: 2, ethernets: { eth0: { dhcp4: true } } };
  await writeNetworkConfigJson(platform, paths, config);
  assert.equal(existsSync(join(root, 'run/cloud-init/network-config.json')), false);
  mkdirSync(join(root, 'var/lib/cloud/instances/i-1'), { recursive: true });
  symlinkSync('/var/lib/cloud/instances/i-1', join(root, 'var/lib/cloud/instance'));
  await writeNetworkConfigJson(platform, paths, config);
  const file = join(root, 'var/lib/cloud/instances/i-1/network-config.json');
  assert.equal(
    readFileSync(file, 'utf8'),
    '{\n "ethernets": {\n  "eth0": {\n   "dhcp4": true\n  }\n },\n "version": 2\n}\n',
  );
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(
    readlinkSync(join(root, 'run/cloud-init/network-config.json')),
    '/var/lib/cloud/instance/network-config.json',
  );
});
