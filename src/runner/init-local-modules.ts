// The module work init-local does ahead of the init stage: the hostname set early, the init modules' slow work begun.
import type { ConfigMap } from '../config/parse-yaml-config';
import { mergeSystemConfig } from '../config/merge-system-config';
import type { Module, ModuleContext } from '../modules/module';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import { describeError } from '../util/errors';
import type { Log, Logger } from '../util/log';
import { mergedFromDisk } from './merged-from-disk';
import { readModuleList } from './module-list';
import type { RunConfig } from './run-config';
import type { FoundSource } from './runner-deps';
import { makeModuleContext, prepareModules } from './run-modules';

export interface InitLocalModulesInput {
  platform: Platform;
  logger: Logger;
  rc: RunConfig;
  distro: DistroInfo;
  /** Every module kiln knows. */
  modules: Module[];
  /** Appends to cloud-init-output.log. */
  output(text: string): Promise<void>;
}

/** What a module sees in init-local: the system and datasource config (user data is not read yet). */
function initLocalModuleContext(
  input: InitLocalModulesInput,
  data: InstanceData | undefined,
  logName: string,
): { cfg: ConfigMap; ctx: ModuleContext } {
  const { rc } = input;
  const cfg = mergeSystemConfig(rc.config, (data?.sourceConfig ?? {}) as ConfigMap);
  const contextInput = {
    platform: input.platform,
    log: input.logger.for(logName),
    distro: input.distro,
    instance: data,
    paths: rc.paths,
    output: input.output,
  };
  const instanceDir = rc.paths.instanceDir(data?.instanceId ?? 'iid-datasource-none');
  return { cfg, ctx: makeModuleContext(contextInput, instanceDir, () => undefined) };
}

/**
 * --all-stages, first boot of an instance: the init stage's modules may start their slow work (host keys) as
 * soon as the instance is known to be new, from the config known so far (system, then datasource, not yet
 * user data). The init stage calls prepare() again with the final config; work already under way is reused,
 * and work the final config does not need is dropped unused.
 */
export function prepareInitModulesEarly(input: InitLocalModulesInput, data: InstanceData | undefined): void {
  const { cfg, ctx } = initLocalModuleContext(input, data, 'modules.py');
  const modules = readModuleList(cfg, 'init').flatMap((entry) => input.modules.filter((m) => m.name === entry.name));
  prepareModules(modules, ctx, cfg, ctx.log);
}

/**
 * cloud-init already sets the hostname from meta-data in init-local, before user data is read (so DHCP and
 * logs see it), with the system and datasource config and the instance's cloud-config files a previous boot
 * wrote (its config merger reads them: on a later boot the user's `hostname:` wins here too, and the per-
 * instance set_hostname does not run again to put it back); a failure is logged (to LOG) and left to the init
 * stage's set_hostname, which runs again with the whole config.
 */
export async function setHostnameEarly(input: InitLocalModulesInput, found: FoundSource, log: Log): Promise<void> {
  const mod = input.modules.find((m) => m.name === 'set_hostname');
  if (!mod) return;
  const { ctx } = initLocalModuleContext(input, found.data, 'main.py');
  const cfg = await mergedFromDisk(input.platform, input.rc.paths, input.rc.config, found);
  if (!found.data.localHostname && cfg.hostname === undefined && cfg.fqdn === undefined) return;
  try {
    await mod.run(ctx, cfg);
  } catch (err) {
    const why = describeError(err);
    log.debug(`Failed setting hostname in init-local stage. Will retry in init-network stage. Error: ${why}.`);
  }
}
