// The real runner dependencies: init-local's temporary network is wired for a boot and left out of a dry run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { defaultRunnerDeps } from '../../src/runner/default-deps';
import { LinuxEphemeralDhcp } from '../../src/net/ephemeral/ephemeral-network';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

test('a boot gets the Linux ephemeral DHCP for init-local; a dry run gets none (a lease would change the network)', (t) => {
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root: tempDir(t), log });
  const input = { platform, embeddedConfig: undefined, version: 'test', cloudInitVersion: '25.1.4', env: {} };
  assert.ok(defaultRunnerDeps(input).ephemeralNetwork?.(log) instanceof LinuxEphemeralDhcp);
  assert.equal(defaultRunnerDeps({ ...input, dryRun: true }).ephemeralNetwork, undefined);
});
