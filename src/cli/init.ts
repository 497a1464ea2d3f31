// `init [--local]`: cloud-init's init-local (before networking) or init (network) stage.
import type { StageOutcome } from '../runner/stage-runner';
import type { Command } from './command';
import { createStageRunner } from './stage-runner-setup';

/** cloud-init exits 1 when a stage recorded any error, 0 otherwise (a disabled boot is not an error). */
export function stageExitCode(outcomes: StageOutcome[]): number {
  return outcomes.some((o) => o.failed || o.errors.length > 0) ? 1 : 0;
}

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
    if (allStages) return stageExitCode(await runner.runAllStages());
    return stageExitCode([await runner.runStage(args.flags.local ? 'init-local' : 'init')]);
  },
};
