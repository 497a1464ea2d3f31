// `single --name MODULE [--frequency F]`: runs one cloud-config module now, as cloud-init single does.
import { parseFrequency } from '../runner/semaphores';
import { UsageError } from '../util/errors';
import type { Command } from './command';
import { createStageRunner } from './stage-runner-setup';

export const singleCommand: Command = {
  words: ['single'],
  section: 'boot',
  summary: 'run a single module now',
  usage: 'single --name MODULE [--frequency always|once|once-per-instance] [--file FILE] [--report]',
  faces: ['kiln', 'cloud-init'],
  positional: [0, 0],
  flags: {
    string: ['name', 'frequency', 'file'],
    boolean: ['report'],
    alias: { n: 'name', f: 'file' },
    help: [
      '-n, --name MODULE   the module, e.g. write_files or cc_write_files',
      '--frequency F       override the module frequency (always runs it again)',
      '-f, --file FILE     an extra config file merged over the config',
      '--report            accepted for compatibility',
    ],
  },
  async run(ctx, args) {
    const name = args.flags.name as string | undefined;
    if (!name) throw new UsageError('--name MODULE is required');
    const freqText = args.flags.frequency as string | undefined;
    const frequency = freqText === undefined ? undefined : parseFrequency(freqText);
    if (freqText !== undefined && frequency === undefined)
      throw new UsageError(`--frequency must be always, once or once-per-instance, not '${freqText}'`);
    const runner = await createStageRunner(ctx, { file: args.flags.file as string | undefined });
    const out = await runner.runSingle(name, frequency);
    if (!out.ran && out.errors.length === 0) ctx.io.err(`module ${name} did not run: ${out.reason ?? 'skipped'}\n`);
    return out.errors.length > 0 ? 1 : 0;
  },
};
