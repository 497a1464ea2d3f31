// Finds the instance for a stage: the same detection and crawl for every caller, real sources or test fakes.
import type { Datasource } from '../sources/datasource';
import { buildDetectContext, detectSources } from '../sources/detect';
import { findSource } from '../sources/find-source';
import type { LocateInput, LocateOutcome } from './runner-deps';

/** ds-identify (sources/detect.ts) picks the candidates among SOURCES; find-source crawls them in order for the stage. */
export async function locateDatasource(input: LocateInput, env: NodeJS.ProcessEnv, sources: readonly Datasource[]): Promise<LocateOutcome> {
  const ctx = await buildDetectContext({ platform: input.platform, log: input.log, config: input.config, finder: input.finder, kernelCmdline: input.kernelCmdline, env });
  const detection = await detectSources(ctx, sources);
  input.log.debug(`ds-identify: ${detection.reason}: ${detection.candidates.map((c) => c.name).join(', ') || 'none'}`);
  // The network stage tries every candidate again: NoCloud with an http seedfrom is only readable now.
  const candidates = detection.candidates;
  const found = await findSource(ctx, candidates, { stage: input.stage, env, ...(input.network ? { network: input.network } : {}) });
  return {
    found: found ? { source: found.source, data: found.data } : undefined,
    tried: candidates.map((c) => c.name),
  };
}
