// Datasource detection on a machine with no cloud: DMI, cmdline, seed folders, labels, then the None fallback.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LinuxFilesystemFinder } from '../../src/devices/linux-finder';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import { buildDetectContext, detectSources } from '../../src/sources/detect';
import { findSource } from '../../src/sources/find-source';
import { DATASOURCES } from '../../src/sources/registry';
import { Logger } from '../../src/util/log';
import { medianMsAsync, printTable } from './measure';

const root = mkdtempSync(join(tmpdir(), 'kiln-bench-detect-'));
try {
  const files: Record<string, string> = {
    'proc/cmdline': 'BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet\n',
    'sys/class/dmi/id/sys_vendor': 'QEMU\n',
    'sys/class/dmi/id/product_name': 'Standard PC (Q35 + ICH9, 2009)\n',
    'sys/class/dmi/id/product_uuid': '5a1c9b42-1d2e-4f00-9a6b-0123456789ab\n',
    'sys/class/block/.keep': '',
  };
  for (const [p, c] of Object.entries(files)) {
    mkdirSync(join(root, p, '..'), { recursive: true });
    writeFileSync(join(root, p), c);
  }
  const log = new Logger().for('bench');
  const platform = new LinuxPlatform({ root, log });
  const finder = new LinuxFilesystemFinder({ root, log });
  const config = { datasource_list: DATASOURCES.map((d) => d.name) };
  let decided = '';
  const whole = async () => {
    const ctx = await buildDetectContext({ platform, log, config, finder });
    const { candidates } = await detectSources(ctx);
    const found = await findSource(ctx, candidates, { stage: 'network' });
    decided = found?.source.name ?? 'nothing';
  };
  const detectOnly = async () => {
    const ctx = await buildDetectContext({ platform, log, config, finder });
    await detectSources(ctx);
  };
  const t0 = performance.now();
  await whole();
  const first = performance.now() - t0;
  const median = await medianMsAsync(20, whole);
  const detectMedian = await medianMsAsync(20, detectOnly);
  printTable(
    ['step (no-cloud root)', 'ms', 'under 1 s'],
    [
      ['first detect + None crawl (cold)', first.toFixed(1), first < 1000 ? 'yes' : 'NO'],
      ['detect + None crawl, median of 20', median.toFixed(1), median < 1000 ? 'yes' : 'NO'],
      ['detect only, median of 20', detectMedian.toFixed(1), detectMedian < 1000 ? 'yes' : 'NO'],
    ],
  );
  console.log(`decided: ${decided}`);
  if (decided !== 'None' || first >= 1000) process.exitCode = 1;
} finally {
  rmSync(root, { recursive: true, force: true });
}
