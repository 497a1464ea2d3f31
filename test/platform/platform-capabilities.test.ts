// What the machine offers beyond files and commands is a Platform capability, which a dry run lacks, not a question
// of which platform this is: the files kiln shares with the host (Hyper-V KVP pools), emptied and appended to in
// place by the Linux platform, and the running Windows, reached through the Windows platform only.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform } from '../../src/platform/platform';
import { KvpTelemetry } from '../../src/sources/azure/kvp';
import { Logger } from '../../src/util/log';
import { tempDir } from '../helpers/temp';
import { FakeWindows } from './windows/fake-win32';

const TELEMETRY = { reporting: { telemetry: { type: 'hyperv' } } };

/** A root whose KVP pool holds records written long before this boot. */
function stalePool(t: TestContext): { root: string; pool: string } {
  const root = tempDir(t);
  mkdirSync(join(root, 'var/lib/hyperv'), { recursive: true });
  const pool = join(root, 'var/lib/hyperv/.kvp_pool_1');
  writeFileSync(pool, 'old records');
  utimesSync(pool, 1_000_000, 1_000_000);
  return { root, pool };
}

test('the Linux platform empties a host pool file in place and appends to it, at its path inside the root', async (t) => {
  const { root, pool } = stalePool(t);
  const inode = statSync(pool).ino;
  const linux = new LinuxPlatform({ root, log: new Logger().for('platform') });
  // stat tells the time too (the lease and metadata files sources compare), without leaving the Platform.
  assert.equal((await linux.stat('/var/lib/hyperv/.kvp_pool_1'))?.mtimeMs, 1_000_000_000);
  const files = linux.hostReports();
  assert.equal(await files.lastWritten('/var/lib/hyperv/.kvp_pool_1'), 1_000_000_000);
  assert.equal(await files.lastWritten('/var/lib/hyperv/missing'), undefined);
  await files.empty('/var/lib/hyperv/.kvp_pool_1');
  await files.append('/var/lib/hyperv/.kvp_pool_1', Buffer.from('new'));
  assert.equal(readFileSync(pool, 'utf8'), 'new');
  assert.equal(statSync(pool).ino, inode, 'the same file the host daemon knows, not a new one');
});

test('a dry run has no host reports: KVP telemetry is not made, and the pool is left as it was', async (t) => {
  const { root, pool } = stalePool(t);
  const log = new Logger().for('handlers.py');
  const dry: Platform = new DryRunPlatform(new LinuxPlatform({ root, log }));
  assert.equal(dry.hostReports, undefined);
  assert.equal(await KvpTelemetry.fromConfig(dry, TELEMETRY, log), undefined);
  assert.equal(readFileSync(pool, 'utf8'), 'old records');
  // The same config on the real platform makes telemetry, which empties the stale pool.
  assert.ok(await KvpTelemetry.fromConfig(new LinuxPlatform({ root, log }), TELEMETRY, log));
  assert.equal(readFileSync(pool, 'utf8'), '');
});

test('only the Windows platform reaches the running Windows: a dry run over it, and Linux, have none', () => {
  const win = new FakeWindows().platform();
  assert.equal(win.windows(), win);
  const dry: Platform = new DryRunPlatform(win);
  assert.equal(dry.windows, undefined);
  const linux: Platform = new LinuxPlatform({ root: '/', log: new Logger().for('platform') });
  assert.equal(linux.windows, undefined);
});
