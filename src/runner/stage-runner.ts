// The boot stages (init-local, init, modules-config, modules-final, or all four in one process) and `single`.
import { posix } from 'node:path';
import type { ConfigMap } from '../config/parse-yaml-config';
import { mergeSystemConfig } from '../config/merge-system-config';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Frequency, Module, ModuleStage } from '../modules/module';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import { sourceSettings } from '../sources/settings';
import { bootNetworkEvent } from '../sources/update-events';
import { describeError, KilnError } from '../util/errors';
import type { Log, Logger } from '../util/log';
import { detectDistro } from '../platform/linux/distro/detect-distro';
import { EventLog, type EventSink } from './event-log';
import { describeSource } from './describe-source';
import { addSystemInfoToInstanceData } from './combined-cloud-config';
import { locateDatasource } from './locate-datasource';
import { restoreCachedSource } from './cached-source';
import { consumeData } from './consume-data';
import { writeInstanceData } from './instance-data';
import { prepareInitModulesEarly, setHostnameEarly, type InitLocalModulesInput } from './init-local-modules';
import { initCloudDirs, instancify, NO_PREVIOUS_INSTANCE_ID, previousInstanceId } from './instance-files';
import { validateUserCloudConfig } from './validate-user-cloud-config';
import { mergedFromDisk } from './merged-from-disk';
import { attemptCmdlineUrl } from './cmdline-url';
import { canonicalModuleName } from './module-list';
import { loadRunConfig, readKernelCmdline, type RunConfig } from './run-config';
import { releaseModules, runModules, type ModuleRunInput } from './run-modules';
import { semaphorePath } from './semaphores';
import { markNetworkUnneeded } from './skip-network';
import { applyStageNetwork, type StageNetworkOutcome } from './stage-network';
import type { FoundSource, RunnerDeps } from './runner-deps';
import type { StageSync } from './stage-sync';
import {
  emptyStatus,
  mergeRecoverable,
  readStatusFile,
  writeResultFile,
  writeStatusFile,
  type StageName,
  type StageRecord,
  type StatusFile,
} from './status-file';

export interface StageRunnerOptions {
  platform: Platform;
  logger: Logger;
  deps: RunnerDeps;
  /** Prints the stage banner (stdout at boot, which the journal keeps). */
  print?: (text: string) => void;
  /** An extra config file's content (`--file`), merged over the system config. */
  extraConfig?: ConfigMap;
}

/** What one stage ended with: 'disabled' when a disable switch stopped it before it began. */
export interface StageOutcome {
  stage: StageName;
  disabled: boolean;
  errors: string[];
  failed: boolean;
}

class StageFailure extends KilnError {
  override readonly name = 'StageFailure';
}

/**
 * How this process runs its stage: alone (one stage unit), or with the other three after it ('all-stages': back
 * to back; 'all-stages-synced': each waits for its stage unit, so the distro's networking ran after init-local).
 */
type ProcessMode = 'one-stage' | 'all-stages' | 'all-stages-synced';

const EVENT_NAME: Record<StageName, string> = {
  'init-local': 'init-local',
  init: 'init-network',
  'modules-config': 'modules-config',
  'modules-final': 'modules-final',
};
const MODULE_STAGE: Record<StageName, ModuleStage | undefined> = {
  'init-local': undefined,
  init: 'init',
  'modules-config': 'config',
  'modules-final': 'final',
};

/** A time as cloud-init writes it into its banner and boot-finished. */
const cloudInitTime = (date: Date): string => date.toUTCString().replace('GMT', '+0000');

/** One process's view of the boot: config, distro and the instance are read once and shared by its stages. */
export class StageRunner {
  private readonly platform: Platform;
  private readonly log: Log;
  private readonly deps: RunnerDeps;
  private readonly now: () => Date;
  private runConfig: RunConfig | undefined;
  private distro: DistroInfo | undefined;
  /** The instance a stage of this process found or restored: where the next stage starts. */
  private found: FoundSource | undefined;
  /** The init stage's merged cloud-config, for the module stages after it in this process. */
  private merged: ConfigMap | undefined;
  /** What init-local's network step did this boot (in one process: config no networking service has read yet). */
  private localNetwork: StageNetworkOutcome | undefined;
  private events: EventLog | undefined;
  private reportingHandlers: Promise<EventSink | undefined> | undefined;

