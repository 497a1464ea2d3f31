// kiln's entry point: picks the face from the invocation name, parses argv, runs one command, sets the exit code.
import { statSync } from 'node:fs';
import { buildFacts, type BuildFacts } from './build-info';
import type { CommandContext, Output } from './cli/command';
import { faceFromInvocation, type Face } from './cli/face';
import { commandHelp, faceHelp, groupHelp } from './cli/help';
import { parseInvocation, type Invocation } from './cli/parse-args';
import { COMMANDS } from './cli/registry';
import { shortVersion } from './cli/version';
import { sourceMappedStack } from './util/source-mapped-stack';
import { createPlatform } from './platform/create-platform';
import { DryRunPlatform, describeEffect } from './platform/dry-run-platform';
import type { Platform } from './platform/platform';
import { directOutput } from './util/direct-output';
import { tty } from './util/on-demand-builtins';
import { KilnError, UsageError, describeError } from './util/errors';
import { Logger, StreamSink } from './util/log';

export interface MainOptions {
  argv: string[];
  argv0: string;
  env: NodeJS.ProcessEnv;
  io: Output;
  facts?: BuildFacts;
}

export async function main(opts: MainOptions): Promise<number> {
  const face: Face = faceFromInvocation(opts.argv0, opts.env.KILN_FACE);
  const facts = opts.facts ?? buildFacts;
  let invocation: Invocation;
  try {
    invocation = parseInvocation(opts.argv, COMMANDS, face);
  } catch (err) {
    if (err instanceof UsageError) {
      opts.io.err(`${face}: error: ${err.message}\nRun '${face} --help' for usage.\n`);
      return 2;
    }
    throw err;
  }
  const { command, group, args, global } = invocation;
  if (global.version) {
    opts.io.out(`${shortVersion(face, facts.version, opts.argv0, opts.env.PATH)}\n`);
    return 0;
  }
  if (group) {
    if (global.help) {
      opts.io.out(groupHelp(face, group, COMMANDS));
      return 0;
    }
    opts.io.err(`${face}: error: '${group.join(' ')}' needs a subcommand\n${groupHelp(face, group, COMMANDS)}`);
    return 2;
  }
  if (!command) {
    const os = facts.target.os === 'win' ? 'windows' : 'linux';
    if (global.help) {
      opts.io.out(faceHelp(face, COMMANDS, os));
      return 0;
    }
    opts.io.err(`${face}: error: no command given\n${faceHelp(face, COMMANDS, os)}`);
    return 2;
  }
  if (global.help) {
    opts.io.out(commandHelp(face, command));
    return 0;
  }
  const badRoot = rootProblem(global.root);
  if (badRoot) {
    opts.io.err(`${face}: error: --root ${global.root}: ${badRoot}\n`);
    return 2;
  }

  const logger = new Logger();
  logger.addSink(new StreamSink(global.debug ? 'DEBUG' : 'WARNING', { write: (s: string) => opts.io.err(s) }));
  const log = logger.for('main.ts');
  let platform: Platform | undefined;
  const ctx: CommandContext = {
    face,
    facts,
    root: global.root,
    dryRun: global.dryRun,
    debug: global.debug,
    logger,
    log,
    io: opts.io,
    env: opts.env,
    argv0: opts.argv0,
    platform: () =>
      (platform ??= createPlatform({
        root: global.root,
        dryRun: global.dryRun,
        log: logger.for('platform.ts'),
        facts,
        env: opts.env,
      })),
  };
  try {
    const code = await command.run(ctx, args);
    if (platform instanceof DryRunPlatform) {
      opts.io.out(
        `dry run: ${platform.effects.length} effect${platform.effects.length === 1 ? '' : 's'} not applied\n`,
      );
      for (const e of platform.effects) opts.io.out(`  ${describeEffect(e)}\n`);
    }
    return code;
  } catch (err) {
    if (err instanceof UsageError) {
      opts.io.err(`${face}: error: ${err.message}\n`);
      return 2;
    }
    opts.io.err(`${face}: error: ${logger.redactor.scrub(describeError(err))}\n`);
    if (!(err instanceof KilnError) || global.debug)
      log.debug(err instanceof Error ? sourceMappedStack(err.stack ?? err.message, opts.env) : String(err));
    return 1;
  } finally {
    logger.close();
  }
}

/** Why ROOT cannot be the root kiln works in (a missing folder, a file), or undefined; '/' is the machine itself. */
function rootProblem(root: string): string | undefined {
  if (root === '/') return undefined;
  const st = statSync(root, { throwIfNoEntry: false });
  if (st === undefined) return 'no such folder';
  return st.isDirectory() ? undefined : 'not a folder';
}

/** Arguments after the program itself; a single-executable build repeats the executable in argv[1]. */
function userArgs(): string[] {
  return process.argv.slice(2);
}

// The bundle is CommonJS; test bundles are ESM and import main() without running it.
const isEntryPoint = typeof module !== 'undefined' && typeof require !== 'undefined' && require.main === module;
if (isEntryPoint) {
  main({
    argv: userArgs(),
    argv0: process.argv0,
    env: process.env,
    io: (() => {
      // One writer for text and bytes, so that their order is kept.
      const out = directOutput(1, () => process.stdout);
      return { out, outBytes: out, outIsTerminal: () => tty().isatty(1), err: directOutput(2, () => process.stderr) };
    })(),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(
        `kiln: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
