// cc_scripts_user: runs the user-data scripts (and runcmd) in /var/lib/cloud/instance/scripts.
import { posix } from 'node:path';
import type { Module } from './module';
import { runParts } from './support/run-parts';

export const scriptsUserModule: Module = {
  name: 'scripts_user',
  stage: 'final',
  frequency: 'once-per-instance',
  distros: 'all',
  activateBy: [],
  async run(ctx): Promise<void> {
    await runParts(ctx, 'scripts_user', posix.join(ctx.instanceDir, 'scripts'));
  },
};
