// What a dry run plans for the accounts: the useradd, groupadd and usermod -aG commands kiln builds are not run,
// so the entries they would add are put into the dry run's view of /etc/passwd, /etc/group and /etc/shadow, and the
// modules after them (authorized keys, sudo rules, file owners) find the account as they would after the command.
// Only kiln's own argv (base-distro's useraddArgv, groupaddArgv, addToGroups) is read; ids are chosen as
// shadow-utils chooses them (id-allocation.ts) from the target's login.defs. Nothing of it is written anywhere.
import { posix } from 'node:path';
import { defBool, defNumber, readAccountDefaults } from './account-defaults';
import { ColonFile } from './colon-file';
import { idRange, newId } from './id-allocation';

/** The dry run's view of the target's files: reads see earlier planned writes; plans are never applied. */
export interface PlannedFiles {
  readTextIfExists(path: string): Promise<string | undefined>;
  plan(path: string, text: string): void;
}

/** useradd's options that take a value, in the long form useraddArgv writes. */
const USERADD_VALUE_OPTIONS = new Set([
  '--comment',
  '--home',
  '--gid',
  '--uid',
  '--groups',
  '--password',
  '--shell',
  '--expiredate',
  '--inactive',
  '--selinux-user',
]);

const idsOf = (file: ColonFile) =>
  file
    .entries()
    .map((f) => Number(f[2]))
    .filter(Number.isInteger);

async function read(files: PlannedFiles, path: string): Promise<ColonFile> {
  return new ColonFile((await files.readTextIfExists(path)) ?? '');
}

function plan(files: PlannedFiles, path: string, file: ColonFile): void {
  files.plan(
    path,
    `${file
      .entries()
      .map((f) => f.join(':'))
      .join('\n')}\n`,
  );
}

/** Plans `useradd NAME [options]` as kiln builds it; false when ARGV is not that, or names an existing user. */
async function planUseradd(argv: string[], files: PlannedFiles): Promise<boolean> {
  const name = argv[1];
  if (!name || name.startsWith('-')) return false;
  const options = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (USERADD_VALUE_OPTIONS.has(arg)) options.set(arg, argv[++i] ?? '');
    else flags.add(arg);
  }
  const passwd = await read(files, '/etc/passwd');
  const group = await read(files, '/etc/group');
  if (passwd.find(name)) return false;
  const defs = await readAccountDefaults(files);
  const system = flags.has('--system');
  const uid = options.has('--uid')
    ? Number(options.get('--uid'))
    : newId(idsOf(passwd), idRange(defs, 'UID', system), system);
  if (uid === undefined || !Number.isInteger(uid)) return false;
  let gid: number | undefined;
  const primary = options.get('--gid');
  if (primary !== undefined) gid = /^\d+$/.test(primary) ? Number(primary) : Number(group.find(primary)?.[2] ?? NaN);
  else if (flags.has('--no-user-group') || !defBool(defs, 'USERGROUPS_ENAB', true)) gid = defNumber(defs, 'GROUP', 100);
  else {
    gid = newId(idsOf(group), idRange(defs, 'GID', system), system, uid);
    if (gid !== undefined) group.append([name, 'x', String(gid), '']);
  }
  if (gid === undefined || !Number.isInteger(gid)) return false;
  for (const g of (options.get('--groups') ?? '').split(',').filter(Boolean)) group.addMember(g, name);
  const home = options.get('--home') ?? posix.join(defs.useradd.get('HOME') ?? '/home', name);
  passwd.append([
    name,
    'x',
    String(uid),
    String(gid),
    options.get('--comment') ?? '',
    home,
    options.get('--shell') ?? defs.useradd.get('SHELL') ?? '/bin/sh',
  ]);
  const shadow = await read(files, '/etc/shadow');
  shadow.append([name, options.get('--password') ?? '!', '', '', '', '', '', '', '']);
  plan(files, '/etc/passwd', passwd);
  plan(files, '/etc/group', group);
  plan(files, '/etc/shadow', shadow);
  return true;
}

/** Plans `groupadd [--system] NAME`. */
async function planGroupadd(argv: string[], files: PlannedFiles): Promise<boolean> {
  const system = argv.includes('--system');
  const name = argv.filter((a) => !a.startsWith('-'))[1];
  if (!name) return false;
  const group = await read(files, '/etc/group');
  if (group.find(name)) return false;
  const gid = newId(idsOf(group), idRange(await readAccountDefaults(files), 'GID', system), system);
  if (gid === undefined) return false;
  group.append([name, 'x', String(gid), '']);
  plan(files, '/etc/group', group);
  return true;
}

/** Plans `usermod -a -G GROUPS NAME`. */
async function planUsermodGroups(argv: string[], files: PlannedFiles): Promise<boolean> {
  if (argv.length !== 5 || argv[1] !== '-a' || argv[2] !== '-G') return false;
  const group = await read(files, '/etc/group');
  let changed = false;
  for (const g of (argv[3] as string).split(',')) changed = group.addMember(g, argv[4] as string) || changed;
  if (changed) plan(files, '/etc/group', group);
  return changed;
}

/**
 * Puts what ARGV (an account command kiln builds) would add into the dry run's view of the account files; false
 * when ARGV is none of those commands or cannot be planned (it is then only listed, as every command is).
 */
export async function planAccountCommand(argv: readonly string[], files: PlannedFiles): Promise<boolean> {
  const tool = posix.basename(argv[0] ?? '');
  if (tool === 'useradd') return planUseradd([...argv], files);
  if (tool === 'groupadd') return planGroupadd([...argv], files);
  if (tool === 'usermod') return planUsermodGroups([...argv], files);
  return false;
}
