// Finds the instance for a stage: the same detection and crawl for every caller, real sources or test fakes.
import type { Datasource } from '../sources/datasource';
import { buildDetectContext, detectSources } from '../sources/detect';
import { findSource, type SearchReport } from '../sources/find-source';
import { sourceClassName } from './describe-source';
import type { EventLog } from './event-log';
import type { LocateInput, LocateOutcome } from './runner-deps';

/**
 * cloud-init's find_source events: `<stage>/search-<class less DataSource>` around each crawl, the class the
 * stage's own ('Ec2Local' in init-local), SUCCESS unless the source failed in a way of its own making.
 */
function searchEvents(events: EventLog, stage: 'local' | 'network'): SearchReport {
  const parent = stage === 'local' ? 'init-local' : 'init-network';
  const cls = (s: Datasource) => sourceClassName(s.name, stage);
  const name = (s: Datasource) => `${parent}/search-${cls(s).replace(/^DataSource/, '')}`;
  return {
    start: (s) => events.start(name(s), `searching for ${stage} data from ${cls(s)}`),
    finish: (s, outcome) =>
      events.finish(
        name(s),
        outcome === 'failed' ? 'FAIL' : 'SUCCESS',
        outcome === 'found' ? `found ${stage} data from ${cls(s)}` : `no ${stage} data found from ${cls(s)}`,
      ),
  };
}

/**
 * ds-identify (sources/detect.ts) picks the candidates among SOURCES; find-source crawls them in order for the stage.
 */
export async function locateDatasource(
  input: LocateInput,
  env: NodeJS.ProcessEnv,
  sources: readonly Datasource[],
): Promise<LocateOutcome> {
  const ctx = await buildDetectContext({
    platform: input.platform,
    log: input.log,
    config: input.config,
    finder: input.finder,
    kernelCmdline: input.kernelCmdline,
    env,
  });
  const detection = await detectSources(ctx, sources);
  input.log.debug(`ds-identify: ${detection.reason}: ${detection.candidates.map((c) => c.name).join(', ') || 'none'}`);
  // The network stage tries every candidate again: NoCloud with an http seedfrom is only readable now.
  const candidates = detection.candidates;
  const found = await findSource(ctx, candidates, {
    stage: input.stage,
    env,
    ...(input.network ? { network: input.network } : {}),
    ...(input.events ? { report: searchEvents(input.events, input.stage) } : {}),
  });
  return {
    found: found ? { source: found.source, data: found.data } : undefined,
    tried: candidates.map((c) => c.name),
  };
}