  constructor(private readonly opts: StageRunnerOptions) {
    this.platform = opts.platform;
    this.log = opts.logger.for('main.py');
    this.deps = opts.deps;
    this.now = opts.deps.now ?? (() => new Date());
  }

  /** The system config in effect (loaded once per process). */
  async config(): Promise<RunConfig> {
    if (!this.runConfig) {
      const deps = this.deps;
      const cmdline = deps.kernelCmdline ? await deps.kernelCmdline() : await readKernelCmdline(this.platform);
      const rc = await loadRunConfig(this.platform, deps.embeddedConfig, cmdline);
      if (this.opts.extraConfig) rc.config = mergeSystemConfig(rc.config, this.opts.extraConfig);
      this.runConfig = rc;
      this.log.debug(`config layers: ${rc.sources.join(', ')}`);
    }
    return this.runConfig;
  }

  /**
   * cloud-init's attempt_cmdline_url, run before each init stage reads its config: a `cloud-config-url=` on the
   * kernel command line becomes cloud.cfg.d/91_kernel_cmdline_url.cfg, and the config is read again when it was
   * written.
   */
  private async kernelCmdlineUrl(rc: RunConfig, network: boolean): Promise<RunConfig> {
    const env = this.deps.env ?? process.env;
    const log = this.log;
    const out = await attemptCmdlineUrl({ platform: this.platform, log, cmdline: rc.kernelCmdline, network, env });
    if (out.level === 'WARNING') log.warn(out.message);
    else if (out.level === 'INFO') log.info(out.message);
    else log.debug(out.message);
    if (!out.wrote) return rc;
    this.runConfig = undefined;
    this.distro = undefined;
    return this.config();
  }

  private async distroInfo(): Promise<DistroInfo> {
    this.distro ??= await detectDistro(this.platform, (await this.config()).config);
    return this.distro;
  }

  private eventLog(rc: RunConfig): EventLog {
    this.events ??= new EventLog(this.platform, rc.paths.eventLogFile, this.opts.logger.for('handlers.py'), this.now);
    return this.events;
  }

  /**
   * The reporting handlers of the system config beyond the log: the hyperv one (KVP), made once per process as
   * cloud-init's registry; none where the platform tells the host nothing (a dry run: the pool file is the host's
   * telemetry).
   */
  private reportingSink(rc: RunConfig): Promise<EventSink | undefined> {
    this.reportingHandlers ??=
      this.deps.reportingHandlers?.(this.platform, rc.config, this.opts.logger.for('handlers.py')) ??
      Promise.resolve(undefined);
    return this.reportingHandlers;
  }

  private async uptime(): Promise<number> {
    if (this.deps.uptime) return this.deps.uptime();
    return (await this.platform.hostUptime?.()) ?? 0; // no procfs: 0 seconds
  }

  /** Appends to /var/log/cloud-init-output.log, where command output goes. */
  private async output(text: string): Promise<void> {
    const rc = await this.config();
    await this.platform.writeFile(rc.paths.outputLogFile, text, { append: true, mode: 0o640 });
  }

  /**
   * The four stages in this one process (cloud-init-main.service). With SYNC, each stage first waits for its unit
   * to start (the units keep systemd's ordering: networking comes up between init-local and init) and its unit
   * is told the stage's exit code when it ends; a stage that throws tells its unit so and the next stage still
   * waits for its own. Without SYNC (no systemd to start the units), the stages run back to back.
   */
  async runAllStages(sync?: StageSync): Promise<StageOutcome[]> {
    const mode: ProcessMode = sync ? 'all-stages-synced' : 'all-stages';
    const out: StageOutcome[] = [];
    try {
      for (const stage of ['init-local', 'init', 'modules-config', 'modules-final'] as StageName[]) {
        if (!sync) {
          const o = await this.runStageIn(stage, mode);
          out.push(o);
          if (o.disabled) break;
          continue;
        }
        await sync.waitForStart(stage);
        try {
          const o = await this.runStageIn(stage, mode);
          out.push(o);
          // cloud-init's status_wrapper: a stage exits with the number of its errors.
          sync.finish(stage, o.errors.length || (o.failed ? 1 : 0));
        } catch (err) {
          out.push({ stage, disabled: false, errors: [describeError(err)], failed: true });
          sync.finish(stage, 1, err);
        }
      }
    } finally {
      this.releaseWorkAhead();
    }
    return out;
  }

