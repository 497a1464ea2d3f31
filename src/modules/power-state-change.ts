// cc_power_state_change: after kiln exits, checks a condition and runs shutdown (halt/poweroff/reboot, delay, message).
import { isRecord, shellQuote } from './support/config-shapes';
import { ModuleError, type CloudConfig, type Module, type ModuleContext } from './module';
import { describeError } from '../util/errors';

const MODE_FLAGS: Record<string, string> = { halt: '-H', poweroff: '-P', reboot: '-r' };

export interface PowerStatePlan {
  /** The shutdown command line, as cloud-init's distro.shutdown_command builds it. */
  command: string[];
  /** Seconds to wait for kiln to exit before acting anyway. */
  timeoutSeconds: number;
  /** true/false, a shell string, or an argv list; run after the wait: exit 0 applies the change. */
  condition: boolean | string | string[];
}

/** Reads `power_state`; undefined when absent; throws TypeError-like messages cloud-init logs as warnings. */
export function loadPowerState(cfg: CloudConfig): PowerStatePlan | undefined {
  const ps = cfg.power_state;
  if (ps === undefined || ps === null) return undefined;
  if (!isRecord(ps)) throw new ModuleError('power_state_change', 'power_state is not a dict.');
  const mode = ps.mode;
  if (typeof mode !== 'string' || !(mode in MODE_FLAGS)) {
    throw new ModuleError('power_state_change', `power_state[mode] required, must be one of: halt,poweroff,reboot. found: '${String(mode)}'.`);
  }
  const rawDelay = ps.delay ?? 'now';
  let delay: string;
  if (rawDelay === 'now') delay = 'now';
  else {
    const text = String(rawDelay).trim();
    if (!/^[+-]?\d+$/.test(text)) throw new ModuleError('power_state_change', `power_state[delay] must be 'now' or '+m' (minutes). found '${String(rawDelay)}'.`);
    delay = `+${parseInt(text, 10)}`;
  }
  const command = ['shutdown', MODE_FLAGS[mode] as string, delay];
  if (ps.message !== undefined && ps.message !== null && ps.message !== '') command.push(String(ps.message));
  const timeoutSeconds = ps.timeout === undefined ? 30 : Number(ps.timeout);
  if (!Number.isFinite(timeoutSeconds)) throw new ModuleError('power_state_change', `failed to convert timeout '${String(ps.timeout)}' to float.`);
  const condition = ps.condition === undefined ? true : ps.condition;
  if (typeof condition !== 'boolean' && typeof condition !== 'string' && !Array.isArray(condition)) {
    throw new ModuleError('power_state_change', 'condition type invalid. must be list, bool, str');
  }
  return { command, timeoutSeconds, condition: Array.isArray(condition) ? condition.map(String) : condition };
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
  return {
    name: 'power_state_change',
    stage: 'final',
    frequency: 'once-per-instance',
    distros: 'all',
    activateBy: ['power_state'],
    async run(ctx: ModuleContext, cfg: CloudConfig): Promise<void> {
      let plan: PowerStatePlan | undefined;
      try {
        plan = loadPowerState(cfg);
      } catch (err) {
        ctx.log.warn(`${describeError(err).replace(/^power_state_change: /, '')} Not performing power state change!`);
        return;
      }
      if (!plan) {
        ctx.log.debug('no power_state provided. doing nothing');
        return;
      }
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
  };
}

export const powerStateChangeModule: Module = createPowerStateChangeModule({ pid: () => process.pid });
