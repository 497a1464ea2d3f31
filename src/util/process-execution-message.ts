// The message of cloud-init's ProcessExecutionError (str() of it) for a failed command, as status.json and the
// modules that log it show it.
import type { CommandFailure } from './command-error';
import { pyStrRepr } from './python-str-repr';

/**
 * Output as ProcessExecutionError shows it: '-' when not captured, nothing when captured and empty (22.4 keeps
 * the empty string: "Stdout: " in status.json), its trailing newlines dropped and later lines indented by 8.
 */
function indentOutput(text: string | undefined): string {
  if (text === undefined) return '-';
  if (text === '') return '';
  return text
    .replace(/\r/g, '')
    .replace(/\n+$/, '')
    .replace(/\n/g, `\n${' '.repeat(8)}`);
}

/** A failed command as ProcessExecutionError takes it: the command a list of words, or a string given to subp. */
export type ProcessExecution = Omit<CommandFailure, 'argv'> & { readonly argv: readonly string[] | string };

/** The message of cloud-init's ProcessExecutionError for a failed command (a string command shown as it is). */
export function processExecutionMessage(f: ProcessExecution): string {
  return [
    'Unexpected error while running command.',
    `Command: ${typeof f.argv === 'string' ? f.argv : `[${f.argv.map(pyStrRepr).join(', ')}]`}`,
    `Exit code: ${f.code ?? '-'}`,
    `Reason: ${f.reason ?? '-'}`,
    `Stdout: ${indentOutput(f.stdout)}`,
    `Stderr: ${indentOutput(f.stderr)}`,
  ].join('\n');
}