  /** One stage, as its own stage unit runs it. */
  runStage(stage: StageName): Promise<StageOutcome> {
    return this.runStageIn(stage, 'one-stage');
  }

  private async runStageIn(stage: StageName, mode: ProcessMode): Promise<StageOutcome> {
    let rc = await this.config();
    if (rc.disabledBy) {
      this.log.info(`cloud-init is disabled (${rc.disabledBy}); stage ${stage} not run`);
      return { stage, disabled: true, errors: [], failed: false };
    }
    if (stage === 'init-local' || stage === 'init') rc = await this.kernelCmdlineUrl(rc, stage === 'init');
    const p = this.platform;
    await initCloudDirs(p, rc.paths);
    let status: StatusFile = (await readStatusFile(p, rc.paths)) ?? emptyStatus();
    if (stage === 'init-local') {
      // A new boot: the records of the last one go.
      status = emptyStatus();
      await p.remove(rc.paths.resultFile);
      await p.remove(rc.paths.resultDataFile);
    }
    const start = this.now().getTime() / 1000;
    const record: StageRecord = { start, finished: null, errors: [], recoverable_errors: {} };
    status.v1[stage] = record;
    status.v1.stage = stage;
    await writeStatusFile(p, rc.paths, status);
    const events = this.eventLog(rc);
    events.start(EVENT_NAME[stage], `running '${stage === 'init' ? 'init' : stage.replace('-', ' ')}'`);
    // cloud-init reads the reporting config only inside the stage, after its start event went to the log alone:
    // KVP sees the stage's finish and everything between, never its start.
    events.attach(await this.reportingSink(rc));
    const bannerName = stage === 'init' ? 'init' : stage.replace('modules-', 'modules:');
    const at = cloudInitTime(this.now());
    const up = (await this.uptime()).toFixed(2);
    const banner = `Cloud-init v. ${this.deps.cloudInitVersion} running '${bannerName}' at ${at}. Up ${up} seconds.\n`;
    this.opts.print?.(banner);
    this.opts.logger.for('log_util.py').debug(banner.trimEnd());
    await this.output(banner);
    // Every WARNING and ERROR logged while the stage runs is one of its recoverable errors, as in cloud-init.
    const capture = this.opts.logger.capture();
    let failed = false;
    try {
      if (stage === 'init-local') await this.localBody(rc, mode);
      else if (stage === 'init') await this.networkBody(rc, record, status, mode);
      else await this.modulesBody(rc, record, stage);
    } catch (err) {
      const why = describeError(err);
      this.log.error(`stage ${stage} failed: ${why}`);
      record.errors.push(why);
      failed = true;
    }
    mergeRecoverable(record.recoverable_errors, capture.stop());
    record.finished = this.now().getTime() / 1000;
    status.v1.stage = null;
    const found = this.found;
    if (found) status.v1.datasource = describeSource(found.source.name, found.data, found.stage);
    await writeStatusFile(p, rc.paths, status);
    if (stage === 'modules-final') await writeResultFile(p, rc.paths, status);
    const degraded = record.errors.length > 0 || Object.values(record.recoverable_errors).some((l) => l.length > 0);
    const result = failed ? 'FAIL' : degraded ? 'WARN' : 'SUCCESS';
    events.finish(EVENT_NAME[stage], result, `${stage} ${failed ? 'failed' : 'finished'}`);
    await events.flush();
    // The next stage is another process for cloud-init, with its handlers registered after its own start event.
    events.attach(undefined);
    return { stage, disabled: false, errors: record.errors, failed };
  }

