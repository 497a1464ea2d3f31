// The shape of a subcommand and of what it is given to run.
import type { BuildFacts } from '../build-info';
import type { Platform } from '../platform/platform';
import type { Log, Logger } from '../util/log';
import type { Face } from './face';

export interface FlagSpec {
  /** Flags taking a value, without dashes. */
  string?: string[];
  /** Flags that are on or off. */
  boolean?: string[];
  /** Short or alternative names: alias → canonical name. */
  alias?: Record<string, string>;
  /** Flags that may be given several times (values collected in a list). */
  repeatable?: string[];
  /** Repeatable flags that also take every word after them up to the next flag (argparse's nargs='+'). */
  greedy?: string[];
  /** One line per flag for --help. */
  help?: string[];
}

export interface ParsedArgs {
  /** Positional arguments after the command words. */
  positional: string[];
  flags: Record<string, string | boolean | string[] | undefined>;
}

export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Writes BYTES to standard output unchanged (a binary file's content), in order with out(). */
  outBytes?(bytes: Uint8Array): void;
  /** Whether standard output is a terminal, where binary bytes must not go. */
  outIsTerminal?(): boolean;
}

export interface CommandContext {
  face: Face;
  facts: BuildFacts;
  root: string;
  dryRun: boolean;
  debug: boolean;
  logger: Logger;
  log: Log;
  io: Output;
  env: NodeJS.ProcessEnv;
  /** The name kiln was started by (process.argv0): `cloud-init`, `/usr/bin/cloud-init`, `kiln`. */
  argv0: string;
  /** The platform for --root (wrapped for --dry-run); made on first use. */
  platform(): Platform;
}

export interface Command {
  /** Words that select the command: ['version'], ['devel', 'show-config']. */
  readonly words: string[];
  readonly summary: string;
  /** Usage line after the program name, e.g. 'version [--long]'. */
  readonly usage: string;
  readonly flags: FlagSpec;
  /** Faces that offer the command. */
  readonly faces: Face[];
  /**
   * For a command without words (`--all-stages`): the boolean flag that selects it. Without that flag the
   * invocation names no command, so the face's help is shown instead.
   */
  readonly selectedBy?: string;
  /** The one operating system the command works on (the cloudbase-init flow and its service: Windows); unset: both. */
  readonly os?: 'linux' | 'windows';
  /** 'boot': a stage the init system runs at boot, listed apart in --help. */
  readonly section?: 'boot';
  /** Positional arguments accepted: [min, max] (max Infinity for any). */
  readonly positional?: [number, number];
  run(ctx: CommandContext, args: ParsedArgs): Promise<number>;
}
