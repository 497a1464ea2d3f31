// winrm.vbs under cscript with its command line written out as `winrm.cmd` (and winrm's own help) writes it:
// @{Key="value"}.
import type { RunResult } from '../platform/platform';
import type { PluginContext } from './plugin';

/**
 * ARG as it goes on winrm.vbs's command line. winrm.vbs reads its raw command line (WSMan.Automation's CommandLine),
 * not the arguments Windows Script Host split: blanks separate arguments except inside double quotes or braces, and
 * quotes are winrm's own syntax (`@{Hostname="web01"}`), so they go as they are, never as the `\"` Node's quoting
 * would make of them. An argument with a blank and no quote is put in quotes, which winrm.vbs takes off again.
 * Undefined: the argument cannot be written so that winrm.vbs reads it back whole (a stray quote, a blank outside
 * quotes and braces in an argument that has quotes).
 */
export function winrmArgument(arg: string): string | undefined {
  if (arg === '') return '""';
  if (!arg.includes('"')) return /\s/.test(arg) ? `"${arg}"` : arg;
  let inQuote = false;
  let inBraces = false;
  for (const c of arg) {
    if (c === '"') inQuote = !inQuote;
    else if (!inQuote && c === '{') inBraces = true;
    else if (!inQuote && c === '}') inBraces = false;
    else if (/\s/.test(c) && !inQuote && !inBraces) return undefined;
  }
  return inQuote ? undefined : arg;
}

/**
 * Runs `cscript //NoLogo winrm.vbs ARGS` (what winrm.cmd runs; Node will not start a .cmd without a shell) with the
 * command line handed over verbatim. Fails with the code and output in the result, never throws for a non-zero exit.
 * A value winrm.vbs cannot be given (a double quote in a password) is a clear error; SECRETS never appear in it.
 */
export async function runWinrm(ctx: PluginContext, args: string[], secrets: string[] = []): Promise<RunResult> {
  const argv = [
    ctx.platform.hostPath('Windows\\System32\\cscript.exe'),
    '//NoLogo',
    ctx.platform.hostPath('Windows\\System32\\winrm.vbs'),
    ...args,
  ];
  // argv[0] stays as it is: it is the program Node starts (never split: CreateProcess is given it on its own).
  const line = argv.map((arg, i) => {
    if (i === 0) return arg;
    const written = winrmArgument(arg);
    if (written === undefined) {
      const shown = secrets.reduce((s, secret) => (secret ? s.replaceAll(secret, '********') : s), arg);
      throw new Error(
        `winrm argument ${i - 2} (${shown}) cannot be written on winrm.vbs's command line: a double quote inside a value, or a blank outside quotes`,
      );
    }
    return written;
  });
  return ctx.platform.run(line, {
    allowFailure: true,
    verbatimArguments: true,
    ...(secrets.length > 0 ? { secrets } : {}),
  });
}
