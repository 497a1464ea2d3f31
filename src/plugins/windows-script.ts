// Runs a script the way cloudbase-init does (cmd, PowerShell, shell, EC2 tags) and reads its 1001/1002/1003 exit code.
import { randomBytes } from 'node:crypto';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import type { PluginResult } from './plugin';

export type ScriptKind = 'cmd' | 'powershell' | 'powershell-x86' | 'shell' | 'python' | 'exe';

export interface Script {
  kind: ScriptKind;
  /** The body as it is written to disk (EC2 tags removed). */
  body: string;
}

/** The kind of a user-data script from its first bytes, as cloudbase-init's userdatautils reads them; undefined if not a script. */
export function detectScript(text: string): Script | undefined {
  const head = text.replace(/^\uFEFF/, '');
  const lower = head.trimStart().toLowerCase();
  if (lower.startsWith('rem cmd')) return { kind: 'cmd', body: head };
  if (lower.startsWith('#ps1_x86')) return { kind: 'powershell-x86', body: head };
  if (lower.startsWith('#ps1_sysnative') || lower.startsWith('#ps1')) return { kind: 'powershell', body: head };
  if (head.startsWith('#!')) return { kind: /^#!\S*python/.test(head) ? 'python' : 'shell', body: head };
  const ec2 = /<(script|powershell)>([\s\S]*?)<\/\1>/i.exec(head);
  if (ec2) return { kind: (ec2[1] as string).toLowerCase() === 'script' ? 'cmd' : 'powershell', body: ec2[2] as string };
  return undefined;
}

/** The kind of a local script from its file extension; undefined for files cloudbase-init skips. */
export function scriptKindFromExtension(name: string): ScriptKind | undefined {
  const ext = name.toLowerCase().split('.').pop();
  switch (ext) {
    case 'cmd':
    case 'bat':
      return 'cmd';
    case 'ps1':
      return 'powershell';
    case 'sh':
      return 'shell';
    case 'py':
      return 'python';
    case 'exe':
      return 'exe';
    default:
      return undefined;
  }
}

const EXTENSION: Record<ScriptKind, string> = {
  cmd: 'cmd',
  powershell: 'ps1',
  'powershell-x86': 'ps1',
  shell: 'sh',
  python: 'py',
  exe: 'exe',
};

/** The command line for a script file at HOSTPATH. */
export function scriptCommand(kind: ScriptKind, hostPath: string, systemRoot: string): string[] {
  switch (kind) {
    case 'cmd':
      return [`${systemRoot}\\System32\\cmd.exe`, '/c', hostPath];
    case 'powershell':
      return [`${systemRoot}\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`, '-ExecutionPolicy', 'RemoteSigned', '-NonInteractive', '-File', hostPath];
    case 'powershell-x86':
      return [`${systemRoot}\\SysWOW64\\WindowsPowerShell\\v1.0\\powershell.exe`, '-ExecutionPolicy', 'RemoteSigned', '-NonInteractive', '-File', hostPath];
    case 'shell':
      return ['bash.exe', hostPath];
    case 'python':
      return ['python.exe', hostPath];
    case 'exe':
      return [hostPath];
  }
}

/** cloudbase-init's exit codes: 1001 reboot, 1002 run again next boot, 1003 both; anything else is done. */
export function resultFromExitCode(code: number): PluginResult {
  return {
    reboot: code === 1001 || code === 1003,
    status: code === 1002 || code === 1003 ? 'next-boot' : 'done',
  };
}

/** Folds several results into one: any reboot reboots, any run-again runs the plugin again. */
export function combineResults(results: PluginResult[]): PluginResult {
  return {
    status: results.some((r) => r.status === 'next-boot') ? 'next-boot' : 'done',
    reboot: results.some((r) => r.reboot),
  };
}

export interface ScriptRun {
  code: number;
  result: PluginResult;
}

/** Writes SCRIPT to a private temp folder under the target's Windows\Temp, runs it, removes it. */
export async function runScript(platform: Platform, log: Log, script: Script, label: string, timeoutMs?: number): Promise<ScriptRun> {
  const dir = `Windows\\Temp\\kiln-${randomBytes(6).toString('hex')}`;
  const file = `${dir}\\${label.replace(/[^A-Za-z0-9_.-]/g, '_')}.${EXTENSION[script.kind]}`;
  // cmd.exe reads scripts in the OEM code page and wants CRLF line ends.
  const body = script.kind === 'cmd' ? script.body.replace(/\r?\n/g, '\r\n') : script.body;
  await platform.writeFile(file, body);
  try {
    return await runScriptFile(platform, log, script.kind, file, label, timeoutMs);
  } finally {
    await platform.remove(dir, { recursive: true });
  }
}

/** Runs an existing script file (a local script) of KIND. */
export async function runScriptFile(platform: Platform, log: Log, kind: ScriptKind, file: string, label: string, timeoutMs?: number): Promise<ScriptRun> {
  const systemRoot = platform.hostPath('Windows');
  const argv = scriptCommand(kind, platform.hostPath(file), systemRoot);
  log.info(`Executing ${label} (${kind})`);
  const r = await platform.run(argv, { allowFailure: true, ...(timeoutMs ? { timeoutMs } : {}) });
  if (r.stdout.trim()) log.debug(`${label} stdout: ${r.stdout.trim()}`);
  if (r.stderr.trim()) log.debug(`${label} stderr: ${r.stderr.trim()}`);
  log.info(`${label} exited with code ${r.code}`);
  return { code: r.code, result: resultFromExitCode(r.code) };
}
