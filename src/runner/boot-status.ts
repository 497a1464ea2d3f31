// Turns status.json (and the disable switches) into what `cloud-init status` reports, with its exit codes.
import type { StatusFile, StageName, RecoverableErrors } from './status-file';
import { STAGE_NAMES } from './status-file';

export type RunState = 'not started' | 'running' | 'done' | 'error' | 'disabled';

export interface BootStatus {
  status: RunState;
  /** 'degraded done', 'degraded running', or the status itself. */
  extended_status: string;
  boot_status_code: string;
  datasource: string;
  detail: string;
  errors: string[];
  recoverable_errors: RecoverableErrors;
  /** Seconds since the epoch of the latest stage event, undefined before any. */
  lastUpdate: number | undefined;
  stage: StageName | null;
  /** Per-stage records, for --format json/yaml. */
  stages: StatusFile['v1'] | undefined;
}

export interface StatusInputs {
  status: StatusFile | undefined;
  /** Why kiln is disabled, if it is ('disabled-by-marker-file', 'disabled-by-kernel-command-line' …). */
  disabledBy: string | undefined;
  /** How it was enabled ('enabled-by-generator', 'enabled-by-kernel-command-line', 'enabled-by-sysvinit'). */
  enabledBy: string;
}

export function computeBootStatus(input: StatusInputs): BootStatus {
  const st = input.status;
  const errors: string[] = [];
  const recoverable: RecoverableErrors = {};
  let started = false;
  let running = false;
  let failed = false;
  let last: number | undefined;
  if (st) {
    for (const name of STAGE_NAMES) {
      const s = st.v1[name];
      if (s.start !== null) started = true;
      if (s.start !== null && s.finished === null) running = true;
      if (s.failed) failed = true;
      errors.push(...s.errors);
      for (const [lvl, list] of Object.entries(s.recoverable_errors)) recoverable[lvl] = [...(recoverable[lvl] ?? []), ...list];
      for (const t of [s.start, s.finished]) if (t !== null && (last === undefined || t > last)) last = t;
    }
    // Stages run as separate services: between them nothing is "running", yet boot is done only when the final stage is.
    if (started && st.v1['modules-final'].finished === null) running = true;
  }
  const degraded = errors.length > 0 || Object.values(recoverable).some((l) => l.length > 0);
  let status: RunState;
  if (input.disabledBy && !started) status = 'disabled';
  else if (!st || !started) status = 'not started';
  else if (failed) status = 'error';
  else if (running) status = 'running';
  else status = 'done';
  const extended = degraded && (status === 'done' || status === 'running') ? `degraded ${status}` : status;
  const datasource = st?.v1.datasource ?? '';
  const detail =
    status === 'disabled'
      ? `Cloud-init disabled by ${input.disabledBy}`
      : status === 'not started'
        ? 'Cloud-init enabled but not run yet'
        : status === 'running'
          ? `Running in stage: ${st?.v1.stage ?? 'unknown'}`
          : datasource;
  return {
    status,
    extended_status: extended,
    boot_status_code: input.disabledBy ?? input.enabledBy,
    datasource: dsShortName(datasource),
    detail,
    errors,
    recoverable_errors: recoverable,
    lastUpdate: last,
    stage: st?.v1.stage ?? null,
    stages: st?.v1,
  };
}

/** 'DataSourceNoCloud [seed=…]' → 'nocloud', as `status --format json` shows it. */
export function dsShortName(description: string): string {
  const m = /^DataSource(\w+)/.exec(description);
  return m ? (m[1] as string).toLowerCase() : '';
}

/** 0 done or disabled, 1 error, 2 recoverable errors (degraded); running/not started are waited on or 0. */
export function statusExitCode(s: BootStatus): number {
  if (s.status === 'error') return 1;
  if (s.extended_status.startsWith('degraded')) return 2;
  return 0;
}
