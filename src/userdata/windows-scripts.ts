// Windows user-data scripts as cloudbase-init reads them: kind detection order, EC2 tags, EC2Launch v2 tasks.
import { readYaml } from '../config/read-yaml';

/**
 * How a script is launched: cmd.exe, python, bash, 64-bit (Sysnative) PowerShell, 32-bit (SysWOW64) PowerShell, or
 * itself (a program: an .exe part).
 */
export type WindowsScriptKind = 'cmd' | 'python' | 'bash' | 'powershell' | 'powershell-x86' | 'exe';

export interface WindowsScript {
  kind: WindowsScriptKind;
  /** Name for logs: 'user-data', 'user-data <script> 1', a MIME part's file name … */
  name: string;
  content: Uint8Array;
  /** EC2 `<persist>true</persist>` or EC2Launch v2 `frequency: always`: run again on every boot. */
  persist: boolean;
  /**
   * EC2 `<runAsLocalSystem>true</runAsLocalSystem>` / v2 `runAs: localSystem` (kiln runs as the service account either
   * way).
   */
  runAsLocalSystem: boolean;
}

export const EXTENSION: Record<WindowsScriptKind, string> = {
  cmd: '.cmd',
  python: '.py',
  bash: '.sh',
  powershell: '.ps1',
  'powershell-x86': '.ps1',
  exe: '.exe',
};

/**
 * The kind cloudbase-init picks for DATA, in its order: `rem cmd`, `#!/usr/bin/env python`, `#!`,
 * `#ps1`/`#ps1_sysnative`, `#ps1_x86`, then EC2 `<script>`/`<powershell>` tags anywhere. Undefined when none.
 */
