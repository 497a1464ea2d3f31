// `init [--local]`: cloud-init's init-local (before networking) or init (network) stage.
import type { Command } from './command';
import { runAllStages } from './run-all-stages';
import { stageExitCode } from './stage-exit-code';
import { createStageRunner } from './stage-runner-setup';

export const initCommand: Command = {
  words: ['init'],
  section: 'boot',
  summary: 'run the init stage: find the datasource, apply network config, consume user data, run cloud_init_modules',
  usage: 'init [--local] [--file FILE] [--all-stages]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    boolean: ['local', 'all-stages'],
    string: ['file'],
    alias: { l: 'local', f: 'file' },
    help: [
      '-l, --local      the init-local stage: local datasources only, before networking is up',
      '-f, --file FILE  an extra config file merged over the system config',
      '--all-stages     run init-local, init, modules:config and modules:final in this one process',
    ],
  },
  async run(ctx, args) {
    const allStages = args.flags['all-stages'] === true;
    const runner = await createStageRunner(ctx, { file: args.flags.file as string | undefined, print: true });
    if (allStages) return runAllStages(ctx, runner);
    return stageExitCode([await runner.runStage(args.flags.local ? 'init-local' : 'init')]);
  },
};
