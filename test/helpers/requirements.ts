// Tests that need a tool, root, wine or a built binary skip with a clear reason, except in CI where they fail.
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

export const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

export function hasCommand(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

export function isRoot(): boolean {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/**
 * Returns true when the requirement holds. Otherwise skips the test with REASON, or, in CI (where
 * .ci/run installs everything), fails it: a skipped test there would hide a missing install step.
 */
export function need(t: TestContext, holds: boolean, reason: string): boolean {
  if (holds) return true;
  if (IN_CI) throw new Error(`requirement missing in CI: ${reason}`);
  t.skip(reason);
  return false;
}
