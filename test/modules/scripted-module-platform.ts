// A module context on a sandbox root whose commands are planned, not run: each answers from a table, and every call
// (argv, input, environment, folder) is kept for assertions.
import type { TestContext } from 'node:test';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import type { RunOpts, RunResult } from '../../src/platform/platform';
import { CommandError } from '../../src/util/command-error';
import { tempDir } from '../helpers/temp';
import { moduleContext, type TestModuleContext } from './module-context';

export interface ScriptedCall {
  argv: string[];
  /** The argv joined by spaces, as the answer table and most assertions name a command. */
  command: string;
  input?: string;
  /**
   * For a command fed a file name on its input (`X_LOADTEMPLATEFILE /path`): that file's planned content when the
   * command ran.
   */
  inputFile?: string;
  env?: Record<string, string>;
  cwd?: string;
}

/** Answers by the command's full text, else by its first word; unanswered commands succeed with no output. */
export class ScriptedModulePlatform extends DryRunPlatform {
  readonly calls: ScriptedCall[] = [];
  constructor(
    ctx: TestModuleContext,
    private readonly answers: Record<string, Partial<RunResult>>,
  ) {
    super(ctx.platform);
  }
  override async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? [cmd] : cmd;
    const command = argv.join(' ');
    await super.run(cmd, opts);
    const call: ScriptedCall = {
      argv,
      command,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
    };
    const named = /\s(\/\S+)\n?$/.exec(opts.input ?? '')?.[1];
    const planned = named ? await this.readTextIfExists(named) : undefined;
    if (planned !== undefined) call.inputFile = planned;
    this.calls.push(call);
    const a = this.answers[command] ?? this.answers[argv[0] as string] ?? {};
    const r = { code: a.code ?? 0, stdout: a.stdout ?? '', stderr: a.stderr ?? '' };
    // As the real platforms: a failed command the caller did not allow is a CommandError (cloud-init's
    // ProcessExecutionError).
    if (r.code !== 0 && !opts.allowFailure)
      throw new CommandError(`${command} failed`, { argv, code: r.code, stdout: r.stdout, stderr: r.stderr });
    return r;
  }
  /** Every run effect as --dry-run prints it (secrets already replaced). */
  shownCommands(): string[] {
    return this.effects.flatMap((e) => (e.kind === 'run' ? [e.command] : []));
  }
}

/** A scripted module context on a fresh sandbox root (Debian 12 unless DISTRO says otherwise). */
export function scriptedModule(t: TestContext, answers: Record<string, Partial<RunResult>> = {}, distro?: DistroInfo) {
  const root = tempDir(t);
  const base = moduleContext(root, distro ? { distro } : {});
  const dry = new ScriptedModulePlatform(base, answers);
  const ctx: TestModuleContext = { ...base, platform: dry };
  return { root, ctx, dry, commands: () => dry.calls.map((c) => c.command), text: (p: string) => dry.readText(p) };
}
