// Finds the datasource for a stage: datasource_list order, local sources before networking, network ones after.
import type { FilesystemFinder } from '../devices/filesystem-finder';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { Platform } from '../platform/platform';
import type { Datasource, DetectContext, InstanceData } from '../sources/datasource';
import { describeError } from '../util/errors';
import type { Log } from '../util/log';

export interface FoundSource {
  source: Datasource;
  data: InstanceData;
}

export interface FindOutcome {
  found: FoundSource | undefined;
  /** Sources that were detected but could not be read (recorded as recoverable errors). */
  failures: string[];
  /** Names tried, in order. */
  tried: string[];
}

/** datasource_list as given (a string is one name), default every known source in registry order. */
export function datasourceList(config: ConfigMap, known: Datasource[]): string[] {
  const raw = config.datasource_list;
  if (typeof raw === 'string') return [raw];
  if (Array.isArray(raw)) return raw.map(String);
  return known.map((s) => s.name);
}

/** The sources of datasource_list that run in STAGE; unknown names are reported once in the log. */
export function sourcesForStage(config: ConfigMap, known: Datasource[], stage: 'local' | 'network', log: Log): Datasource[] {
  const out: Datasource[] = [];
  for (const name of datasourceList(config, known)) {
    const src = known.find((s) => s.name.toLowerCase() === name.toLowerCase());
    if (!src) {
      if (stage === 'local') log.warn(`datasource_list names '${name}', which kiln does not know; ignored`);
      continue;
    }
    if (src.kind === stage) out.push(src);
  }
  return out;
}

export interface FindInput {
  platform: Platform;
  log: Log;
  config: ConfigMap;
  kernelCmdline: string;
  dmi: Record<string, string>;
  finder: FilesystemFinder;
  candidates: Datasource[];
}

/** Tries CANDIDATES in order: the first that detects and crawls wins; a crawl failure moves on to the next. */
export async function findDatasource(input: FindInput): Promise<FindOutcome> {
  const ctx: DetectContext = { platform: input.platform, log: input.log, kernelCmdline: input.kernelCmdline, dmi: input.dmi, config: input.config, finder: input.finder };
  const failures: string[] = [];
  const tried: string[] = [];
  for (const source of input.candidates) {
    tried.push(source.name);
    let detected = false;
    try {
      detected = await source.detect(ctx);
    } catch (err) {
      failures.push(`${source.name}: detection failed: ${describeError(err)}`);
      continue;
    }
    if (!detected) {
      input.log.debug(`Datasource ${source.name} not present`);
      continue;
    }
    const all = (input.config.datasource ?? {}) as Record<string, unknown>;
    const settings = (all[source.name] ?? {}) as Record<string, unknown>;
    try {
      const data = await source.crawl({ ...ctx, settings: settings !== null && typeof settings === 'object' ? settings : {} });
      input.log.info(`Found datasource ${source.name} (instance id ${data.instanceId})`);
      return { found: { source, data }, failures, tried };
    } catch (err) {
      const why = describeError(err);
      input.log.warn(`Datasource ${source.name} was detected but could not be read: ${why}`);
      failures.push(why.startsWith(`${source.name}:`) ? why : `${source.name}: ${why}`);
    }
  }
  return { found: undefined, failures, tried };
}

/** 'DataSourceNoCloud [seed=…]', the description cloud-init writes into status.json and `datasource` files. */
export function describeSource(name: string, data: InstanceData): string {
  // NoCloud describes itself by its seed and dsmode in cloud-init ('[seed=/dev/sr0][dsmode=net]').
  const seed = /^(?:seed-dir|config-disk|metadata) \((.*)\)$/.exec(data.subplatform)?.[1];
  if (name === 'NoCloud' && seed !== undefined) {
    const dsmode = typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net';
    return `DataSourceNoCloud [seed=${seed}][dsmode=${dsmode}]`;
  }
  return `DataSource${name} [${data.subplatform}]`;
}

/** Which of CANDIDATES detect as present (no crawling): what the systemd generator asks before starting kiln. */
export async function detectSources(input: FindInput): Promise<string[]> {
  const ctx: DetectContext = { platform: input.platform, log: input.log, kernelCmdline: input.kernelCmdline, dmi: input.dmi, config: input.config, finder: input.finder };
  const out: string[] = [];
  for (const source of input.candidates) {
    const present = await source.detect(ctx).catch(() => false);
    if (present) out.push(source.name);
  }
  return out;
}
