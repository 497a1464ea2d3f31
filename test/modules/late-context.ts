// Contexts for the config- and final-stage module tests: a sandbox root, optionally seen through a DryRunPlatform.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { DistroInfo } from '../../src/platform/linux/distro/distro-info';
import { DryRunPlatform } from '../../src/platform/dry-run-platform';
import type { InstanceData } from '../../src/sources/datasource';
import { moduleContext, type TestModuleContext } from './module-context';

export interface DryContext extends TestModuleContext {
  dry: DryRunPlatform;
  /** The commands planned so far, one string each. */
  commands(): string[];
}

/** Effects are recorded, never applied: reads see the sandbox root and the planned writes. */
export function dryContext(
  root: string,
  opts: { instance?: Partial<InstanceData>; distro?: DistroInfo } = {},
): DryContext {
  const ctx = moduleContext(root, opts);
  const dry = new DryRunPlatform(ctx.platform);
  return {
    ...ctx,
    platform: dry,
    dry,
    commands: () => dry.effects.flatMap((e) => (e.kind === 'run' ? [e.command] : [])),
  };
}

/** /var/lib/cloud/instance -> instances/<iid>, as the runner links it. */
export function linkInstanceDir(root: string, iid = 'iid-test-1'): void {
  mkdirSync(join(root, 'var/lib/cloud/instances', iid), { recursive: true });
  symlinkSync(`/var/lib/cloud/instances/${iid}`, join(root, 'var/lib/cloud/instance'));
}
