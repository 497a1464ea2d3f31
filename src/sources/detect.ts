// ds-identify: decides from local facts (DMI, labels, seed folders, cmdline, datasource_list) which sources may apply,
// with no network.
import type { FilesystemFinder } from '../devices/filesystem-finder';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';
import type { Datasource, DetectContext } from './datasource';
import { forcedDatasources } from './kernel-cmdline';
import { DATASOURCES, datasourceByName } from './registry';
import { monotonicMs } from '../util/monotonic-clock';
import { describeError } from '../util/errors';

/** DMI fields read from /sys/class/dmi/id, plus hypervisor_uuid from /sys/hypervisor/uuid (Xen EC2). */
export const DMI_FIELDS = [
  'product_name',
  'product_serial',
  'product_uuid',
  'product_version',
  'sys_vendor',
  'chassis_asset_tag',
  'chassis_vendor',
  'board_vendor',
  'board_name',
];

export async function readDmi(platform: Platform): Promise<Record<string, string>> {
  const dmi: Record<string, string> = {};
  const read = async (key: string, path: string) => {
    const v = await platform.readTextIfExists(path).catch(() => undefined);
    if (v !== undefined && v.trim() !== '') dmi[key] = v.trim();
  };
  await Promise.all([
    ...DMI_FIELDS.map((f) => read(f, `/sys/class/dmi/id/${f}`)),
    read('hypervisor_uuid', '/sys/hypervisor/uuid'),
  ]);
  return dmi;
}

export interface DetectContextInput {
  platform: Platform;
  log: Log;
  config: Record<string, unknown>;
  finder: FilesystemFinder;
  /** Defaults to /proc/cmdline in the target root. */
  kernelCmdline?: string;
  /** Defaults to readDmi(platform). */
  dmi?: Record<string, string>;
  /** kiln's environment (VMware's VMX_GUESTINFO_* variables); default none. */
  env?: NodeJS.ProcessEnv;
}

export async function buildDetectContext(input: DetectContextInput): Promise<DetectContext> {
  return {
    platform: input.platform,
    log: input.log,
    config: input.config,
    finder: input.finder,
    kernelCmdline:
      input.kernelCmdline ??
      ((await input.platform.readTextIfExists('/proc/cmdline').catch(() => undefined)) ?? '').trim(),
    dmi: input.dmi ?? (await readDmi(input.platform)),
    ...(input.env ? { env: input.env } : {}),
  };
}

export interface DetectionResult {
  /** Sources to try, in order; None last when listed. Empty: no datasource (cloud-init would be disabled). */
  candidates: Datasource[];
  /** Where the list came from: 'kernel cmdline ci.ds=…', 'datasource_list (single entry)', 'detected'. */
  reason: string;
  /** The names considered, in order. */
  considered: string[];
  /** Per source: did detect() say yes, and how long it took. */
  checks: Array<{ name: string; found: boolean; ms: number; error?: string }>;
}

/** The names the decision starts from: ci.ds= on the cmdline, else datasource_list, else every registered source. */
function startingList(ctx: DetectContext): { names: string[]; forced: boolean; from: string } {
  const forced = forcedDatasources(ctx.kernelCmdline);
  if (forced) return { names: forced, forced: true, from: `kernel cmdline ci.ds=${forced.join(',')}` };
  const list = ctx.config.datasource_list;
  if (Array.isArray(list) && list.every((x) => typeof x === 'string'))
    return { names: list as string[], forced: false, from: 'datasource_list' };
  return { names: DATASOURCES.map((d) => d.name), forced: false, from: 'built-in order' };
}

/** How many of the slowest checks the log names, with their times. */
const SLOWEST_SHOWN = 6;

export async function detectSources(
  ctx: DetectContext,
  sources: readonly Datasource[] = DATASOURCES,
): Promise<DetectionResult> {
  const { names, forced, from } = startingList(ctx);
  const listed: Datasource[] = [];
  for (const n of names) {
    const ds = datasourceByName(n, sources);
    if (!ds)
      ctx.log.warn(
        `datasource '${n}' (from ${from}) is not known to kiln; known: ${sources.map((s) => s.name).join(', ')}`,
      );
    else if (!listed.includes(ds)) listed.push(ds);
  }
  const considered = listed.map((d) => d.name);
  const real = listed.filter((d) => d.name !== 'None');
  const none = listed.filter((d) => d.name === 'None');
  // As ds-identify: a forced source, or a list naming one source (besides None), is used without checks.
  if (forced || real.length === 1) {
    const reason = forced ? from : `${from} (single entry)`;
    ctx.log.debug(`ds-identify: ${reason} -> ${listed.map((d) => d.name).join(', ')}`);
    return { candidates: [...real, ...none], reason, considered, checks: [] };
  }
  ctx.log.debug(`ds-identify: checking ${real.length} sources (${from})`);
  const checks = await Promise.all(
    real.map(async (ds) => {
      const t = monotonicMs();
      try {
        const found = await ds.detect(ctx);
        return { name: ds.name, found, ms: monotonicMs() - t };
      } catch (err) {
        const error = describeError(err);
        ctx.log.warn(`ds-identify: checking ${ds.name} failed, treated as not found: ${error}`);
        return { name: ds.name, found: false, ms: monotonicMs() - t, error };
      }
    }),
  );
  const candidates = [...real.filter((_, i) => checks[i]?.found), ...none];
  // The checks run side by side; the slowest say where a slow search's time went. (Always logged: code that only
  // runs when a check happens to be slow would make the build's code cache depend on the training run's timing.)
  const slowest = [...checks].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
  ctx.log.debug(`ds-identify: slowest checks: ${slowest.map((c) => `${c.name} ${Math.round(c.ms)} ms`).join(', ')}`);
  ctx.log.debug(
    `ds-identify: ${checks.map((c) => `${c.name}=${c.found ? 'found' : 'not-found'}`).join(' ')} -> ${candidates.map((d) => d.name).join(', ') || 'none (disabled)'}`,
  );
  return { candidates, reason: 'detected', considered, checks };
}

/** For the runner: the candidate sources for CTX, in the order to try them. */
export async function candidateSources(
  ctx: DetectContext,
  sources: readonly Datasource[] = DATASOURCES,
): Promise<Datasource[]> {
  return (await detectSources(ctx, sources)).candidates;
}
