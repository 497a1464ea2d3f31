// cc_scripts_per_boot: runs the scripts in /var/lib/cloud/scripts/per-boot (frequency: always).
import { posix } from 'node:path';
import type { Module } from './module';
import { runParts } from './support/run-parts';

export const scriptsPerBootModule: Module = {
  name: 'scripts_per_boot',
  stage: 'final',
  frequency: 'always',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    await runParts(ctx, 'scripts_per_boot', posix.join(ctx.paths.cloudDir, 'scripts', 'per-boot'));
  },
};
