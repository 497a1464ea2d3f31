// Writing user-data scripts where cloud-init keeps them and running them in the target root (run-parts).
import { posix } from 'node:path';
import type { Platform, RunResult } from '../platform/platform';
import type { Log } from '../util/log';
import type { ScriptPart } from './process-user-data';
import { describeError } from '../util/errors';

export interface ScriptRunContext {
  platform: Platform;
  instanceId: string;
  log?: Log;
  /** cloud-init's data dir; default /var/lib/cloud. */
  cloudDir?: string;
  /** Where script output is appended; default /var/log/cloud-init-output.log. */
  outputLog?: string;
  /** Extra environment for every script. */
  env?: Record<string, string>;
  /** Per-script time limit; default none (cloud-init waits). */
  timeoutMs?: number;
}

export interface ScriptOutcome {
  name: string;
  /** Path inside the target root. */
  path: string;
  /** Exit code; -1 when the script could not be started. */
  code: number;
  ok: boolean;
  /** Why it failed, for a person (missing interpreter, exit code, timeout). */
  error?: string;
  stdout: string;
  stderr: string;
}

/** PATH used inside the target, as the platform runs commands. */
const TARGET_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The folder a script goes to, as cloud-init's shellscript handlers pick it. */
export function scriptDir(
  script: Pick<ScriptPart, 'source' | 'frequency' | 'frequencyFromType' | 'kind'>,
  instanceId: string,
  cloudDir = '/var/lib/cloud',
): string {
  const idir = posix.join(cloudDir, 'instances', cleanName(instanceId));
  if (script.kind === 'boothook') return posix.join(idir, 'boothooks');
  if (script.frequencyFromType) return posix.join(cloudDir, 'scripts', script.frequency);
  return script.source === 'user' ? posix.join(idir, 'scripts') : posix.join(idir, 'scripts', 'vendor');
}

/** A file name that cannot leave its folder (cloud-init's clean_filename, plus no dot-only names). */
export function cleanName(name: string): string {
  const base = name.replace(/[/\\\0]/g, '_').replace(/[\x00-\x1f\x7f]/g, '');
  return base === '' || base === '.' || base === '..' ? '_' : base;
}

/** Writes SCRIPTS (mode 0700) into their folders; returns the paths written, in order. */
export async function writeUserScripts(ctx: ScriptRunContext, scripts: ScriptPart[]): Promise<string[]> {
  const written: string[] = [];
  for (const s of scripts) {
    const dir = scriptDir(s, ctx.instanceId, ctx.cloudDir);
    const path = posix.join(dir, cleanName(s.name));
    await ctx.platform.mkdir(dir, { mode: 0o755 });
    await ctx.platform.writeFile(path, s.content, { mode: 0o700 });
    ctx.log?.debug(`Wrote ${s.source} script ${s.name} to ${path}`);
    written.push(path);
  }
  return written;
}

/** The interpreter line of a script, split: `#!/usr/bin/env python3` → ['/usr/bin/env', 'python3']. */
export function shebang(content: Uint8Array): string[] | undefined {
  const head = Buffer.from(content.subarray(0, 256)).toString('utf8');
  if (!head.startsWith('#!')) return undefined;
  const line = head.slice(2).split('\n')[0]?.trim() ?? '';
  return line ? line.split(/\s+/) : undefined;
}

/** Checks that what a script's `#!` line names exists in the target root; returns a reason when not. */
export async function missingInterpreter(platform: Platform, content: Uint8Array): Promise<string | undefined> {
  const sb = shebang(content);
  if (!sb) return undefined;
  const [interp, ...args] = sb as [string, ...string[]];
  if (!interp.startsWith('/')) return `its '#!' line names '${interp}', which is not an absolute path`;
  if (!(await platform.exists(interp))) return `its interpreter ${interp} does not exist in the target root`;
  if (posix.basename(interp) === 'env') {
    const prog = args.find((a) => !a.startsWith('-') && !a.includes('='));
    if (!prog) return undefined;
    if (prog.startsWith('/'))
      return (await platform.exists(prog)) ? undefined : `its interpreter ${prog} does not exist in the target root`;
    for (const dir of TARGET_PATH) if (await platform.exists(posix.join(dir, prog))) return undefined;
    return `its interpreter '${prog}' (from '#!${sb.join(' ')}') is not installed in the target root (searched ${TARGET_PATH.join(':')})`;
  }
  return undefined;
}

