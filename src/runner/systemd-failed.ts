// Whether systemd says a cloud-init unit failed (was killed, crashed, or was disabled): cloud-init 23.x+'s
// systemd_failed, so that `status` reports an error for a stage that died before it could write result.json.
import type { Platform } from '../platform/platform';

/**
 * The units cloud-init 25.1 asks about, in its order: the stage units (the last stage first), then
 * cloud-init-main.service.
 */
export const STAGE_UNITS = [
  'cloud-final.service',
  'cloud-config.service',
  'cloud-init-network.service',
  'cloud-init-local.service',
  'cloud-init-main.service',
] as const;

/** The error cloud-init appends to the status's errors. */
export const SYSTEMD_FAILURE_ERROR =
  "Failed due to systemd unit failure. Ensure all cloud-init services are enabled, and check 'systemctl' or 'journalctl' for more information.";
export const SYSTEMD_FAILURE_DETAIL = 'Failed due to systemd unit failure';

export interface SystemdFailedOptions {
  /** `status --wait`: a systemctl that fails (systemd not ready yet) is asked again, as cloud-init does. */
  wait: boolean;
  /** Where the "may be inaccurate" line goes when systemctl fails without --wait. */
  warn: (line: string) => void;
  /** Milliseconds between attempts under wait; cloud-init's 0.25 s. */
  retryMs?: number;
}

/** `systemctl show`'s four properties of UNIT; undefined when systemctl failed and we are not waiting. */
async function unitStates(
  p: Platform,
  unit: string,
  opts: SystemdFailedOptions,
): Promise<Record<string, string> | undefined> {
  for (;;) {
    const r = await p.run(['systemctl', 'show', '--property=ActiveState,UnitFileState,SubState,MainPID', unit], {
      allowFailure: true,
    });
    if (r.code === 0) {
      const states: Record<string, string> = {};
      for (const line of r.stdout.split('\n')) {
        const eq = line.indexOf('=');
        if (eq > 0) states[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
      }
      return states;
    }
    if (!opts.wait) {
      opts.warn(
        `Failed to get status from systemd. Cloud-init status may be inaccurate. Error from systemctl: ${r.stderr.trim()}`,
      );
      return undefined;
    }
    await new Promise((resolve) => setTimeout(resolve, opts.retryMs ?? 250));
  }
}

/**
 * cloud-init's systemd_failed: true when a unit is neither enabled nor static (a stage must not be disabled on its
 * own) or systemd marks it failed; false as soon as one is still running (or its main process is gone while
 * something it started lingers), and when every unit exited normally. A systemctl that cannot answer reads as
 * "no failure", with a warning.
 */
export async function systemdFailed(p: Platform, opts: SystemdFailedOptions): Promise<boolean> {
  for (const unit of STAGE_UNITS) {
    const s = await unitStates(p, unit, opts);
    if (!s) return false;
    const fileState = s.UnitFileState ?? '';
    if (!(fileState.startsWith('enabled') || fileState === 'static')) return true;
    if (s.ActiveState === 'active') {
      if (s.SubState === 'exited') continue;
      if (s.SubState === 'running' && s.MainPID === '0') return false;
    } else if (s.ActiveState === 'failed' || s.SubState === 'failed') {
      return true;
    }
    // Enabled, neither exited nor failed: still running.
    return false;
  }
  return false;
}
