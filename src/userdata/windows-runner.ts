// Runs one Windows user-data script as cloudbase-init does: private temp file, the right interpreter, removed after.
import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import {
  EXTENSION,
  exitCodeRequest,
  windowsLaunchLine,
  type WindowsHostFacts,
  type WindowsScript,
} from './windows-scripts';
import { describeError } from '../util/errors';

export interface WindowsScriptOutcome {
  name: string;
  kind: WindowsScript['kind'];
  /** The command line used (with the temp file's path). */
  launch: string[];
  code: number;
  reboot: boolean;
  /** What the exit code asked for (1002, 1003); a persisted script's every-boot runs are `persist`. */
  runAgain: boolean;
  /**
   * The script is persisted (EC2 `<persist>true</persist>`, EC2Launch v2 `frequency: always`): it runs at every boot.
   */
  persist: boolean;
  stdout: string;
  stderr: string;
  error?: string;
}

export interface WindowsRunContext {
  platform: Platform;
  host: WindowsHostFacts;
  /** Folder for the temp script files (the service account's %TEMP%). */
  tempDir: string;
  log?: Log;
  timeoutMs?: number;
}

/** Host facts from the environment Windows gives a process (SystemRoot, WOW64 markers). */
export function windowsHostFacts(env: NodeJS.ProcessEnv): WindowsHostFacts {
  const arch = (env.PROCESSOR_ARCHITECTURE ?? '').toUpperCase();
  const wow64 = env.PROCESSOR_ARCHITEW6432 !== undefined && env.PROCESSOR_ARCHITEW6432 !== '';
  return {
    systemRoot: env.SystemRoot ?? env.SYSTEMROOT ?? env.windir ?? 'C:\\Windows',
    os64: wow64 || arch === 'AMD64' || arch === 'ARM64' || arch === 'IA64',
    wow64,
  };
}

/** Writes SCRIPT to a randomly named file in the temp folder, runs it, removes it, maps its exit code. */
export async function runWindowsScript(ctx: WindowsRunContext, script: WindowsScript): Promise<WindowsScriptOutcome> {
  const sep = ctx.tempDir.includes('\\') ? '\\' : '/';
  const path = `${ctx.tempDir.replace(/[\\/]+$/, '')}${sep}kiln-${randomBytes(16).toString('hex')}${EXTENSION[script.kind]}`;
  const launch = windowsLaunchLine(script.kind, path, ctx.host);
  const base = { name: script.name, kind: script.kind, launch, persist: script.persist };
  try {
    await ctx.platform.writeFile(path, script.content, { mode: 0o600 });
  } catch (err) {
    return {
      ...base,
      code: -1,
      reboot: false,
      runAgain: false,
      stdout: '',
      stderr: '',
      error: `cannot write the script to ${path}: ${describeError(err)}`,
    };
  }
  try {
    const r = await ctx.platform.run(launch, {
      allowFailure: true,
      ...(ctx.timeoutMs ? { timeoutMs: ctx.timeoutMs } : {}),
    });
    const req = exitCodeRequest(r.code);
    ctx.log?.info(`Script ${script.name} ended with return code: ${r.code}`);
    return { ...base, code: r.code, reboot: req.reboot, runAgain: req.runAgain, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    return {
      ...base,
      code: -1,
      reboot: false,
      runAgain: false,
      stdout: '',
      stderr: '',
      error: `could not start ${launch[0]}: ${describeError(err)}`,
    };
  } finally {
    await ctx.platform.remove(path).catch(() => undefined);
  }
}

/**
 * What a plugin reports after its scripts: reboot when any asked, run again when any asked, persist when any is
 * persisted.
 */
export function combineRequests(outcomes: WindowsScriptOutcome[]): {
  reboot: boolean;
  runAgain: boolean;
  persist: boolean;
} {
  return {
    reboot: outcomes.some((o) => o.reboot),
    runAgain: outcomes.some((o) => o.runAgain),
    persist: outcomes.some((o) => o.persist),
  };
}
