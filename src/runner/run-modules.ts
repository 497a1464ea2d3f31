// Runs one stage's module list: frequency and semaphores, distro and activation checks, one failure never stops the
// rest.
import { moduleErrorRepr } from './python-repr';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import {
  RENAMED_MODULES,
  type CloudConfig,
  type Module,
  type ModuleContext,
  type ModuleStage,
} from '../modules/module';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import { describeError } from '../util/errors';
import type { Log } from '../util/log';
import type { CloudPaths } from './cloud-paths';
import type { EventLog } from './event-log';
import { readModuleList, type ModuleListEntry } from './module-list';
import { hasRun, markRun, semaphorePath } from './semaphores';
import type { StageRecord } from './status-file';

/**
 * Modules cloud-init itself has dropped (its REMOVED_MODULES, 26.x) that kiln does not implement: still listed in
 * older cloud.cfg files, they are noted at INFO, not warned about. (rightscale_userdata and
 * refresh_rmc_and_interface are on upstream's list too, but Debian's 22.4 cloud.cfg runs them, so kiln has them.)
 */
const REMOVED_MODULES = ['emit_upstart', 'migrator'];

export interface ModuleRunInput {
  platform: Platform;
  log: Log;
  stage: ModuleStage;
  /** The event name prefix: 'init-network', 'modules-config', 'modules-final', 'single'. */
  eventPrefix: string;
  modules: Module[];
  config: CloudConfig;
  distro: DistroInfo;
  instance: InstanceData | undefined;
  /** cloud-init's str(datasource) for the found source ('DataSourceEc2Local'), when one was found. */
  datasource?: string;
  paths: CloudPaths;
  events: EventLog;
  now: () => Date;
  output(text: string): Promise<void>;
  /** Overrides the list from config (cloud-init single). */
  entries?: ModuleListEntry[];
  /** Publishes host keys to the found datasource (ModuleContext.publishHostKeys). */
  publishHostKeys?: ModuleContext['publishHostKeys'];
}

export interface ModuleRunOutcome {
  errors: string[];
  modules: NonNullable<StageRecord['modules']>;
}

/** What a module is given to run: the platform, the instance and where cloud-init keeps its state. */
export function makeModuleContext(
  input: Pick<
    ModuleRunInput,
    'platform' | 'log' | 'distro' | 'instance' | 'datasource' | 'paths' | 'output' | 'publishHostKeys'
  >,
  instanceDir: string,
  recoverable: ModuleContext['recoverable'],
): ModuleContext {
  return {
    platform: input.platform,
    log: input.log,
    distro: input.distro,
    instance: input.instance,
    ...(input.datasource !== undefined ? { datasource: input.datasource } : {}),
    instanceDir,
    paths: { cloudDir: input.paths.cloudDir, runDir: input.paths.runDir },
    output: input.output,
    recoverable,
    ...(input.publishHostKeys ? { publishHostKeys: input.publishHostKeys } : {}),
  };
}

/** Calls one optional hook on each of MODULES; a hook that throws is logged and only loses its head start. */
function callHooks(modules: Module[], log: Log, failure: string, call: (mod: Module) => void): void {
  for (const mod of modules) {
    try {
      call(mod);
    } catch (err) {
      log.debug(`config-${mod.name}: ${failure}: ${describeError(err)}`);
    }
  }
}

/** Calls the prepare hook of each of MODULES that has one. */
export function prepareModules(modules: Module[], ctx: ModuleContext, config: CloudConfig, log: Log): void {
  callHooks(modules, log, 'nothing started ahead', (mod) => mod.prepare?.(ctx, config));
}

/** Calls the release hook of each of MODULES that has one: work started ahead and not used is dropped. */
export function releaseModules(modules: Module[], platform: Platform, log: Log): void {
  callHooks(modules, log, 'releasing work started ahead failed', (mod) => mod.release?.(platform));
}

