// Runs one kiln command in-process with a captured output, mapping errors to exit codes as main does.
import { buildFacts } from '../../src/build-info';
import type { CommandContext } from '../../src/cli/command';
import { parseInvocation } from '../../src/cli/parse-args';
import { COMMANDS } from '../../src/cli/registry';
import { createPlatform } from '../../src/platform/create-platform';
import { UsageError, describeError } from '../../src/util/errors';
import { Logger } from '../../src/util/log';

export async function kiln(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const logger = new Logger();
  try {
    const { command, args, global } = parseInvocation(argv, COMMANDS, 'kiln');
    if (!command) throw new UsageError(`no command in ${argv.join(' ')}`);
    const ctx: CommandContext = {
      face: 'kiln',
      argv0: 'kiln',
      facts: buildFacts,
      root: global.root,
      dryRun: global.dryRun,
      debug: global.debug,
      logger,
      log: logger.for('test'),
      io: { out: (s) => (out += s), err: (s) => (err += s) },
      env,
      platform: () =>
        createPlatform({
          root: global.root,
          dryRun: global.dryRun,
          log: logger.for('platform'),
          facts: buildFacts,
          env,
        }),
    };
    return { code: await command.run(ctx, args), out, err };
  } catch (e) {
    return { code: e instanceof UsageError ? 2 : 1, out, err: err + describeError(e) };
  }
}
