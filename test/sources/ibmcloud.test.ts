// IBMCloud's provisioning-boot check: swinstall.log written in this boot (newer than PID 1's environ) means still
// provisioning, an older one means the provisioned system.
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { DetectContext } from '../../src/sources/datasource';
import { ibmCloudSource, isIbmProvisioning } from '../../src/sources/ibmcloud';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FakeFinder } from './fake-finder';

function ctxFor(root: string): DetectContext {
  const log = new Logger().for('test');
  const platform = new LinuxPlatform({ root, log });
  return { platform, log, kernelCmdline: '', dmi: {}, config: {}, finder: new FakeFinder(platform) };
}

function file(root: string, path: string, seconds?: number): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), 'x');
  if (seconds !== undefined) utimesSync(join(root, path), seconds, seconds);
}

test('provisioning: the config alone; with swinstall.log only when it is newer than /proc/1/environ; never without the config', async (t) => {
  const root = tempDir(t);
  file(root, 'proc/xen/capabilities');
  assert.equal(await isIbmProvisioning(ctxFor(root)), false);
  file(root, 'root/provisioningConfiguration.cfg');
  assert.equal(await isIbmProvisioning(ctxFor(root)), true);
  // A log from a previous boot: this is the provisioned system.
  file(root, 'proc/1/environ', 2_000_000_000);
  file(root, 'root/swinstall.log', 1_900_000_000);
  assert.equal(await isIbmProvisioning(ctxFor(root)), false);
  // Written in this boot: still provisioning, and IBMCloud is not detected.
  utimesSync(join(root, 'root/swinstall.log'), 2_000_000_100, 2_000_000_100);
  assert.equal(await isIbmProvisioning(ctxFor(root)), true);
  assert.equal(await ibmCloudSource.detect(ctxFor(root)), false);
});

test('provisioning: a swinstall.log without the boot reference counts as not provisioning (cloud-init, unlike ds-identify)', async (t) => {
  const root = tempDir(t);
  file(root, 'root/provisioningConfiguration.cfg');
  file(root, 'root/swinstall.log');
  assert.equal(await isIbmProvisioning(ctxFor(root)), false);
});
