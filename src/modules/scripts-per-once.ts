// cc_scripts_per_once: runs the scripts in /var/lib/cloud/scripts/per-once (frequency: once).
import { posix } from 'node:path';
import type { Module } from './module';
import { runParts } from './support/run-parts';

export const scriptsPerOnceModule: Module = {
  name: 'scripts_per_once',
  stage: 'final',
  frequency: 'once',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    await runParts(ctx, 'scripts_per_once', posix.join(ctx.paths.cloudDir, 'scripts', 'per-once'));
  },
};
