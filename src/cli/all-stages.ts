// `cloud-init --all-stages`: the four boot stages in one process (the single-process systemd unit runs this).
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { faceHelp } from './help';
import { stageExitCode } from './init';
import { createStageRunner } from './stage-runner-setup';

export const allStagesCommand: Command = {
  words: [],
  summary: 'run every boot stage in one process',
  usage: '--all-stages [--file FILE]',
  faces: ['cloud-init'],
  positional: [0, Infinity],
  flags: {
    boolean: ['all-stages'],
    string: ['file'],
    alias: { f: 'file' },
    help: ['--all-stages     run init-local, init, modules:config and modules:final in this one process', '-f, --file FILE  an extra config file merged over the system config'],
  },
  async run(ctx, args) {
    const word = args.positional[0];
    if (word !== undefined) throw new UsageError(`unknown command '${word}'`);
    if (!args.flags['all-stages']) {
      // The registry imports this file, so it is read lazily here.
      const { COMMANDS } = await import('./registry');
      ctx.io.err(`${ctx.face}: error: no command given\n${faceHelp(ctx.face, COMMANDS)}`);
      return 2;
    }
    const runner = await createStageRunner(ctx, { file: args.flags.file as string | undefined, print: true });
    return stageExitCode(await runner.runAllStages());
  },
};