  private async localBody(rc: RunConfig, mode: ProcessMode): Promise<void> {
    const p = this.platform;
    const marker = posix.join(rc.paths.instanceLink, 'manual-clean');
    const cleanInConfig = rc.config.manual_cache_clean === true;
    if (cleanInConfig || (await p.exists(marker))) {
      const why = cleanInConfig ? 'set in config' : `marker found: ${marker}`;
      this.log.debug(`manual cache clean ${why}; trusting the cached instance`);
      const cached = await this.restoreCached(rc);
      if (cached) this.found = cached;
    } else {
      await p.remove(posix.join(rc.paths.instanceLink, 'boot-finished'));
      await p.remove(rc.paths.instanceLink);
    }
    if (!this.found) {
      // A root no instance has booted in yet (an image's first boot): whatever source is found, its instance is
      // new, so the init stage's slow work may start now, from the system config, while the sources are searched.
      const firstBoot = async () => (await previousInstanceId(p, rc.paths)) === NO_PREVIOUS_INSTANCE_ID;
      if (mode !== 'one-stage' && (await firstBoot())) {
        prepareInitModulesEarly(await this.initLocalModules(rc), undefined);
      }
      const outcome = await this.locate(rc, 'local', false);
      // A source that was detected but failed is already logged at WARNING (find-source): a recoverable error.
      this.found = outcome.found && { ...outcome.found, stage: 'local' };
    }
    const found = this.found;
    if (!found) {
      this.log.debug('No local datasource found');
      this.localNetwork = await this.applyNetwork(rc, undefined, 'local');
      return;
    }
    this.opts.logger.redactor.add(found.data.adminPassword);
    const { isNew } = await instancify(p, rc.paths, found.source.name, found.data, found.stage);
    if (cleanInConfig) await p.writeFile(marker, '');
    if (isNew && mode !== 'one-stage') prepareInitModulesEarly(await this.initLocalModules(rc), found.data);
    if (isNew || (await this.networkUpdateEvent(rc, found))) {
      this.localNetwork = await this.applyNetwork(rc, found.data, 'local');
    }
    await this.writeInstanceDataFiles(rc, found, rc.config);
    await setHostnameEarly(await this.initLocalModules(rc), found, this.log);
    await markNetworkUnneeded(p, this.log, rc.paths.runDir, found.data);
  }

  private async networkBody(rc: RunConfig, record: StageRecord, status: StatusFile, mode: ProcessMode): Promise<void> {
    const p = this.platform;
    if (this.deps.networkInfo) {
      // cloud-init writes the device and route tables to the console before it looks for the instance.
      const info = `${await this.deps.networkInfo(p, this.opts.logger.for('netinfo.py'))}\n`;
      this.opts.print?.(info);
      await this.output(info);
    }
    this.found ??= await this.restoreCached(rc);
    let networkApplied = this.localNetwork?.appliedForInstance ?? false;
    if (mode === 'all-stages' && this.localNetwork?.localWritten) {
      // Under systemd, the stage units keep the distro's networking between init-local and this stage, and it brings
      // up what init-local wrote. Run back to back without them, nothing did: this stage brings it up first, so that
      // network sources and the modules have a network.
      this.localNetwork = { ...this.localNetwork, localWritten: false };
      if ((await this.applyNetwork(rc, this.found?.data, 'network')).appliedForInstance) networkApplied = true;
    }
    if (!this.found) {
      // Without a local stage this boot, local sources are still worth a look before the network ones.
      const outcome = await this.locate(rc, 'network', status.v1['init-local'].start !== null);
      this.found = outcome.found && { ...outcome.found, stage: 'network' };
      if (!this.found) {
        // As cloud-init: without a source the network stage still applies (and brings up) the fallback config.
        await this.applyNetwork(rc, undefined, 'network');
        const tried = outcome.tried.join(', ') || 'none';
        const check = 'check datasource_list in /etc/cloud/cloud.cfg(.d) and the seed';
        throw new StageFailure(`No instance datasource found (tried ${tried}); ${check}`);
      }
    }
    const located = this.found;
    this.opts.logger.redactor.add(located.data.adminPassword);
    const { isNew } = await instancify(p, rc.paths, located.source.name, located.data, located.stage);
    const renderAgain = isNew ? !networkApplied : await this.networkUpdateEvent(rc, located);
    if (renderAgain) await this.applyNetwork(rc, located.data, 'network');
    const found = await this.setupSource(rc, located, isNew);
    this.found = found;
    const consumed = await consumeData({
      platform: p,
      log: this.log,
      userDataLog: this.opts.logger.for('user_data.py'),
      paths: rc.paths,
      config: rc.config,
      found,
      distro: await this.distroInfo(),
      deps: this.deps,
      now: this.now,
      errors: record.errors,
    });
    this.merged = consumed.merged;
    const cloudConfigFile = posix.join(rc.paths.instanceDir(found.data.instanceId), 'cloud-config.txt');
    await validateUserCloudConfig((await p.readTextIfExists(cloudConfigFile)) ?? '', this.opts.logger.for('schema.py'));
    await this.writeInstanceDataFiles(rc, found, consumed.merged);
    await addSystemInfoToInstanceData(p, rc.paths, consumed.combined, this.log);
    await this.activateSource(rc, found, isNew);
    await this.runModuleSection(rc, record, found, consumed.merged, 'init');
  }

