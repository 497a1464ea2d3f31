// The exit code of the stage commands (`init`, `modules`, `--all-stages` outside systemd).
import type { StageOutcome } from '../runner/stage-runner';

/** cloud-init exits 1 when a stage recorded any error, 0 otherwise (a disabled boot is not an error). */
export function stageExitCode(outcomes: StageOutcome[]): number {
  return outcomes.some((o) => o.failed || o.errors.length > 0) ? 1 : 0;
}
