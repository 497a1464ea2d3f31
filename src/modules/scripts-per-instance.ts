// cc_scripts_per_instance: runs the scripts in /var/lib/cloud/scripts/per-instance (frequency: once-per-instance).
import { posix } from 'node:path';
import type { Module } from './module';
import { runParts } from './support/run-parts';

export const scriptsPerInstanceModule: Module = {
  name: 'scripts_per_instance',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    await runParts(ctx, 'scripts_per_instance', posix.join(ctx.paths.cloudDir, 'scripts', 'per-instance'));
  },
};
