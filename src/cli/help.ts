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

/**
 * The face's help on OS: the boot stages, the other commands and the devel tools, each under its own heading; the
 * commands that work only on the other OS are named at the end, not listed as if they worked here.
 */
export function faceHelp(face: Face, commands: Command[], os: 'linux' | 'windows'): string {
  const mine = commands.filter((c) => c.faces.includes(face) && (c.words.length > 0 || c.selectedBy !== undefined));
  const here = mine.filter((c) => c.os === undefined || c.os === os);
  const elsewhere = mine.filter((c) => c.os !== undefined && c.os !== os);
  const width = Math.max(...here.map((c) => commandName(c).length), 8);
  const sections: Array<[string, Command[]]> = [
    ['boot stages (what the init system runs):', here.filter((c) => c.section === 'boot')],
    ['commands:', here.filter((c) => c.section !== 'boot' && c.words[0] !== 'devel')],
    ['devel (tools for building and testing images):', here.filter((c) => c.words[0] === 'devel')],
  ];
  const other = os === 'linux' ? 'Windows' : 'Linux';
  const lines = [
    `usage: ${face} [--root DIR] [--dry-run] [--debug] <command> [flags]`,
    '',
    FACE_INTRO[face],
    '',
    ...sections
      .filter(([, list]) => list.length > 0)
      .flatMap(([title, list]) => [title, ...list.map((c) => `  ${commandName(c).padEnd(width)}  ${c.summary}`), '']),
    ...(elsewhere.length > 0
      ? [`on ${other} only (the ${other} build of kiln): ${elsewhere.map(commandName).join(', ')}`, '']
      : []),
    'global flags:',
    ...(GLOBAL_FLAGS.help ?? []).map((l) => `  ${l}`),
    '',
    `Run '${face} <command> --help' for a command's flags.`,
  ];
  return `${lines.join('\n')}\n`;
}

export function groupHelp(face: Face, group: string[], commands: Command[]): string {
  const members = commands.filter(
    (c) => c.faces.includes(face) && group.every((w, i) => c.words[i] === w) && c.words.length > group.length,
  );
  const width = Math.max(...members.map((c) => c.words.join(' ').length), 8);
  return `usage: ${face} ${group.join(' ')} <command> [flags]\n\ncommands:\n${members.map((c) => `  ${c.words.join(' ').padEnd(width)}  ${c.summary}`).join('\n')}\n`;
}

export function commandHelp(face: Face, command: Command): string {
  const lines = [`usage: ${face} ${command.usage}`, '', command.summary];
  if (command.flags.help?.length) lines.push('', 'flags:', ...command.flags.help.map((l) => `  ${l}`));
  lines.push('', 'global flags:', ...(GLOBAL_FLAGS.help ?? []).map((l) => `  ${l}`));
  return `${lines.join('\n')}\n`;
}
