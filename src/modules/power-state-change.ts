// cc_power_state_change: after kiln exits, checks a condition and runs shutdown (halt/poweroff/reboot, delay, message).
import { pyStr } from '../util/python-str';
import { pyTruthy } from '../util/python-truthy';
import { pyTypeName } from '../util/python-type-name';
import { ModuleError, type Module } from './module';
import { configModule } from './support/config-module';
import { isMapping, OwnParser, pythonStr, type ReaderWarn } from './support/config-readers';
import { shellQuote } from './support/config-shapes';

const MODE_FLAGS: Record<string, string> = { halt: '-H', poweroff: '-P', reboot: '-r' };

export interface PowerStatePlan {
  /** The shutdown command line, as cloud-init's distro.shutdown_command builds it (a message as configured). */
  command: unknown[];
  /** Seconds to wait for kiln to exit before acting anyway (Infinity: until it exits). */
  timeoutSeconds: number;
  /** true/false, a shell string, or an argv list; run after the wait: exit 0 applies the change. */
  condition: boolean | string | string[];
  /** The condition as check_condition's messages print it (str() of it). */
  conditionText?: string;
}

/** A problem load_power_state raises: its TypeError's or ValueError's words. */
class PowerStateProblem extends Error {}

/** Python's int() of a delay (not 'now'): its whole number, or the TypeError, OverflowError or ValueError. */
function pyIntDelay(v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new PowerStateProblem('');
    if (!Number.isFinite(v)) throw new PowerStateProblem('cannot convert float infinity to integer');
    return Math.trunc(v);
  }
  if (typeof v === 'string') {
    const t = v.trim();
    if (!/^[+-]?\d(?:_?\d)*$/.test(t)) throw new PowerStateProblem('');
    return Number.parseInt(t.replace(/_/g, ''), 10);
  }
  throw new PowerStateProblem(
    `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`,
  );
}

const FLOAT_WORDS: Record<string, number> = { inf: Infinity, infinity: Infinity, nan: Number.NaN };

