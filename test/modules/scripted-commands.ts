// A dry-run module platform whose commands answer from a table, recording each call's argv and input, for modules that drive vendor CLIs.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import type { RunOpts, RunResult } from '../../src/platform/platform';
import { tempDir } from '../helpers/temp';
import { moduleContext, type TestModuleContext } from './module-context';

export interface ScriptedCall {
  command: string;
  input?: string;
  /** For a command fed a file name on its input: that file's planned content when the command ran. */
  inputFile?: string;
}

/** Answers by the command's full text, else its first word; unanswered commands succeed with no output. */
export class ScriptedCommandPlatform extends DryRunPlatform {
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
    const call: ScriptedCall = { command, ...(opts.input !== undefined ? { input: opts.input } : {}) };
    const named = /\s(\/\S+)\n?$/.exec(opts.input ?? '')?.[1];
    if (named) call.inputFile = await this.readTextIfExists(named);
    this.calls.push(call);
    const a = this.answers[command] ?? this.answers[argv[0] as string] ?? {};
    const r = { code: a.code ?? 0, stdout: a.stdout ?? '', stderr: a.stderr ?? '' };
    if (r.code !== 0 && !opts.allowFailure) throw new Error(`${command} failed`);
    return r;
  }
  /** Every run effect as --dry-run prints it (secrets already replaced). */
  shownCommands(): string[] {
    return this.effects.flatMap((e) => (e.kind === 'run' ? [e.command] : []));
  }
}

export function scriptedModule(t: TestContext, answers: Record<string, Partial<RunResult>> = {}, distro?: DistroInfo) {
  const root = tempDir(t);
  const base = moduleContext(root, distro ? { distro } : {});
  const dry = new ScriptedCommandPlatform(base, answers);
  const ctx = { ...base, platform: dry };
  return { root, ctx, dry, commands: () => dry.calls.map((c) => c.command) };
}

/** An executable stand-in at PATH in ROOT, so the module's `which` finds the tool. */
export function putTool(root: string, path: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), '#!/bin/sh\n');
  chmodSync(join(root, path), 0o755);
}
