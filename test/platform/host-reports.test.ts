// The files kiln shares with the machine's host (Hyper-V KVP pools) are reached through the Platform: the Linux
// platform empties and appends to the pool in place, and a dry run has no host reports, so KVP telemetry is never
// made there, whoever asks for it.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform } from '../../src/platform/platform';
import { KvpTelemetry } from '../../src/sources/azure/kvp';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';

const TELEMETRY = { reporting: { telemetry: { type: 'hyperv' } } };

test('the Linux platform empties a host pool file in place and appends to it, at its path inside the root', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/hyperv'), { recursive: true });
  const pool = join(root, 'var/lib/hyperv/.kvp_pool_1');
  writeFileSync(pool, 'old records');
  utimesSync(pool, 1_000_000, 1_000_000);
  const inode = statSync(pool).ino;
  const files = new LinuxPlatform({ root, log: new Logger().for('platform') }).hostReports();
  assert.equal(await files.lastWritten('/var/lib/hyperv/.kvp_pool_1'), 1_000_000_000);
  assert.equal(await files.lastWritten('/var/lib/hyperv/missing'), undefined);
  await files.empty('/var/lib/hyperv/.kvp_pool_1');
  await files.append('/var/lib/hyperv/.kvp_pool_1', Buffer.from('new'));
  assert.equal(readFileSync(pool, 'utf8'), 'new');
  assert.equal(statSync(pool).ino, inode, 'the same file the host daemon knows, not a new one');
});

test('a dry run has no host reports: KVP telemetry is not made, and the pool is left as it was', async (t) => {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/hyperv'), { recursive: true });
  const pool = join(root, 'var/lib/hyperv/.kvp_pool_1');
  writeFileSync(pool, 'old records');
  utimesSync(pool, 1_000_000, 1_000_000);
  const log = new Logger().for('handlers.py');
  const dry: Platform = new DryRunPlatform(new LinuxPlatform({ root, log }));
  assert.equal(dry.hostReports, undefined);
  assert.equal(await KvpTelemetry.fromConfig(dry, TELEMETRY, log), undefined);
  assert.equal(readFileSync(pool, 'utf8'), 'old records');
  // The same config on the real platform makes telemetry, which empties the stale pool.
  assert.ok(await KvpTelemetry.fromConfig(new LinuxPlatform({ root, log }), TELEMETRY, log));
  assert.equal(readFileSync(pool, 'utf8'), '');
});
