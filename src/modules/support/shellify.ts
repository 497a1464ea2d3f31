// util.shellify: turns a bootcmd/runcmd list (strings run as-is, lists single-quoted word by word) into a /bin/sh script.
import { ModuleError } from '../module';

export function shellify(module: string, key: string, cmdlist: unknown): string {
  if (!Array.isArray(cmdlist)) throw new ModuleError(module, `'${key}' must be a list of commands, got ${cmdlist === null ? 'null' : typeof cmdlist}`);
  let content = '#!/bin/sh\n';
  for (const [i, args] of cmdlist.entries()) {
    if (Array.isArray(args)) content += `${args.map((a) => `'${pyScalar(a).replace(/'/g, `'\\''`)}'`).join(' ')}\n`;
    else if (typeof args === 'string') content += `${args}\n`;
    else if (args === null || args === undefined) continue; // a YAML comment-only item
    else throw new ModuleError(module, `${key}[${i}] must be a string or a list of words, got ${typeof args}`);
  }
  return content;
}

function pyScalar(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}
