// Module errors as cloud-init lists them in status.json and result.json: the Python repr of (module, exception).
import { CommandError, type CommandFailure } from '../util/command-error';
import { describeError } from '../util/errors';

/** Python's repr() of a str: single quotes unless the text has a ' and no ", escapes as Python writes them. */
export function pyStrRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === '\\') out += '\\\\';
    else if (ch === q) out += `\\${q}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${q}${out}${q}`;
}

/**
 * Output as ProcessExecutionError shows it: '-' when not captured, nothing when captured and empty (22.4 keeps
 * the empty string: "Stdout: " in status.json), later lines indented by 8.
 */
function indentOutput(text: string | undefined): string {
  if (text === undefined) return '-';
  if (text === '') return '';
  return text
    .replace(/\r/g, '')
    .replace(/\n$/, '')
    .replace(/\n/g, `\n${' '.repeat(8)}`);
}

/** The message of cloud-init's ProcessExecutionError for a failed command. */
export function processExecutionMessage(f: CommandFailure): string {
  return [
    'Unexpected error while running command.',
    `Command: [${f.argv.map(pyStrRepr).join(', ')}]`,
    `Exit code: ${f.code ?? '-'}`,
    `Reason: ${f.reason ?? '-'}`,
    `Stdout: ${indentOutput(f.stdout)}`,
    `Stderr: ${indentOutput(f.stderr)}`,
  ].join('\n');
}

/** "('locale', ProcessExecutionError(\"…\"))": what cloud-init appends to a stage's errors when a module raises. */
export function moduleErrorRepr(module: string, err: unknown, canonical = module): string {
  if (err instanceof CommandError)
    return `(${pyStrRepr(module)}, ProcessExecutionError(${pyStrRepr(processExecutionMessage(err.failure))}))`;
  // An error may name the Python exception cloud-init raises in its place (pythonName).
  const py = err !== null && typeof err === 'object' ? (err as { pythonName?: unknown }).pythonName : undefined;
  const name = typeof py === 'string' ? py : err instanceof Error ? err.name : 'Exception';
  const why = describeError(err);
  return `(${pyStrRepr(module)}, ${name}(${pyStrRepr(why.startsWith(`${canonical}: `) ? why.slice(canonical.length + 2) : why)}))`;
}
