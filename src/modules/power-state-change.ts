// cc_power_state_change: after kiln exits, checks a condition and runs shutdown (halt/poweroff/reboot, delay, message).
import type { CloudConfigValue } from '../config/schema/cloud-config-types';
import { pyStr } from '../util/python-str';
import { ModuleError, type Module } from './module';
import { configModule } from './support/config-module';
import { readConfigValue, type ReaderWarn, WarningReader } from './support/config-readers';
import { isRecord, shellQuote } from './support/config-shapes';

const MODE_FLAGS: Record<string, string> = { halt: '-H', poweroff: '-P', reboot: '-r' };

export interface PowerStatePlan {
  /** The shutdown command line, as cloud-init's distro.shutdown_command builds it. */
  command: string[];
  /** Seconds to wait for kiln to exit before acting anyway. */
  timeoutSeconds: number;
  /** true/false, a shell string, or an argv list; run after the wait: exit 0 applies the change. */
  condition: boolean | string | string[];
}

/** power_state once read: the schema's shape, with the delay, timeout and condition as load_power_state takes them. */
type PowerStateSetting = CloudConfigValue<'power_state'>;

/**
 * power_state as load_power_state and distro.shutdown_command read it: the mode one of the three, a delay 'now' or
 * int() of it, a Python-true message str()'d, the timeout float() of it (rounded up to whole seconds, as the wait
 * counts them), the condition a string, a list or a boolean (default true); else the TypeError or ValueError's words.
 */
function readPowerState(ps: unknown): { setting: PowerStateSetting } | { problem: string } {
  if (!isRecord(ps)) return { problem: 'power_state is not a dict.' };
  const mode = ps.mode;
  if (mode !== 'halt' && mode !== 'poweroff' && mode !== 'reboot') {
    return { problem: `power_state[mode] required, must be one of: halt,poweroff,reboot. found: '${pyStr(mode)}'.` };
  }
  const rawDelay = ps.delay ?? 'now';
  const delayText = typeof rawDelay === 'number' ? String(Math.trunc(rawDelay)) : String(rawDelay).trim();
  if (rawDelay !== 'now' && !/^\+?\d+$/.test(delayText))
    return { problem: `power_state[delay] must be 'now' or '+m' (minutes). found '${pyStr(rawDelay)}'.` };
  const delay = rawDelay === 'now' ? 'now' : Number.parseInt(delayText, 10);
  const rawTimeout = ps.timeout ?? 30;
  const timeout =
    typeof rawTimeout === 'number'
      ? rawTimeout
      : typeof rawTimeout === 'string' && rawTimeout.trim() !== ''
        ? Number(rawTimeout)
        : Number.NaN;
  if (!Number.isFinite(timeout)) return { problem: `failed to convert timeout '${pyStr(rawTimeout)}' to float.` };
  const condition = ps.condition ?? true;
  if (typeof condition !== 'boolean' && typeof condition !== 'string' && !Array.isArray(condition))
    return { problem: 'condition type invalid. must be list, bool, str' };
  const message = readConfigValue('truthy-str', ps.message ?? '') as string | undefined;
  return {
    setting: { mode, delay, timeout: Math.ceil(timeout), condition, ...(message !== undefined && { message }) },
  };
}

/** power_state read (readPowerState), or upstream's warning ("… Not performing power state change!") and none. */
const powerStateReader = new WarningReader(
  (ps) => {
    const read = readPowerState(ps);
    return 'setting' in read ? read.setting : undefined;
  },
  (ps) => {
    const read = readPowerState(ps);
    return `${'problem' in read ? read.problem : ''} Not performing power state change!`;
  },
);

/** The plan of power_state as read: cloud-init's shutdown command line, the wait and the condition. */
function planFor(ps: PowerStateSetting): PowerStatePlan {
  const delay =
    ps.delay === 'now' || ps.delay === undefined
      ? 'now'
      : `+${Number.parseInt(String(ps.delay).replace(/^\+/, ''), 10)}`;
  const command = ['shutdown', MODE_FLAGS[ps.mode] as string, delay];
  if (ps.message) command.push(ps.message);
  const condition = ps.condition ?? true;
  return {
    command,
    timeoutSeconds: ps.timeout ?? 30,
    condition: Array.isArray(condition) ? condition.map((c) => String(c)) : condition,
  };
}

/**
 * The plan of CFG's power_state; undefined when there is none; a ModuleError in upstream's words when it cannot be
 * read.
 */
export function loadPowerState(cfg: { readonly power_state?: unknown }): PowerStatePlan | undefined {
  if (cfg.power_state === undefined || cfg.power_state === null) return undefined;
  const read = readPowerState(cfg.power_state);
  if ('problem' in read) throw new ModuleError('power_state_change', read.problem);
  return planFor(read.setting);
}

/**
 * The detached shell script that waits for PID (kiln) to end or the timeout to pass, evaluates the condition
 * (exit 0 applies, 1 does not, anything else warns and does not), then runs the shutdown command.
 */
export function powerStateScript(plan: PowerStatePlan, pid: number): string {
  const cond =
    plan.condition === true
      ? 'true'
      : plan.condition === false
        ? 'false'
        : typeof plan.condition === 'string'
          ? `sh -c ${shellQuote(plan.condition)}`
          : plan.condition.map(shellQuote).join(' ');
  const secs = Math.max(0, Math.ceil(plan.timeoutSeconds));
  return [
    `end=$(( $(date +%s) + ${secs} ))`,
    `while kill -0 ${pid} 2>/dev/null && [ "$(date +%s)" -lt "$end" ]; do sleep 0.25; done`,
    `${cond}; rc=$?`,
    `[ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] || echo "power_state: condition exited $rc, not changing power state" >&2; exit 0; }`,
    `exec ${plan.command.map(shellQuote).join(' ')}`,
  ].join('\n');
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
    // cc_power_state_change only warns about a power_state it cannot read (the schema's rejects too), never fails.
    configKeys: {
      power_state: (ps: unknown, warn?: ReaderWarn) =>
        ps === null ? undefined : readConfigValue(powerStateReader, ps, warn),
    },
    async run(ctx, cfg): Promise<void> {
      if (cfg.power_state === undefined) {
        ctx.log.debug('no power_state provided. doing nothing');
        return;
      }
      const plan = planFor(cfg.power_state);
      if (plan.condition === false) {
        ctx.log.debug('Condition was false. Will not perform state change.');
        return;
      }
      const pid = deps.pid();
      ctx.log.debug(`After pid ${pid} ends, will execute: ${plan.command.join(' ')}`);
      // The subshell is put in the background with its output closed, so run() returns at once.
      const script = powerStateScript(plan, pid);
      await ctx.platform.run(['sh', '-c', `( ${script.replace(/\n/g, '; ')} ) </dev/null >/dev/null 2>&1 &`]);
    },
  });
}

export const powerStateChangeModule: Module = createPowerStateChangeModule({ pid: () => process.pid });
