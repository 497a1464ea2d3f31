// The real implementations the CLI hands the runner: kiln's sources, modules, user-data and network code.
import { LinuxFilesystemFinder } from '../devices/linux-finder';
import type { Platform } from '../platform/platform';
import { buildDetectContext, detectSources } from '../sources/detect';
import { findSource } from '../sources/find-source';
import { DATASOURCES } from '../sources/registry';
import { applyNetworkOnLinux } from './apply-network-linux';
import { MODULES } from '../modules/registry';
import { processUserDataOnLinux } from './process-user-data-linux';
import type { LocateInput, LocateOutcome, RunnerDeps } from './runner-deps';

export interface DefaultDepsInput {
  platform: Platform;
  embeddedConfig: string | undefined;
  version: string;
  env: NodeJS.ProcessEnv;
}

/** ds-identify (sources/detect.ts) picks the candidates; find-source crawls them in order for the stage. */
export async function locateWithSources(input: LocateInput, env: NodeJS.ProcessEnv): Promise<LocateOutcome> {
  const ctx = await buildDetectContext({ platform: input.platform, log: input.log, config: input.config, finder: input.finder, kernelCmdline: input.kernelCmdline });
  const detection = await detectSources(ctx, DATASOURCES);
  input.log.debug(`ds-identify: ${detection.reason}: ${detection.candidates.map((c) => c.name).join(', ') || 'none'}`);
  // The network stage tries every candidate again: NoCloud with an http seedfrom is only readable now.
  const candidates = detection.candidates;
  const found = await findSource(ctx, candidates, { stage: input.stage, env });
  return {
    found: found ? { source: found.source, data: found.data } : undefined,
    failures: (found?.failures ?? []).map((f) => (f.error.startsWith(`${f.name}:`) ? f.error : `${f.name}: ${f.error}`)),
    tried: candidates.map((c) => c.name),
  };
}

export function defaultRunnerDeps(input: DefaultDepsInput): RunnerDeps {
  return {
    sources: [...DATASOURCES],
    modules: [...MODULES],
    processUserData: processUserDataOnLinux,
    selectAndRenderNetwork: applyNetworkOnLinux,
    finder: new LinuxFilesystemFinder({ root: input.platform.root }),
    locate: (l) => locateWithSources(l, input.env),
    embeddedConfig: input.embeddedConfig,
    version: input.version,
  };
}