export function detectWindowsScript(data: Uint8Array): WindowsScriptKind | 'ec2' | undefined {
  const head = Buffer.from(data).toString('latin1');
  if (/^rem\s+cmd\s/.test(head)) return 'cmd';
  if (/^#!\s*\/usr\/bin\/env\s+python\s/.test(head)) return 'python';
  if (/^#!/.test(head)) return 'bash';
  if (/^#(ps1|ps1_sysnative)\s/.test(head)) return 'powershell';
  if (/^#ps1_x86\s/.test(head)) return 'powershell-x86';
  if (/<\/?(script|powershell)>/.test(head)) return 'ec2';
  return undefined;
}

/** The kind a file name implies (cloudbase-init's extension table for MIME parts): .cmd, .py, .sh, .ps1, .exe. */
export function kindFromExtension(filename: string | undefined): WindowsScriptKind | undefined {
  const ext = filename?.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1];
  if (ext === 'cmd') return 'cmd';
  if (ext === 'py') return 'python';
  if (ext === 'sh') return 'bash';
  if (ext === 'ps1') return 'powershell';
  if (ext === 'exe') return 'exe';
  return undefined;
}

function flag(text: string, tag: string): boolean {
  const m = new RegExp(`<${tag}>\\s*([^<]*?)\\s*</${tag}>`, 'i').exec(text);
  return m !== null && /^true$/i.test(m[1] ?? '');
}

/** EC2 user data: every non-empty `<script>` block, then every `<powershell>` block (cloudbase-init's order). */
export function splitEc2Sections(data: Uint8Array, name = 'user-data'): WindowsScript[] {
  const text = Buffer.from(data).toString('utf8');
  const persist = flag(text, 'persist');
  const runAsLocalSystem = flag(text, 'runAsLocalSystem');
  const out: WindowsScript[] = [];
  const collect = (re: RegExp, kind: WindowsScriptKind, tag: string) => {
    let i = 0;
    for (const m of text.matchAll(re)) {
      const code = (m[1] ?? '').trim();
      if (!code) continue;
      out.push({
        kind,
        name: `${name} <${tag}> ${++i}`,
        content: Buffer.from(code, 'utf8'),
        persist,
        runAsLocalSystem,
      });
    }
  };
  collect(/<script>([\s\S]+?)<\/script>/g, 'cmd', 'script');
  collect(/<powershell>([\s\S]+?)<\/powershell>/g, 'powershell', 'powershell');
  return out;
}

/** True for EC2Launch v2 agent-config user data: YAML with `version` and a `tasks` list. */
export function isEc2LaunchV2(text: string): boolean {
  return /^\s*version\s*:\s*['"]?1\.[01]['"]?\s*$/m.test(text) && /^\s*tasks\s*:/m.test(text);
}

export interface Ec2LaunchV2Result {
  scripts: WindowsScript[];
  /** Tasks other than executeScript: reported, not run. */
  skipped: string[];
}

/**
 * EC2Launch v2 YAML: each `executeScript` input becomes a script (powershell or batch; `frequency: always` persists).
 */
export function parseEc2LaunchV2(text: string, name = 'user-data'): Ec2LaunchV2Result {
  const doc = readYaml(text, name) as { tasks?: unknown };
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.tasks))
    throw new Error('EC2Launch v2 user data needs a `tasks` list');
  const scripts: WindowsScript[] = [];
  const skipped: string[] = [];
  doc.tasks.forEach((task: unknown, ti: number) => {
    const t = task as { task?: unknown; inputs?: unknown };
    if (t?.task !== 'executeScript') {
      skipped.push(String(t?.task ?? `tasks[${ti}]`));
      return;
    }
    const inputs = Array.isArray(t.inputs) ? t.inputs : [];
    inputs.forEach((input: unknown, ii: number) => {
      const inp = (input ?? {}) as Record<string, unknown>;
      const type = String(inp.type ?? 'powershell').toLowerCase();
      const kind: WindowsScriptKind | undefined =
        type === 'batch' ? 'cmd' : type === 'powershell' ? 'powershell' : undefined;
      if (!kind) throw new Error(`tasks[${ti}].inputs[${ii}]: script type '${type}' is not powershell or batch`);
      if (typeof inp.content !== 'string') throw new Error(`tasks[${ti}].inputs[${ii}]: content must be a string`);
      scripts.push({
        kind,
        name: `${name} executeScript ${ti + 1}.${ii + 1}`,
        content: Buffer.from(inp.content, 'utf8'),
        persist: String(inp.frequency ?? 'once').toLowerCase() === 'always',
        runAsLocalSystem: String(inp.runAs ?? 'localSystem').toLowerCase() === 'localsystem',
      });
    });
  });
  return { scripts, skipped };
}

export interface WindowsHostFacts {
  /** %SystemRoot%, e.g. C:\Windows. */
  systemRoot: string;
  /** 64-bit Windows. */
  os64: boolean;
  /** This process is 32-bit (WOW64) on 64-bit Windows. */
  wow64: boolean;
}

/** The command line cloudbase-init uses for a script written to PATH. */
export function windowsLaunchLine(kind: WindowsScriptKind, path: string, host: WindowsHostFacts): string[] {
  switch (kind) {
    case 'cmd':
      return ['cmd.exe', '/c', path];
    case 'exe':
      return [path];
    case 'python':
      return ['python', path];
    case 'bash':
      return ['bash', path];
    case 'powershell':
    case 'powershell-x86': {
      const sysnative = kind === 'powershell';
      // 64-bit PowerShell from a 32-bit process is only reachable through Sysnative; x86 PowerShell lives in SysWOW64.
      const dir = sysnative && host.wow64 ? 'Sysnative' : !sysnative && host.os64 ? 'SysWOW64' : 'System32';
      return [
        `${host.systemRoot}\\${dir}\\WindowsPowerShell\\v1.0\\powershell.exe`,
        '-ExecutionPolicy',
        'RemoteSigned',
        '-NonInteractive',
        '-File',
        path,
      ];
    }
  }
}

export interface ExitRequest {
  reboot: boolean;
  /** Run the plugin (and its scripts) again on the next boot. */
  runAgain: boolean;
}

/** cloudbase-init's exit codes: 1001 reboot, 1002 run again next boot, 1003 both; anything else neither. */
export function exitCodeRequest(code: number): ExitRequest {
  if (code >= 1001 && code <= 1003) return { reboot: (code & 1) === 1, runAgain: (code & 2) === 2 };
  return { reboot: false, runAgain: false };
}
