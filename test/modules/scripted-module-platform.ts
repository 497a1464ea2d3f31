// A module context on a sandbox root whose commands are planned, not run: each answers from a table, and the calls (argv, input, environment) are kept for assertions.
import type { TestContext } from 'node:test';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import type { RunOpts, RunResult } from '../../src/platform/platform';
import { tempDir } from '../helpers/temp';
import { moduleContext, type TestModuleContext } from './module-context';

export interface PlannedCall {
  argv: string[];
  input?: string;
  env?: Record<string, string>;
}

/** Answers by the command's full text (words joined by spaces), else by its first word; unanswered commands exit 0. */
export class ScriptedModulePlatform extends DryRunPlatform {
  readonly calls: PlannedCall[] = [];
  constructor(
    ctx: TestModuleContext,
    private readonly answers: Record<string, Partial<RunResult>>,
  ) {
    super(ctx.platform);
  }
  override async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? [cmd] : cmd;
    await super.run(cmd, opts);
    this.calls.push({ argv, ...(opts.input !== undefined ? { input: opts.input } : {}), ...(opts.env ? { env: opts.env } : {}) });
    const a = this.answers[argv.join(' ')] ?? this.answers[argv[0] as string] ?? {};
    const r = { code: a.code ?? 0, stdout: a.stdout ?? '', stderr: a.stderr ?? '' };
    if (r.code !== 0 && !opts.allowFailure) throw new Error(`${argv.join(' ')} failed`);
    return r;
  }
}

export function scriptedModule(t: TestContext, answers: Record<string, Partial<RunResult>> = {}, distro?: DistroInfo) {
  const root = tempDir(t);
  const base = moduleContext(root, distro ? { distro } : {});
  const dry = new ScriptedModulePlatform(base, answers);
  const ctx: TestModuleContext = { ...base, platform: dry };
  return { root, ctx, dry, commands: () => dry.calls.map((c) => c.argv.join(' ')) };
}