  private async modulesBody(rc: RunConfig, record: StageRecord, stage: StageName): Promise<void> {
    const { found, merged } = await this.restoreForModules(rc);
    await this.runModuleSection(rc, record, found, merged, MODULE_STAGE[stage] as ModuleStage);
    if (stage === 'modules-final') {
      const up = (await this.uptime()).toFixed(2);
      const finished = `${up} - ${cloudInitTime(this.now())} - v. ${this.deps.cloudInitVersion}\n`;
      await this.platform.writeFile(posix.join(rc.paths.instanceLink, 'boot-finished'), finished);
    }
  }

  /** The instance a previous stage or boot cached, with its source; undefined when there is none. */
  private restoreCached(rc: RunConfig): Promise<FoundSource | undefined> {
    return restoreCachedSource(this.platform, rc.paths.instanceLink, this.deps.sources);
  }

  /** ds-identify over the deps' sources, then the crawl for STAGE. */
  private async locate(rc: RunConfig, stage: 'local' | 'network', localAlreadyTried: boolean) {
    const log = this.opts.logger.for('sources.py');
    const network = stage === 'local' ? this.deps.ephemeralNetwork?.(log) : undefined;
    const input = {
      stage,
      platform: this.platform,
      log,
      config: rc.config,
      kernelCmdline: rc.kernelCmdline,
      finder: this.deps.finder,
      localAlreadyTried,
      events: this.eventLog(rc),
      ...(network ? { network } : {}),
    };
    return locateDatasource(input, this.deps.env ?? process.env, this.deps.sources);
  }

  /** The stage's network step, for INSTANCE or (without one) the fallback config; a failure is a recoverable error. */
  private applyNetwork(
    rc: RunConfig,
    instance: InstanceData | undefined,
    stage: 'local' | 'network',
  ): Promise<StageNetworkOutcome> {
    return applyStageNetwork({
      platform: this.platform,
      log: this.log,
      renderLog: this.opts.logger.for('stages.py'),
      rc,
      distro: () => this.distroInfo(),
      deps: this.deps,
      instance,
      stage,
    });
  }

  /**
   * A known instance's boot: whether the source's update events (or the user's `updates`, from the cloud-config a
   * previous boot wrote, as cloud-init's config has it at this point) render its network config again.
   */
  private async networkUpdateEvent(rc: RunConfig, found: FoundSource): Promise<boolean> {
    const cfg = await mergedFromDisk(this.platform, rc.paths, rc.config, found);
    const appliedThisBoot = await this.platform.exists(posix.join(rc.paths.runDir, 'sem', 'apply_network_config.once'));
    const event = bootNetworkEvent({ source: found.source.name, cfg, appliedThisBoot, log: this.log });
    if (event) this.log.debug(`Update datasource metadata and network config due to events: ${event}`);
    return event !== undefined;
  }

  /** What init-local's early module work is given. */
  private async initLocalModules(rc: RunConfig): Promise<InitLocalModulesInput> {
    return {
      platform: this.platform,
      logger: this.opts.logger,
      rc,
      distro: await this.distroInfo(),
      modules: this.deps.modules,
      output: (t) => this.output(t),
    };
  }

  private async writeInstanceDataFiles(rc: RunConfig, found: FoundSource, merged: ConfigMap): Promise<void> {
    const distro = await this.distroInfo();
    await writeInstanceData(this.platform, rc.paths, {
      instance: found.data,
      distro,
      mergedConfig: merged,
      systemConfig: rc.config,
    });
  }

  /**
   * cloud-init's setup_datasource: the found source's setup, if it has one; what it returns replaces the found data.
   * A failure is a WARNING (a recoverable error of the stage) and leaves FOUND as it was.
   */
  private async setupSource(rc: RunConfig, found: FoundSource, isNew: boolean): Promise<FoundSource> {
    if (!found.source.setup) return found;
    const log = this.opts.logger.for(`DataSource${found.source.name}.py`);
    try {
      const settings = sourceSettings(rc.config, found.source.name);
      const data = await found.source.setup({ platform: this.platform, log, settings }, found.data, isNew);
      if (data) return { ...found, data };
    } catch (err) {
      this.log.warn(`setting up datasource ${found.source.name} failed: ${describeError(err)}`);
    }
    return found;
  }

