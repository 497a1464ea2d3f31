// `cloud-init --all-stages` (and `kiln --all-stages`): the four boot stages in one process, what
// cloud-init-main.service runs (cloud-init 25.1): each stage waits for its unit over the stage sockets.
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { runAllStages } from './run-all-stages';
import { createStageRunner } from './stage-runner-setup';

export const allStagesCommand: Command = {
  words: [],
  section: 'boot',
  summary: 'run every boot stage in one process',
  usage: '--all-stages [--file FILE]',
  faces: ['kiln', 'cloud-init'],
  selectedBy: 'all-stages',
  positional: [0, Infinity],
  flags: {
    boolean: ['all-stages'],
    string: ['file'],
    alias: { f: 'file' },
    help: [
      '--all-stages     run init-local, init, modules:config and modules:final in this one process',
      '-f, --file FILE  an extra config file merged over the system config',
    ],
  },
  async run(ctx, args) {
    const word = args.positional[0];
    if (word !== undefined) throw new UsageError(`unknown command '${word}'`);
    const runner = await createStageRunner(ctx, { file: args.flags.file as string | undefined, print: true });
    return runAllStages(ctx, runner);
  },
};