export async function runModules(input: ModuleRunInput): Promise<ModuleRunOutcome> {
  const out: ModuleRunOutcome = { errors: [], modules: [] };
  // A problem a module reports is logged at its level; the stage's log capture makes it a recoverable error.
  const recover = (level: 'WARNING' | 'ERROR', message: string): void => {
    if (level === 'WARNING') input.log.warn(message);
    else input.log.error(message);
  };
  const listed = input.entries ?? readModuleList(input.config, input.stage, (m) => input.log.deprecated(m));
  // A renamed module runs under its new name; cloud-init logs a deprecation (the boot is degraded) for the old one.
  const renamedFrom = new Map<(typeof listed)[number], string>();
  const entries = listed.map((e) => {
    const renamed = RENAMED_MODULES[e.name];
    if (!renamed) return e;
    input.log.deprecated(
      `Module has been renamed from cc_${e.name} to cc_${renamed}. Update any references in /etc/cloud/cloud.cfg`,
    );
    const entry = { ...e, name: renamed };
    renamedFrom.set(entry, e.name);
    return entry;
  });
  const byName = new Map(input.modules.map((m) => [m.name, m]));
  const unverified = Array.isArray(input.config.unverified_modules) ? input.config.unverified_modules.map(String) : [];
  const iid = input.instance?.instanceId;
  const instanceDir = input.paths.instanceDir(iid ?? 'iid-datasource-none');
  // cloud-init compares unverified_modules with the name as the module list spells it (22.4 runs a listed
  // ubuntu_advantage forced by `unverified_modules: [ubuntu_advantage]`); kiln also takes the module's own name.
  const unverifiedOn = (mod: Module, entry: (typeof entries)[number]): boolean =>
    mod.distros !== 'all' &&
    !mod.distros.includes(input.distro.name) &&
    !unverified.includes(mod.name) &&
    !(entry.listedAs !== undefined && unverified.includes(entry.listedAs));
  // A renamed module's semaphore keeps the name the list gives (22.4 takes config_ubuntu_advantage for a listed
  // ubuntu_advantage), so an instance keeps its record whichever name the list uses.
  const semName = (mod: Module, entry: (typeof entries)[number]): string => renamedFrom.get(entry) ?? mod.name;
  const inactive = (mod: Module): boolean =>
    mod.activateBy.length > 0 && !mod.activateBy.some((k) => input.config[k] !== undefined);
  // Slow work a module can start without the others (host keys) begins now and overlaps the modules ahead of it.
  const toPrepare: Module[] = [];
  for (const entry of entries) {
    const mod = byName.get(entry.name);
    if (!mod?.prepare || unverifiedOn(mod, entry) || inactive(mod)) continue;
    if (
      !(await hasRun(
        input.platform,
        semaphorePath(input.paths, iid, semName(mod, entry), entry.frequency ?? mod.frequency),
      ))
    )
      toPrepare.push(mod);
  }
  prepareModules(
    toPrepare,
    makeModuleContext(input, instanceDir, () => undefined),
    input.config,
    input.log,
  );
  for (const entry of entries) {
    const mod = byName.get(entry.name);
    if (!mod) {
      if (REMOVED_MODULES.includes(entry.name)) {
        input.log.info(
          `Module \`${entry.name}\` has been removed from cloud-init. It may be removed from \`/etc/cloud/cloud.cfg\`.`,
        );
        out.modules.push({ name: entry.name, outcome: 'skipped', seconds: 0, reason: 'removed from cloud-init' });
        continue;
      }
      // cloud-init warns about a listed module it cannot find, whether or not the config uses it: a warning is a
      // recoverable error, so the boot is degraded and a `puppet:` or `snap:` key is never dropped in silence.
      input.log.warn(
        `Could not find module named cc_${entry.name} (kiln does not implement it; any '${entry.name}' config is not applied)`,
      );
      out.modules.push({ name: entry.name, outcome: 'skipped', seconds: 0, reason: 'not implemented by kiln' });
      continue;
    }
    if (unverifiedOn(mod, entry)) {
      input.log.info(
        `Skipping modules '${mod.name}' because they are not verified on distro '${input.distro.name}'. To run anyway, add them to 'unverified_modules' in config.`,
      );
      out.modules.push({
        name: mod.name,
        outcome: 'skipped',
        seconds: 0,
        reason: `not verified on ${input.distro.name}`,
      });
      continue;
    }
    if (inactive(mod)) {
      input.log.debug(`Skipping modules '${mod.name}' because no applicable config is provided.`);
      out.modules.push({ name: mod.name, outcome: 'skipped', seconds: 0, reason: 'no applicable config' });
      continue;
    }
    const freq = entry.frequency ?? mod.frequency;
    const sem = semaphorePath(input.paths, iid, semName(mod, entry), freq);
    const eventName = `${input.eventPrefix}/config-${mod.name}`;
    const description = `running config-${mod.name} with frequency ${freq}`;
    if (await hasRun(input.platform, sem)) {
      // cloud-init reports a module its semaphore stops too: started, then finished as "previously ran".
      input.events.start(eventName, description);
      input.events.finish(eventName, 'SUCCESS', `config-${mod.name} previously ran`);
      input.log.debug(`config-${mod.name} already ran (freq=${freq})`);
      out.modules.push({ name: mod.name, outcome: 'skipped', seconds: 0, reason: `already ran (${freq})` });
      continue;
    }
    // cloud-init takes the semaphore before running: a module that fails is not retried on the next boot.
    await markRun(input.platform, sem, input.now());
    input.events.start(eventName, description);
    const started = input.now().getTime();
    const ctx: ModuleContext = {
      ...makeModuleContext(input, instanceDir, recover),
      ...(entry.listedAs !== undefined ? { listedAs: entry.listedAs } : {}),
    };
    try {
      // One batch per module: account files it changes in several steps are written once, when it ends.
      const work = () => mod.run(ctx, input.config);
      await (input.platform.batch ? input.platform.batch(work) : work());
      const seconds = (input.now().getTime() - started) / 1000;
      input.events.finish(
        eventName,
        'SUCCESS',
        `config-${mod.name} ran successfully and took ${seconds.toFixed(3)} seconds`,
      );
      out.modules.push({ name: mod.name, outcome: 'ran', seconds });
    } catch (err) {
      const seconds = (input.now().getTime() - started) / 1000;
      const why = describeError(err);
      const message = `Running module ${mod.name} failed: ${why.startsWith(`${mod.name}: `) ? why.slice(mod.name.length + 2) : why}`;
      // At WARNING, as cloud-init's logexc logs it; the error itself goes to the stage's errors below.
      input.log.warn(message);
      // cloud-init's finish message for a module that raised is its start description.
      input.events.finish(eventName, 'FAIL', description);
      // status.json lists it as cloud-init does: the repr of (module name, exception).
      out.errors.push(moduleErrorRepr(entry.listedAs ?? mod.name, err, mod.name));
      out.modules.push({ name: mod.name, outcome: 'failed', seconds, reason: why });
    }
  }
  return out;
}
