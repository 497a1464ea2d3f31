// util.shellify: turns a bootcmd/runcmd list (strings run as-is, lists single-quoted word by word) into a /bin/sh
// script.
import { ModuleError } from '../module';
import { readConfigValue } from './config-readers';
import { pyTypeName } from '../../util/python-type-name';

/** A command as shellify takes it: a line run as it is, or words each single-quoted. */
export type ShellCommand = string | readonly string[];

/**
 * CMDLIST as util.shellify reads it, for a module's config reader: a list is required, each word of a list item is
 * Python's str() of it ([sleep, 10] is sleep '10'), a null item (a YAML comment) is dropped; anything else is refused
 * with shellify's TypeError words in a ModuleError of MODULE, after "Failed to shellify KEY:" (cc_bootcmd's log line).
 */
export function shellCommands(module: string, key: string, cmdlist: unknown): ShellCommand[] {
  const refuse = (why: string): never => {
    throw new ModuleError(module, `Failed to shellify ${key}: ${why}`);
  };
  if (!Array.isArray(cmdlist)) refuse(`Input to shellify was type '${pyTypeName(cmdlist)}'. Expected list or tuple.`);
  const commands: ShellCommand[] = [];
  for (const args of cmdlist as unknown[]) {
    if (Array.isArray(args)) commands.push(args.map((word: unknown) => readConfigValue('str', word) as string));
    else if (typeof args === 'string') commands.push(args);
    else if (args !== null && args !== undefined) {
      refuse(
        `Unable to shellify type '${pyTypeName(args)}'. Expected list, string, tuple. Got: ${readConfigValue('str', args) as string}`,
      );
    }
  }
  return commands;
}

/** The /bin/sh script of COMMANDS (as shellCommands reads them; a null, which it drops, is skipped). */
export function shellify(commands: readonly (ShellCommand | null)[]): string {
  let content = '#!/bin/sh\n';
  for (const args of commands) {
    if (args === null) continue;
    content +=
      typeof args === 'string' ? `${args}\n` : `${args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')}\n`;
  }
  return content;
}
