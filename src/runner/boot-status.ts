// What `cloud-init status` reports, computed as cloud-init 26.x's cmd/status.py does: a running state, a condition,
// exit codes.
import type { RecoverableErrors } from './status-file';
import { SYSTEMD_FAILURE_DETAIL, SYSTEMD_FAILURE_ERROR } from './systemd-failed';

/** cloud-init's RunningStatus: where the boot is. */
export type RunningStatus = 'not started' | 'running' | 'done' | 'disabled';

/** cloud-init's ConditionStatus: how it went. 'healthy' is cloud-init's PEACHY. */
export type ConditionStatus = 'error' | 'degraded' | 'healthy';

/** cloud-init's EnabledStatus values, shown as boot_status_code. */
export type BootStatusCode =
  | 'disabled-by-generator'
  | 'disabled-by-kernel-command-line'
  | 'disabled-by-marker-file'
  | 'enabled-by-generator'
  | 'enabled-by-kernel-command-line'
  | 'enabled-by-sysvinit'
  | 'unknown';

const DISABLED_CODES: ReadonlySet<BootStatusCode> = new Set([
  'disabled-by-generator',
  'disabled-by-kernel-command-line',
  'disabled-by-marker-file',
]);

export interface BootStatus {
  running: RunningStatus;
  condition: ConditionStatus;
  /** 'error' when the condition is error, else the running status (tabular `status:` and JSON `status`). */
  status: string;
  /** 'error - done', 'degraded done', 'degraded running', or the running status. */
  extended_status: string;
  boot_status_code: BootStatusCode;
  /** 'nocloud' from 'DataSourceNoCloud [seed=…]'; null while status.json has none yet, '' without status.json. */
  datasource: string | null;
  detail: string;
  errors: string[];
  recoverable_errors: RecoverableErrors;
  /** Seconds since the epoch of the latest stage event, undefined before any. */
  lastUpdate: number | undefined;
  /** status.json's v1 without `datasource` (stage and the per-stage records), passed through as cloud-init does. */
  v1: Record<string, unknown>;
}

export interface StatusInputs {
  /** status.json's `v1` object as read from disk; undefined when the file does not exist. */
  v1: Record<string, unknown> | undefined;
  /** result.json exists: the final stage has ended. */
  resultExists: boolean;
  bootStatusCode: BootStatusCode;
  /** Why, in cloud-init's words ('Cloud-init enabled on sysvinit' …): the detail before any stage has run. */
  bootDescription: string;
  /**
   * Asked only while the boot looks running: whether systemd says a stage unit failed (systemdFailed, on a live
   * systemd); absent where there is no systemd to ask.
   */
  systemdFailed?: () => Promise<boolean>;
}

function stageRecords(v1: Record<string, unknown>): Array<[string, Record<string, unknown>]> {
  return Object.entries(v1)
    .filter(
      (e): e is [string, Record<string, unknown>] => e[1] !== null && typeof e[1] === 'object' && !Array.isArray(e[1]),
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The newest start or finished time of any stage; 0 when none has started. */
export function latestEvent(v1: Record<string, unknown>): number {
  let latest = 0;
  for (const [, rec] of stageRecords(v1)) {
    for (const t of [rec.start, rec.finished]) if (typeof t === 'number' && t > latest) latest = t;
  }
  return latest;
}

/** Every stage's errors and recoverable errors together, stages in sorted key order as cloud-init walks them. */
export function collectErrors(v1: Record<string, unknown>): { errors: string[]; recoverable: RecoverableErrors } {
  const errors: string[] = [];
  const recoverable: RecoverableErrors = {};
  for (const [, rec] of stageRecords(v1)) {
    if (Array.isArray(rec.errors)) errors.push(...rec.errors.map(String));
    const rerr = rec.recoverable_errors;
    if (rerr && typeof rerr === 'object' && !Array.isArray(rerr)) {
      for (const [level, list] of Object.entries(rerr as Record<string, unknown>)) {
        (recoverable[level] ??= []).push(...(Array.isArray(list) ? list.map(String) : []));
      }
    }
  }
  return { errors, recoverable };
}

/** cloud-init's translate_status: (status, extended_status) from the running status and the condition. */
export function translateStatus(running: RunningStatus, condition: ConditionStatus): [string, string] {
  if (condition === 'error') return ['error', `error - ${running}`];
  if (condition === 'degraded' && (running === 'done' || running === 'running'))
    return [running, `degraded ${running}`];
  return [running, running];
}

/**
 * computeBootStatus, then cloud-init's systemd check: a boot that looks running while systemd says a stage unit
 * failed (killed, crashed) is done, with an error, rather than running for ever.
 */
export async function computeBootStatusWithSystemd(input: StatusInputs): Promise<BootStatus> {
  const s = computeBootStatus(input);
  if (s.running !== 'running' || !input.systemdFailed || !(await input.systemdFailed())) return s;
  const [status, extended] = translateStatus('done', 'error');
  return {
    ...s,
    running: 'done',
    condition: 'error',
    status,
    extended_status: extended,
    detail: SYSTEMD_FAILURE_DETAIL,
    errors: [...s.errors, SYSTEMD_FAILURE_ERROR],
  };
}

export function computeBootStatus(input: StatusInputs): BootStatus {
  const v1 = { ...(input.v1 ?? {}) };
  const description = typeof v1.datasource === 'string' && v1.datasource ? v1.datasource : undefined;
  const datasource =
    input.v1 === undefined ? '' : typeof v1.datasource === 'string' ? dsShortName(v1.datasource) : null;
  const detail = description ?? (v1.stage ? `Running in stage: ${String(v1.stage)}` : input.bootDescription);
  const latest = latestEvent(v1);
  const { errors, recoverable } = collectErrors(v1);
  // Any level present counts, as cloud-init tests the dict itself.
  const condition: ConditionStatus =
    errors.length > 0 ? 'error' : Object.keys(recoverable).length > 0 ? 'degraded' : 'healthy';
  const running: RunningStatus = DISABLED_CODES.has(input.bootStatusCode)
    ? 'disabled'
    : input.v1 !== undefined && !input.resultExists
      ? 'running'
      : latest > 0
        ? 'done'
        : 'not started';
  const [status, extended] = translateStatus(running, condition);
  delete v1.datasource;
  return {
    running,
    condition,
    status,
    extended_status: extended,
    boot_status_code: input.bootStatusCode,
    datasource,
    detail,
    errors,
    recoverable_errors: recoverable,
    lastUpdate: latest > 0 ? latest : undefined,
    v1,
  };
}

/**
 * 'DataSourceNoCloud [seed=…]' → 'nocloud': the first word, lower-cased, without 'datasource', as get_datasource does.
 */
export function dsShortName(description: string): string {
  if (!description) return '';
  return (description.split(' ')[0] as string).toLowerCase().replace(/datasource/g, '');
}

/** 1 on any error, 2 on recoverable errors only (warnings, deprecations), else 0, whatever the running status. */
export function statusExitCode(s: BootStatus): number {
  if (s.condition === 'error') return 1;
  if (s.condition === 'degraded') return 2;
  return 0;
}
