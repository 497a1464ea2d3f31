// Splits argv into the selected command, its flags and positional arguments; bad use is a UsageError.
import minimist from 'minimist';
import { UsageError } from '../util/errors';
import type { Command, FlagSpec, ParsedArgs } from './command';
import type { Face } from './face';
import { GLOBAL_FLAGS } from './global-flags';

export interface GlobalOptions {
  root: string;
  dryRun: boolean;
  debug: boolean;
  version: boolean;
  help: boolean;
}

export interface Invocation {
  /** Undefined when no command word was given (and the face has no default command). */
  command: Command | undefined;
  /** Set when the words given name a group (e.g. `devel`) rather than one command. */
  group: string[] | undefined;
  args: ParsedArgs;
  global: GlobalOptions;
}

function mergeSpecs(specs: FlagSpec[]): Required<Pick<FlagSpec, 'string' | 'boolean' | 'alias'>> {
  const string = new Set<string>();
  const boolean = new Set<string>();
  const alias: Record<string, string> = {};
  for (const s of specs) {
    for (const f of s.string ?? []) string.add(f);
    for (const f of s.boolean ?? []) boolean.add(f);
    Object.assign(alias, s.alias ?? {});
  }
  return { string: [...string], boolean: [...boolean], alias };
}

/** The commands of FACE whose words begin WORDS, longest first. */
export function findCommand(words: string[], commands: Command[], face: Face): { command?: Command; group?: string[] } {
  const mine = commands.filter((c) => c.faces.includes(face));
  const matches = mine
    .filter((c) => c.words.every((w, i) => words[i] === w))
    .sort((a, b) => b.words.length - a.words.length);
  const best = matches[0];
  // A group word such as `devel` with a subcommand that does not exist, or none at all.
  const first = words[0];
  if (first !== undefined && (!best || best.words.length === 0)) {
    const groupMembers = mine.filter((c) => c.words.length > 1 && c.words[0] === first);
    if (groupMembers.length > 0) return words.length === 1 ? { group: [first] } : {};
  }
  return best ? { command: best } : {};
}

/**
 * ARGV with the words after a greedy flag (`--configs ssh_config network`, argparse's nargs='+') each given as that
 * flag's own value (`--configs=ssh_config --configs=network`), so that minimist does not read them as positionals.
 */
function spreadGreedyValues(argv: string[], spec: FlagSpec | undefined): string[] {
  const greedy = new Set(spec?.greedy ?? []);
  if (greedy.size === 0) return argv;
  const canonical = (arg: string): string | undefined => {
    const name = arg.replace(/^--?/, '');
    const full = spec?.alias?.[name] ?? name;
    return arg.startsWith('-') && !arg.includes('=') && greedy.has(full) ? full : undefined;
  };
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const name = canonical(arg);
    if (name === undefined) {
      out.push(arg);
      continue;
    }
    let taken = 0;
    while (i + 1 < argv.length && !(argv[i + 1] as string).startsWith('-')) {
      out.push(`--${name}=${argv[i + 1] as string}`);
      i++;
      taken++;
    }
    if (taken === 0) out.push(arg);
  }
  return out;
}

export function parseInvocation(argv: string[], commands: Command[], face: Face): Invocation {
  // Finding the command: a short flag means what the global flags say (-d is --debug), whatever a command gives it.
  const all = mergeSpecs([...commands.filter((c) => c.faces.includes(face)).map((c) => c.flags), GLOBAL_FLAGS]);
  const first = minimist(argv, { string: all.string, boolean: all.boolean, alias: all.alias });
  const words = first._.map(String);
  const found = findCommand(words, commands, face);
  // A command without words is only there when its flag is given (`cloud-init --all-stages`).
  const command =
    found.command?.selectedBy !== undefined && first[found.command.selectedBy] !== true ? undefined : found.command;
  const group = found.group;
  if (!command && !group && words.length > 0) {
    const isGroup = commands.some((c) => c.faces.includes(face) && c.words.length > 1 && c.words[0] === words[0]);
    throw new UsageError(`unknown command '${isGroup ? words.slice(0, 2).join(' ') : words[0]}'`);
  }
  // Parsing its flags: a command's own short flag wins over a global one (net-convert's -d is its --directory,
  // as cloud-init's), so it never turns on a global flag by accident.
  const spec = mergeSpecs([GLOBAL_FLAGS, command?.flags ?? {}]);
  // minimist reads `--no-X` as X set to false: a flag named no-X (install's --no-enable) is known to it as X.
  const negated = spec.boolean.filter((n) => n.startsWith('no-')).map((n) => n.slice(3));
  const unknown: string[] = [];
  const parsed = minimist(spreadGreedyValues(argv, command?.flags), {
    string: spec.string,
    boolean: [...spec.boolean, ...negated],
    alias: spec.alias,
    unknown: (arg: string) => {
      if (arg.startsWith('-') && arg !== '-') unknown.push(arg.split('=')[0] as string);
      return !arg.startsWith('-') || arg === '-';
    },
  });
  if (unknown.length > 0) {
    const where = command ? ` for '${command.words.join(' ') || face}'` : '';
    throw new UsageError(`unknown flag${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}${where}`);
  }
  const used = command ? command.words.length : group ? group.length : 0;
  const positional = parsed._.map(String).slice(used);
  const flags: ParsedArgs['flags'] = {};
  const repeatable = new Set(command?.flags.repeatable ?? []);
  for (const name of [...spec.string, ...spec.boolean]) {
    const raw: unknown = parsed[name];
    if (raw === undefined) continue;
    if (spec.string.includes(name)) {
      const list = (Array.isArray(raw) ? raw : [raw]).map(String);
      if (list.some((v) => v === '') && argv.some((a) => a === `--${name}` || a.startsWith(`--${name}=`))) {
        throw new UsageError(`flag --${name} needs a value`);
      }
      flags[name] = repeatable.has(name) ? list : list[list.length - 1];
    } else {
      flags[name] = Array.isArray(raw) ? Boolean(raw[raw.length - 1]) : Boolean(raw);
    }
  }
  for (const name of negated) if (parsed[name] === false && argv.includes(`--no-${name}`)) flags[`no-${name}`] = true;
  if (command?.positional && flags.help !== true) {
    const [min, max] = command.positional;
    if (positional.length < min)
      throw new UsageError(
        `'${command.words.join(' ')}' needs ${min === max ? min : `at least ${min}`} argument${min === 1 ? '' : 's'}: ${command.usage}`,
      );
    if (positional.length > max)
      throw new UsageError(`unexpected argument '${positional[max]}' for '${command.words.join(' ') || face}'`);
  }
  return {
    command,
    group,
    args: { positional, flags },
    global: {
      root: typeof flags.root === 'string' ? flags.root : '/',
      dryRun: flags['dry-run'] === true,
      debug: flags.debug === true,
      version: flags.version === true,
      help: flags.help === true,
    },
  };
}