async function appendOutput(ctx: ScriptRunContext, text: string): Promise<void> {
  if (!text) return;
  try {
    await ctx.platform.writeFile(
      ctx.outputLog ?? '/var/log/cloud-init-output.log',
      text.endsWith('\n') ? text : `${text}\n`,
      { append: true, mode: 0o640 },
    );
  } catch (err) {
    ctx.log?.warn(
      `cannot append script output to ${ctx.outputLog ?? '/var/log/cloud-init-output.log'}: ${describeError(err)}`,
    );
  }
}

/** Runs one script file (inside the target root); never throws for the script's own failure. */
export async function runScript(
  ctx: ScriptRunContext,
  path: string,
  extraEnv: Record<string, string> = {},
): Promise<ScriptOutcome> {
  const name = posix.basename(path);
  let content: Uint8Array;
  try {
    content = await ctx.platform.readFile(path);
  } catch (err) {
    return {
      name,
      path,
      code: -1,
      ok: false,
      error: `cannot read ${path}: ${describeError(err)}`,
      stdout: '',
      stderr: '',
    };
  }
  const missing = await missingInterpreter(ctx.platform, content);
  if (missing) {
    const error = `script ${path} cannot run: ${missing}`;
    ctx.log?.warn(error);
    await appendOutput(ctx, error);
    return { name, path, code: -1, ok: false, error, stdout: '', stderr: '' };
  }
  // Executed directly, as run-parts does: the kernel reads the '#!' line; without one, sh runs it (execvp).
  const argv = shebang(content) ? [path] : ['/bin/sh', path];
  let r: RunResult;
  try {
    r = await ctx.platform.run(argv, {
      allowFailure: true,
      env: { ...ctx.env, ...extraEnv },
      ...(ctx.timeoutMs ? { timeoutMs: ctx.timeoutMs } : {}),
    });
  } catch (err) {
    const error = `script ${path} could not start: ${describeError(err)}`;
    await appendOutput(ctx, error);
    return { name, path, code: -1, ok: false, error, stdout: '', stderr: '' };
  }
  await appendOutput(ctx, r.stdout + r.stderr);
  const ok = r.code === 0;
  const outcome: ScriptOutcome = { name, path, code: r.code, ok, stdout: r.stdout, stderr: r.stderr };
  if (!ok) {
    outcome.error = `script ${path} failed with exit code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').slice(-3).join(' / ')}` : ''}`;
    ctx.log?.warn(outcome.error);
  }
  return outcome;
}

/**
 * cloud-init's run-parts over DIR: every regular file, in name order; a failing script is recorded and
 * the next still runs. A missing folder runs nothing.
 */
export async function runScriptsIn(
  ctx: ScriptRunContext,
  dir: string,
  extraEnv: Record<string, string> = {},
): Promise<ScriptOutcome[]> {
  let names: string[];
  try {
    names = await ctx.platform.listDir(dir);
  } catch {
    return []; // a folder that cannot be listed runs nothing (see above)
  }
  const outcomes: ScriptOutcome[] = [];
  for (const n of [...names].sort()) {
    const path = posix.join(dir, n);
    try {
      await ctx.platform.listDir(path);
      continue; // a folder (scripts/vendor inside scripts/): not a script
    } catch {
      /* not a folder: a script */
    }
    outcomes.push(await runScript(ctx, path, extraEnv));
  }
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length > 0)
    ctx.log?.warn(
      `Runparts: ${failed.length} failures (${failed.map((f) => f.name).join(',')}) in ${outcomes.length} attempted commands`,
    );
  return outcomes;
}

/** Writes and runs boothooks at once (init stage), with INSTANCE_ID set, as cloud-init's boothook handler does. */
export async function runBoothooks(ctx: ScriptRunContext, boothooks: ScriptPart[]): Promise<ScriptOutcome[]> {
  const paths = await writeUserScripts(ctx, boothooks);
  const outcomes: ScriptOutcome[] = [];
  for (const p of paths) outcomes.push(await runScript(ctx, p, { INSTANCE_ID: ctx.instanceId }));
  return outcomes;
}
