// For the runner: crawl the detected candidates of one stage in order and return the first that yields instance data.
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { LeftToNetworkStage, SourceError } from './source-error';
import type { EphemeralNetwork } from '../net/ephemeral/ephemeral-network';
import { boolSetting, sourceSettings } from './settings';
import { monotonicMs } from '../util/monotonic-clock';
import { describeError } from '../util/errors';

export interface FindSourceOptions {
  /**
   * 'local' (init-local: local sources, and network ones with local evidence when `network` lets them bring up DHCP) or
   * 'network' (init).
   */
  stage: 'local' | 'network';
  signal?: AbortSignal;
  network?: EphemeralNetwork;
  /** Base URL override for network sources (tests, `kiln devel serve-metadata`). */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
  /** Told around each candidate's crawl (the runner's search-<class> events, as cloud-init's find_source reports). */
  report?: SearchReport;
}

/**
 * Hooks around one candidate's crawl: FOUND when it answered; FAILED when it threw something other than a SourceError.
 */
export interface SearchReport {
  start(source: Datasource): void;
  finish(source: Datasource, outcome: 'found' | 'not-found' | 'failed'): void;
}

export interface FoundSource {
  source: Datasource;
  data: InstanceData;
  /** Sources tried before it, with why they failed. */
  failures: Array<{ name: string; error: string }>;
}

/**
 * Whether init-local crawls the network source SOURCE inside a temporary lease, as cloud-init's Ec2Local and
 * OpenStackLocal do: only when local facts say the cloud is here, and unless `datasource.<Name>.local_dhcp` is off.
 */
async function crawlInLocalStage(
  ctx: DetectContext,
  source: Datasource,
  settings: Record<string, unknown>,
): Promise<boolean> {
  if (!boolSetting(settings, 'local_dhcp', true)) {
    ctx.log.debug(`${source.name}: local_dhcp is off; left to the init stage`);
    return false;
  }
  const evidence = source.localEvidence ? await source.localEvidence(ctx).catch(() => false) : false;
  if (!evidence)
    ctx.log.debug(`${source.name}: no local evidence (DMI) of this cloud; no temporary lease, left to the init stage`);
  return evidence;
}

/**
 * Tries CANDIDATES in order. In the local stage network sources run only when an ephemeral network is given and
 * local facts point at their cloud; None is only taken in the network stage (cloud-init falls back to it last).
 * Undefined when nothing applies.
 */
export async function findSource(
  ctx: DetectContext,
  candidates: readonly Datasource[],
  opts: FindSourceOptions,
): Promise<FoundSource | undefined> {
  const failures: FoundSource['failures'] = [];
  for (const source of candidates) {
    // NoCloud may still need the network (an http seedfrom): its crawl says so and the network stage retries it.
    if (opts.stage === 'local' && source.name === 'None') continue;
    const settings = sourceSettings(ctx.config, source.name);
    if (
      opts.stage === 'local' &&
      source.kind === 'network' &&
      !(opts.network && (await crawlInLocalStage(ctx, source, settings)))
    )
      continue;
    const crawl: CrawlContext = {
      ...ctx,
      settings,
      stage: opts.stage,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.stage === 'local' && source.kind === 'network' && opts.network ? { network: opts.network } : {}),
      ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    };
    const t = monotonicMs();
    opts.report?.start(source);
    try {
      const data = await source.crawl(crawl);
      opts.report?.finish(source, 'found');
      ctx.log.info(`Found datasource ${source.name} [${data.subplatform}] in ${Math.round(monotonicMs() - t)} ms`);
      return { source, data, failures };
    } catch (err) {
      // A source's own "not here" is cloud-init's get_data returning False; anything else escaped the source.
      opts.report?.finish(source, err instanceof SourceError ? 'not-found' : 'failed');
      if (err instanceof LeftToNetworkStage) {
        ctx.log.info(`${source.name} left to the init stage: ${err.message}`);
        continue;
      }
      const error = describeError(err);
      ctx.log.warn(`datasource ${source.name} failed: ${error}`);
      failures.push({ name: source.name, error });
      if (!(err instanceof SourceError) && !(err instanceof Error)) throw err;
    }
  }
  return undefined;
}
