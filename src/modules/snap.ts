// cc_snap: acks the given snap assertions from one file in the instance folder, then runs the snap commands in order,
// collecting failures.
import { posix } from 'node:path';
import { configModule } from './support/config-module';
import { isRecord } from './support/config-shapes';
import { waitForSnapSeeded } from './support/snap-seeded';
import { pyTruthy } from '../util/python-truthy';
import { ModuleError, type Module, type ModuleContext } from './module';
import { describeError } from '../util/errors';

const MODULE = 'snap';

/** A command as cloud-init's subp takes it: a string runs through the shell, a list is an argv. */
export type SnapCommand = string | string[];

/** Python's str() of a YAML scalar, for the words of an argv. */
function pyWord(v: unknown): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}

/**
 * The values of a mapping in the order of its sorted keys (cloud-init sorts `commands` keys; YAML's `00:` is the
 * integer 0 there, so keys that are all numbers sort as numbers).
 */
function byKey(map: { readonly [key: string]: unknown }): unknown[] {
  const keys = Object.keys(map);
  const numeric = keys.every((k) => /^-?\d+$/.test(k));
  keys.sort((a, b) => (numeric ? Number(a) - Number(b) : a < b ? -1 : a > b ? 1 : 0));
  return keys.map((k) => map[k]);
}

/**
 * subp.prepend_base_command('snap', …): a list gets 'snap' put first unless it starts with it (a leading null is
 * dropped instead, to run another program); a string runs as given (the module warns about those not starting with
 * 'snap '); anything else is an error.
 */
export function prependSnap(commands: readonly unknown[]): SnapCommand[] {
  const errors: string[] = [];
  const fixed: SnapCommand[] = [];
  for (const command of commands) {
    if (Array.isArray(command)) {
      if (command[0] === null) fixed.push(command.slice(1).map(pyWord));
      else if (command[0] !== 'snap') fixed.push(['snap', ...command.map(pyWord)]);
      else fixed.push(command.map(pyWord));
    } else if (typeof command === 'string') {
      fixed.push(command);
    } else {
      errors.push(JSON.stringify(command));
    }
  }
  if (errors.length > 0)
    throw new ModuleError(
      MODULE,
      `Invalid snap config. These commands are not a string or list:\n${errors.join('\n')}`,
    );
  return fixed;
}

/**
 * add_assertions' reading: Python-false is none; a mapping's keys only name its assertions, taken in the order given
 * (dict.values()); each assertion must be a string (cloud-init splits each into lines before writing anything).
 */
function assertionsSetting(assertions: unknown): unknown {
  if (!pyTruthy(assertions)) return undefined;
  const list = isRecord(assertions) ? Object.values(assertions) : assertions;
  if (!Array.isArray(list))
    throw new ModuleError(
      MODULE,
      `'snap.assertions' must be a list or a mapping of assertions, not ${JSON.stringify(assertions)}`,
    );
  const bad = list.find((a) => typeof a !== 'string');
  if (bad !== undefined)
    throw new ModuleError(
      MODULE,
      `each snap assertion must be a string, not ${JSON.stringify(bad)}; nothing was written`,
    );
  return list;
}

/**
 * run_commands' reading: Python-false is none; a mapping's values in key order; each command by prepend_base_command.
 */
function commandsSetting(commands: unknown): unknown {
  if (!pyTruthy(commands)) return undefined;
  const list = isRecord(commands) ? byKey(commands) : commands;
  if (!Array.isArray(list))
    throw new ModuleError(
      MODULE,
      `'snap.commands' must be a list or a mapping of commands, not ${JSON.stringify(commands)}`,
    );
  return prependSnap(list);
}

/**
 * snap as handle reads it: Python-false (an empty mapping too) is as if absent; of a mapping its assertions and
 * commands.
 */
function snapSetting(scfg: unknown): unknown {
  if (!pyTruthy(scfg)) return undefined;
  if (!isRecord(scfg)) throw new ModuleError(MODULE, `'snap' must be a mapping, not ${JSON.stringify(scfg)}`);
  const out: { assertions?: unknown; commands?: unknown } = {};
  const assertions = assertionsSetting(scfg.assertions);
  if (assertions !== undefined) out.assertions = assertions;
  const commands = commandsSetting(scfg.commands);
  if (commands !== undefined) out.commands = commands;
  return out;
}

/** Writes the assertions, joined by newlines, to <instance>/snapd.assertions and runs `snap ack` on that file. */
async function addAssertions(ctx: ModuleContext, texts: readonly string[]): Promise<void> {
  ctx.log.debug('Importing user-provided snap assertions');
  for (const a of texts) ctx.log.debug(`Snap acking: ${JSON.stringify(a.split('\n').slice(0, 2))}`);
  const file = posix.join(ctx.instanceDir, 'snapd.assertions');
  await ctx.platform.writeFile(file, texts.join('\n'), { mode: 0o644 });
  const argv = ['snap', 'ack', file];
  const r = await ctx.platform.run(argv, { allowFailure: true });
  if (r.code !== 0) {
    throw new ModuleError(
      MODULE,
      `'${argv.join(' ')}' exited with code ${r.code}${r.stderr.trim() ? `: ${r.stderr.trim()}` : ''}`,
    );
  }
}

/** Runs every command (a string through /bin/sh, a list as an argv); failures are collected and reported together. */
async function runCommands(ctx: ModuleContext, commands: readonly SnapCommand[]): Promise<void> {
  ctx.log.debug('Running user-provided snap commands');
  const nonSnap = commands.filter((c): c is string => typeof c === 'string' && !c.startsWith('snap '));
  if (nonSnap.length > 0) ctx.log.warn(`Non-snap commands in snap config:\n${nonSnap.join('\n')}`);
  const failures: string[] = [];
  for (const command of commands) {
    const argv = typeof command === 'string' ? ['sh', '-c', command] : command;
    try {
      // Output is not captured by cloud-init (status_cb writes it to stderr): it goes to the output log.
      const r = await ctx.platform.run(argv, { allowFailure: true });
      if (r.stdout || r.stderr) await ctx.output(r.stdout + r.stderr);
      if (r.code !== 0) failures.push(`${JSON.stringify(command)} exited with code ${r.code}`);
    } catch (err) {
      failures.push(`${JSON.stringify(command)} could not run: ${describeError(err)}`);
    }
  }
  if (failures.length > 0) {
    const msg = `Failures running snap commands:\n${failures.join('\n')}`;
    ctx.log.error(msg);
    throw Object.assign(new ModuleError(MODULE, msg), { pythonName: 'RuntimeError' });
  }
}

export const snapModule: Module = configModule({
  name: 'snap',
  stage: 'config',
  frequency: 'once-per-instance',
  distros: ['ubuntu'],
  activateBy: ['snap'],
  configKeys: { snap: snapSetting },
  async run(ctx, cfg): Promise<void> {
    const scfg = cfg.snap;
    if (scfg === undefined) {
      ctx.log.debug("Skipping module named snap, no 'snap' key in configuration");
      return;
    }
    await waitForSnapSeeded(ctx);
    if (Array.isArray(scfg.assertions)) await addAssertions(ctx, scfg.assertions);
    if (Array.isArray(scfg.commands)) await runCommands(ctx, scfg.commands);
  },
});
