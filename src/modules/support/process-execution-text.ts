// str() of cloud-init's subp.ProcessExecutionError, as modules put it in their warnings and errors.
import { pyRepr } from '../../config/schema/python-repr';

/** What a failed subp call records: '-' stands for what is absent (an exit code, a reason, uncaptured output). */
export interface ProcessExecutionFacts {
  code?: number;
  reason?: string;
  stdout?: string;
  stderr?: string;
}

/**
 * The error's message for COMMAND (a string as it is, a list as its repr): description, command, exit code,
 * reason, then the output, its later lines indented by 8 and its trailing newlines dropped; captured output that is
 * empty stays empty.
 */
export function processExecutionText(command: string | readonly unknown[], f: ProcessExecutionFacts): string {
  const output = (text: string | undefined) =>
    text === undefined ? '-' : text.replace(/\n+$/, '').replace(/\n/g, `\n${' '.repeat(8)}`);
  return [
    'Unexpected error while running command.',
    `Command: ${typeof command === 'string' ? command : pyRepr(command)}`,
    `Exit code: ${f.code ?? '-'}`,
    `Reason: ${f.reason ?? '-'}`,
    `Stdout: ${output(f.stdout)}`,
    `Stderr: ${output(f.stderr)}`,
  ].join('\n');
}