  /** cloud-init's DataSource.activate, once the data is consumed: the found source's, if it has one. */
  private async activateSource(rc: RunConfig, found: FoundSource, isNew: boolean): Promise<void> {
    const activate = found.source.activate;
    if (!activate) return;
    const p = this.platform;
    const iid = found.data.instanceId;
    const rerunModule = (name: string) => p.remove(semaphorePath(rc.paths, iid, name, 'once-per-instance') as string);
    const context = {
      platform: p,
      log: this.opts.logger.for('activate'),
      distroName: (await this.distroInfo()).name,
      isNewInstance: isNew,
      rerunModule,
      systemConfig: rc.config,
    };
    await activate.call(found.source, context, found.data);
  }

  /** The instance and merged cloud-config the module stages run with: this process's, else read back from disk. */
  private async restoreForModules(rc: RunConfig): Promise<{ found: FoundSource; merged: ConfigMap }> {
    if (!this.found) {
      const cached = await this.restoreCached(rc);
      if (!cached) {
        const link = rc.paths.instanceLink;
        throw new StageFailure(`no datasource found: ${link} has no cached instance; run 'cloud-init init' first`);
      }
      this.found = cached;
      this.opts.logger.redactor.add(cached.data.adminPassword);
    }
    this.merged ??= await mergedFromDisk(this.platform, rc.paths, rc.config, this.found);
    return { found: this.found, merged: this.merged };
  }

  /**
   * What a module run is given: the modules with the merged config, the found instance, str(datasource) (the final
   * message names the source as status.json does) and its publish_host_keys for the ssh module, with its settings
   * from MERGED.
   */
  private async moduleRunInput(
    rc: RunConfig,
    found: FoundSource,
    merged: ConfigMap,
    stage: ModuleStage,
    eventPrefix: string,
  ): Promise<ModuleRunInput> {
    const publish = found.source.publishHostKeys;
    const hostKeyPublisher = (): Pick<ModuleRunInput, 'publishHostKeys'> => {
      if (!publish) return {};
      const log = this.opts.logger.for(`DataSource${found.source.name}.py`);
      const settings = sourceSettings(merged, found.source.name);
      return { publishHostKeys: (keys) => publish.call(found.source, { log, settings }, found.data, keys) };
    };
    return {
      platform: this.platform,
      log: this.opts.logger.for('modules.py'),
      stage,
      eventPrefix,
      modules: this.deps.modules,
      config: merged,
      distro: await this.distroInfo(),
      instance: found.data,
      datasource: describeSource(found.source.name, found.data, found.stage),
      paths: rc.paths,
      events: this.eventLog(rc),
      now: this.now,
      output: (t) => this.output(t),
      ...hostKeyPublisher(),
    };
  }

  private async runModuleSection(
    rc: RunConfig,
    record: StageRecord,
    found: FoundSource,
    merged: ConfigMap,
    stage: ModuleStage,
  ): Promise<void> {
    const eventPrefix = stage === 'init' ? 'init-network' : `modules-${stage}`;
    const outcome = await runModules(await this.moduleRunInput(rc, found, merged, stage, eventPrefix));
    record.errors.push(...outcome.errors);
    record.modules = outcome.modules;
    this.releaseWorkAhead();
  }

  /** Drops work the modules started ahead and did not use. */
  private releaseWorkAhead(): void {
    releaseModules(this.deps.modules, this.platform, this.opts.logger.for('modules.py'));
  }

  /** `cloud-init single --name M [--frequency F]`: one module, outside any stage record. */
  async runSingle(
    name: string,
    frequency: Frequency | undefined,
  ): Promise<{ ran: boolean; errors: string[]; reason?: string }> {
    const rc = await this.config();
    const canonical = canonicalModuleName(name);
    const mod: Module | undefined = this.deps.modules.find((m) => m.name === canonical);
    if (!mod) {
      const known = this.deps.modules.map((m) => m.name).join(', ') || 'none';
      throw new KilnError(`unknown module '${name}'; known modules: ${known}`);
    }
    const { found, merged } = await this.restoreForModules(rc);
    const input = await this.moduleRunInput(rc, found, merged, mod.stage, 'single');
    const entry = { name: canonical, ...(frequency ? { frequency } : {}), args: [] };
    const outcome = await runModules({ ...input, entries: [entry] });
    await input.events.flush();
    const m = outcome.modules[0];
    return { ran: m?.outcome === 'ran', errors: outcome.errors, ...(m?.reason ? { reason: m.reason } : {}) };
  }
}