/** Python's float() of a timeout: its value, the TypeError, or undefined for the ValueError. */
function pyFloat(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    const t = v.trim();
    const sign = t.startsWith('-') ? -1 : 1;
    const word = FLOAT_WORDS[t.replace(/^[+-]/, '').toLowerCase()];
    if (word !== undefined) return sign * word;
    const digits = '\\d(?:_?\\d)*';
    const literal = new RegExp(`^[+-]?(?:${digits}(?:\\.(?:${digits})?)?|\\.${digits})(?:[eE][+-]?${digits})?$`);
    return literal.test(t) ? Number(t.replace(/_/g, '')) : undefined;
  }
  throw new PowerStateProblem(`float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
}

/**
 * power_state as load_power_state and distro.shutdown_command read it: the mode one of the three, a delay 'now' or
 * int() of it, a Python-true message as it is, the timeout float() of it, the condition a string, a list or a
 * boolean (default true); else the words of the TypeError or ValueError it raises. A key set to null is not its
 * default: int(None), float(None) and a None condition are TypeErrors.
 */
function readPowerState(ps: unknown): PowerStatePlan {
  if (!isMapping(ps)) throw new PowerStateProblem('power_state is not a dict.');
  const mode = ps.mode;
  // `mode not in distro.shutdown_options_map`: a list or a mapping cannot be a dict key.
  if (Array.isArray(mode) || isMapping(mode)) throw new PowerStateProblem(`unhashable type: '${pyTypeName(mode)}'`);
  if (mode !== 'halt' && mode !== 'poweroff' && mode !== 'reboot') {
    throw new PowerStateProblem(
      `power_state[mode] required, must be one of: halt,poweroff,reboot. found: '${pyStr(mode)}'.`,
    );
  }
  const rawDelay = Object.hasOwn(ps, 'delay') ? ps.delay : 'now';
  let delay = 'now';
  if (rawDelay !== 'now') {
    try {
      delay = `+${pyIntDelay(rawDelay)}`;
    } catch (err) {
      // Only int()'s ValueError becomes shutdown_command's own message; a TypeError or OverflowError stays as it is.
      if (err instanceof PowerStateProblem && err.message !== '') throw err;
      throw new PowerStateProblem(
        `power_state[delay] must be 'now' or '+m' (minutes). found '${pythonStr(rawDelay)}'.`,
      );
    }
  }
  const command: unknown[] = ['shutdown', MODE_FLAGS[mode], delay];
  if (pyTruthy(ps.message)) command.push(ps.message);
  const rawTimeout = Object.hasOwn(ps, 'timeout') ? ps.timeout : 30;
  const timeout = pyFloat(rawTimeout);
  if (timeout === undefined)
    throw new PowerStateProblem(`failed to convert timeout '${pythonStr(rawTimeout)}' to float.`);
  const condition = Object.hasOwn(ps, 'condition') ? ps.condition : true;
  // 25.1's message has the '%s' as it is: the format is never applied.
  if (typeof condition !== 'boolean' && typeof condition !== 'string' && !Array.isArray(condition))
    throw new PowerStateProblem('condition type %s invalid. must be list, bool, str');
  return {
    command,
    // NaN never passes `monotonic() > end_time`: like infinity, the wait lasts until kiln exits.
    timeoutSeconds: Number.isNaN(timeout) ? Infinity : timeout,
    condition: Array.isArray(condition) ? condition.map((c) => pythonStr(c)) : condition,
    ...(typeof condition !== 'boolean' && { conditionText: pythonStr(condition) }),
  };
}

/**
 * The plan of CFG's power_state; undefined when there is none; a ModuleError in upstream's words when it cannot be
 * read.
 */
export function loadPowerState(cfg: { readonly power_state?: unknown }): PowerStatePlan | undefined {
  if (cfg.power_state === undefined || cfg.power_state === null) return undefined;
  try {
    return readPowerState(cfg.power_state);
  } catch (err) {
    if (err instanceof PowerStateProblem) throw new ModuleError('power_state_change', err.message);
    throw err;
  }
}

/** Where the detached script logs what cloud-init's forked child logs: the log files and the file column. */
export interface PowerStateLog {
  /** The log files, as paths the script (run in the target) opens. */
  files: string[];
  /** The log lines' file column ('cc_power_state_change.py'). */
  source: string;
}

/** Seconds the script waits when the timeout is infinite (float('inf'), NaN): about 68 years. */
const FOREVER_SECONDS = 2 ** 31;

/**
 * The detached shell script that waits for PID (kiln) to end or the timeout to pass, evaluates the condition
 * (exit 0 applies, 1 does not, anything else logs check_condition's warning to LOG's files and does not), then runs
 * the shutdown command.
 */
export function powerStateScript(plan: PowerStatePlan, pid: number, log?: PowerStateLog): string {
  const cond =
    plan.condition === true
      ? 'true'
      : plan.condition === false
        ? 'false'
        : typeof plan.condition === 'string'
          ? `sh -c ${shellQuote(plan.condition)}`
          : plan.condition.map(shellQuote).join(' ');
  const secs = Number.isFinite(plan.timeoutSeconds)
    ? Math.max(0, Math.ceil(plan.timeoutSeconds))
    : plan.timeoutSeconds > 0
      ? FOREVER_SECONDS
      : 0;
  const pre = `check_condition command (${plan.conditionText ?? pythonStr(plan.condition)}): `;
  // check_condition's WARNING, in cloud-init's log line format; a date(1) without %N gives ',000'.
  const warn =
    log && log.files.length > 0
      ? [
          `t=$(date '+%Y-%m-%d %H:%M:%S,%3N' 2>/dev/null); case "$t" in *N) t="\${t%,*},000";; esac`,
          ...log.files.map(
            (f) =>
              `printf '%s - %s[WARNING]: %sunexpected exit %s. do not apply change.\n' "$t" ${shellQuote(log.source)} ${shellQuote(pre)} "$rc" >>${shellQuote(f)} 2>/dev/null`,
          ),
        ].join('; ')
      : ':';
  return [
    `end=$(( $(date +%s) + ${secs} ))`,
    `while kill -0 ${pid} 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.25; done`,
    `${cond}; rc=$?`,
    `[ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] || { ${warn}; }; exit 0; }`,
    `exec ${plan.command.map((a) => shellQuote(String(a))).join(' ')}`,
  ].join('; ');
}

export interface PowerStateDeps {
  /** The process to wait for (kiln itself at boot). */
  pid: () => number;
}

export function createPowerStateChangeModule(deps: PowerStateDeps): Module {
  return configModule({
    name: 'power_state_change',
    stage: 'final',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: ['power_state'],
    // cc_power_state_change only warns about a power_state it cannot read (the schema's rejects too), never fails:
    // its own reading, not the schema's, decides.
    configKeys: {
      power_state: new OwnParser((ps: unknown, warn?: ReaderWarn): PowerStatePlan | undefined => {
        if (ps === null) return undefined;
        try {
          return readPowerState(ps);
        } catch (err) {
          if (!(err instanceof PowerStateProblem)) throw err;
          warn?.(`${err.message} Not performing power state change!`);
          return undefined;
        }
      }),
    },
    async run(ctx, cfg): Promise<void> {
      const plan = cfg.power_state;
      if (plan === undefined) {
        ctx.log.debug('no power_state provided. doing nothing');
        return;
      }
      if (plan.condition === false) {
        ctx.log.debug('Condition was false. Will not perform state change.');
        return;
      }
      const pid = deps.pid();
      // handle's " ".join(arg_list), outside its try: a message that is not a str fails the module.
      const bad = plan.command.findIndex((a) => typeof a !== 'string');
      if (bad >= 0)
        throw new ModuleError(
          'power_state_change',
          `sequence item ${bad}: expected str instance, ${pyTypeName(plan.command[bad])} found`,
        );
      ctx.log.debug(`After pid ${pid} ends, will execute: ${plan.command.join(' ')}`);
      // check_condition's warning goes to the log files, as the forked child's does (inside the target's root).
      const log: PowerStateLog = {
        files: ctx.log.filePaths('WARNING').flatMap((f) => {
          const inTarget = targetPath(ctx.platform.root, f);
          return inTarget === undefined ? [] : [inTarget];
        }),
        source: ctx.log.file,
      };
      // The subshell is put in the background with its output closed, so run() returns at once.
      const script = powerStateScript(plan, pid, log);
      await ctx.platform.run(['sh', '-c', `( ${script} ) </dev/null >/dev/null 2>&1 &`]);
    },
  });
}

/** HOST's path inside ROOT (where commands run), or undefined for a file outside it. */
function targetPath(root: string, host: string): string | undefined {
  const r = root.replace(/\/+$/, '');
  if (r === '') return host;
  return host.startsWith(`${r}/`) ? host.slice(r.length) : undefined;
}

export const powerStateChangeModule: Module = createPowerStateChangeModule({ pid: () => process.pid });
