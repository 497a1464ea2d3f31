// For the runner: crawl the detected candidates of one stage in order and return the first that yields instance data.
import type { CrawlContext, Datasource, DetectContext, InstanceData } from './datasource';
import { SourceError } from './source-error';
import type { EphemeralNetwork } from './ephemeral-network';
import { sourceSettings } from './settings';
import { monotonicMs } from '../util/monotonic-clock';

export interface FindSourceOptions {
  /** 'local' (init-local: local sources, and network ones only when `network` lets them bring up DHCP) or 'network' (init). */
  stage: 'local' | 'network';
  signal?: AbortSignal;
  network?: EphemeralNetwork;
  /** Base URL override for network sources (tests, `kiln devel serve-metadata`). */
  baseUrl?: string;
  env?: NodeJS.ProcessEnv;
}

export interface FoundSource {
  source: Datasource;
  data: InstanceData;
  /** Sources tried before it, with why they failed. */
  failures: Array<{ name: string; error: string }>;
}

/**
 * Tries CANDIDATES in order. In the local stage network sources run only when an ephemeral network is given;
 * None is only taken in the network stage (cloud-init falls back to it last). Undefined when nothing applies.
 */
export async function findSource(ctx: DetectContext, candidates: readonly Datasource[], opts: FindSourceOptions): Promise<FoundSource | undefined> {
  const failures: FoundSource['failures'] = [];
  for (const source of candidates) {
    if (opts.stage === 'local' && source.kind === 'network' && !opts.network) continue;
    // NoCloud may still need the network (an http seedfrom): its crawl says so and the network stage retries it.
    if (opts.stage === 'local' && source.name === 'None') continue;
    const crawl: CrawlContext = {
      ...ctx,
      settings: sourceSettings(ctx.config, source.name),
      stage: opts.stage,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.stage === 'local' && source.kind === 'network' && opts.network ? { network: opts.network } : {}),
      ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
      ...(opts.env ? { env: opts.env } : {}),
    };
    const t = monotonicMs();
    try {
      const data = await source.crawl(crawl);
      ctx.log.info(`Found datasource ${source.name} [${data.subplatform}] in ${Math.round(monotonicMs() - t)} ms`);
      return { source, data, failures };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      ctx.log.warn(`datasource ${source.name} failed: ${error}`);
      failures.push({ name: source.name, error });
      if (!(err instanceof SourceError) && !(err instanceof Error)) throw err;
    }
  }
  return undefined;
}
