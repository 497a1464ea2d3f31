// --help texts: one for each face, one for each command.
import type { Command } from './command';
import type { Face } from './face';
import { GLOBAL_FLAGS } from './global-flags';

const FACE_INTRO: Record<Face, string> = {
  kiln: 'kiln: cloud-init and cloudbase-init in one self-contained binary, plus tools for building and testing images.',
  'cloud-init': 'cloud-init (kiln): initialise a cloud instance: datasource, user data, network, modules.',
  'cloudbase-init': 'cloudbase-init (kiln): initialise a Windows instance: metadata service, plugins, user data.',
};

/** How a command is named in a list: its words, or the flag that selects a command without words. */
function commandName(c: Command): string {
  return c.words.length > 0 ? c.words.join(' ') : `--${c.selectedBy ?? ''}`;
}

export function faceHelp(face: Face, commands: Command[]): string {
  const mine = commands.filter((c) => c.faces.includes(face) && (c.words.length > 0 || c.selectedBy !== undefined));
  const width = Math.max(...mine.map((c) => commandName(c).length), 8);
  const lines = [
    `usage: ${face} [--root DIR] [--dry-run] [--debug] <command> [flags]`,
    '',
    FACE_INTRO[face],
    '',
    'commands:',
    ...mine.map((c) => `  ${commandName(c).padEnd(width)}  ${c.summary}`),
    '',
    'global flags:',
    ...(GLOBAL_FLAGS.help ?? []).map((l) => `  ${l}`),
    '',
    `Run '${face} <command> --help' for a command's flags.`,
  ];
  return `${lines.join('\n')}\n`;
}

export function groupHelp(face: Face, group: string[], commands: Command[]): string {
  const members = commands.filter((c) => c.faces.includes(face) && group.every((w, i) => c.words[i] === w) && c.words.length > group.length);
  const width = Math.max(...members.map((c) => c.words.join(' ').length), 8);
  return `usage: ${face} ${group.join(' ')} <command> [flags]\n\ncommands:\n${members.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}\n`;
}

export function commandHelp(face: Face, command: Command): string {
  const lines = [`usage: ${face} ${command.usage}`, '', command.summary];
  if (command.flags.help?.length) lines.push('', 'flags:', ...command.flags.help.map((l) => `  ${l}`));
  lines.push('', 'global flags:', ...(GLOBAL_FLAGS.help ?? []).map((l) => `  ${l}`));
  return `${lines.join('\n')}\n`;
}
