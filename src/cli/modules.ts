// `modules --mode init|config|final`: one module stage (cloud_init_modules, cloud_config_modules, cloud_final_modules).
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { stageExitCode } from './stage-exit-code';
import { createStageRunner } from './stage-runner-setup';

export const modulesCommand: Command = {
  words: ['modules'],
  section: 'boot',
  summary: 'run the modules of one stage: --mode config (default) or final',
  usage: 'modules [--mode init|config|final] [--file FILE]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: ['mode', 'file'],
    alias: { m: 'mode', f: 'file' },
    help: [
      '-m, --mode MODE  init, config (default) or final',
      '-f, --file FILE  an extra config file merged over the system config',
    ],
  },
  async run(ctx, args) {
    const mode = (args.flags.mode as string | undefined) ?? 'config';
    if (mode !== 'init' && mode !== 'config' && mode !== 'final')
      throw new UsageError(`--mode must be init, config or final, not '${mode}'`);
    const runner = await createStageRunner(ctx, { file: args.flags.file as string | undefined, print: true });
    return stageExitCode([
      await runner.runStage(mode === 'init' ? 'init' : mode === 'config' ? 'modules-config' : 'modules-final'),
    ]);
  },
};
