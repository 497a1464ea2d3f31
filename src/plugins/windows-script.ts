// Runs scripts for the plugins through src/userdata's Windows runner and folds their 1001/1002/1003 requests into a
// plugin result.
import type { Platform } from '../platform/platform';
import { runWindowsScript, windowsHostFacts, type WindowsScriptOutcome } from '../userdata/windows-runner';
import { exitCodeRequest, kindFromExtension, windowsLaunchLine, type WindowsScript } from '../userdata/windows-scripts';
import type { Log } from '../util/log';
import type { PluginResult } from './plugin';

/** cloudbase-init's exit codes as a plugin result: 1001 reboot, 1002 run again next boot, 1003 both. */
export function resultFromExitCode(code: number): PluginResult {
  const req = exitCodeRequest(code);
  return { reboot: req.reboot, status: req.runAgain ? 'next-boot' : 'done' };
}

/** Folds several results into one: any reboot reboots, any run-again runs the plugin again, any persisted persists. */
export function combineResults(results: PluginResult[]): PluginResult {
  return {
    status: results.some((r) => r.status === 'next-boot') ? 'next-boot' : 'done',
    reboot: results.some((r) => r.reboot),
    ...(results.some((r) => r.persistent) ? { persistent: true } : {}),
  };
}

export interface ScriptHost {
  platform: Platform;
  log: Log;
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Writes SCRIPT to a private temp file in %SystemRoot%\Temp, runs it, removes it; logs its output. */
export async function runScript(host: ScriptHost, script: WindowsScript): Promise<PluginResult> {
  const facts = windowsHostFacts(host.env);
  const outcome = await runWindowsScript(
    {
      platform: host.platform,
      host: facts,
      tempDir: `${facts.systemRoot}\\Temp`,
      log: host.log,
      ...(host.timeoutMs ? { timeoutMs: host.timeoutMs } : {}),
    },
    script,
  );
  logOutcome(host.log, outcome);
  if (outcome.error) throw new Error(`${script.name}: ${outcome.error}`);
  return {
    reboot: outcome.reboot,
    status: outcome.runAgain ? 'next-boot' : 'done',
    ...(outcome.persist ? { persistent: true } : {}),
  };
}

/**
 * EC2 `<script>` and `<powershell>` blocks as cloudbase-init's EC2Config executor runs them: every block runs, whatever
 * an earlier one returned, and their exit codes are added up (a block that cannot be started is logged and adds 0);
 * the sum then says reboot / run again as one exit code would, so `<script>` 1001 with `<powershell>` 0 reboots, and
 * 1001 with 1002 (2003) asks for nothing.
 */
export async function runEc2Blocks(host: ScriptHost, scripts: WindowsScript[]): Promise<PluginResult> {
  const facts = windowsHostFacts(host.env);
  let sum = 0;
  for (const script of scripts) {
    const outcome = await runWindowsScript(
      {
        platform: host.platform,
        host: facts,
        tempDir: `${facts.systemRoot}\\Temp`,
        log: host.log,
        ...(host.timeoutMs ? { timeoutMs: host.timeoutMs } : {}),
      },
      script,
    );
    logOutcome(host.log, outcome);
    if (outcome.error) host.log.warn(`${script.name}: ${outcome.error}`);
    else sum += outcome.code;
  }
  if (scripts.length > 1) host.log.info(`EC2 user data blocks ended with the summed return code: ${sum}`);
  return { ...resultFromExitCode(sum), ...(scripts.some((s) => s.persist) ? { persistent: true } : {}) };
}

function logOutcome(log: Log, o: WindowsScriptOutcome): void {
  if (o.stdout.trim()) log.debug(`${o.name} stdout: ${o.stdout.trim()}`);
  if (o.stderr.trim()) log.debug(`${o.name} stderr: ${o.stderr.trim()}`);
}

/** Runs an existing script file (a local script): .cmd/.bat, .ps1, .py, .sh or .exe. */
export async function runScriptFile(
  host: ScriptHost,
  hostPath: string,
  name: string,
): Promise<PluginResult | undefined> {
  // cloudbase-init's extension table (fileexecutils), and .bat beside .cmd.
  const kind = /\.bat$/i.test(name) ? 'cmd' : kindFromExtension(name);
  if (kind === undefined) return undefined;
  const argv = windowsLaunchLine(kind, hostPath, windowsHostFacts(host.env));
  host.log.info(`Executing local script ${name}`);
  const r = await host.platform.run(argv, {
    allowFailure: true,
    ...(host.timeoutMs ? { timeoutMs: host.timeoutMs } : {}),
  });
  host.log.info(`Script ${name} ended with return code: ${r.code}`);
  if (r.stdout.trim()) host.log.debug(`${name} stdout: ${r.stdout.trim()}`);
  if (r.stderr.trim()) host.log.debug(`${name} stderr: ${r.stderr.trim()}`);
  return resultFromExitCode(r.code);
}
