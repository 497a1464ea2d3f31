// cloud-init's util.shellify: a list of commands (strings as they are, lists single-quoted) into a sh script.
import { ModuleError } from './module';

export function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** The script text; KEY names the config key for errors ('runcmd', 'bootcmd'). */
export function shellify(commands: unknown, key: string, addHeader = true): string {
  if (!Array.isArray(commands)) {
    throw new ModuleError(key, `'${key}' must be a list of commands (strings or lists), got ${commands === null ? 'null' : typeof commands}`);
  }
  let out = addHeader ? '#!/bin/sh\n' : '';
  commands.forEach((cmd: unknown, i) => {
    if (cmd === null || cmd === undefined) return; // a YAML comment line parses to null
    if (typeof cmd === 'string') out += `${cmd}\n`;
    else if (Array.isArray(cmd)) out += `${cmd.map((a) => shellQuote(scalarText(a))).join(' ')}\n`;
    else throw new ModuleError(key, `item ${i} of '${key}' is a ${typeof cmd}; expected a string or a list of arguments`);
  });
  return out;
}

function scalarText(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null) return 'None';
  return String(v);
}
