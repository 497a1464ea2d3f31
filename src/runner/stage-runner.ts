// The boot stages (init-local, init, modules-config, modules-final, or all four in one process) and `single`.
import { posix } from 'node:path';
import type { ConfigMap } from '../config/parse-yaml-config';
import { mergeSystemConfig } from '../config/merge-system-config';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Frequency, Module, ModuleContext, ModuleStage } from '../modules/module';
import type { Platform } from '../platform/platform';
import type { HostKey, InstanceData } from '../sources/datasource';
import { sourceSettings } from '../sources/settings';
import { bootNetworkEvent } from '../sources/update-events';
import { describeError, KilnError } from '../util/errors';
import type { Log, Logger } from '../util/log';
import { detectDistro } from '../platform/linux/distro/detect-distro';
import { cfgBool } from '../modules/support/config-values';
import { EventLog, type EventSink } from './event-log';
import { describeSource } from './describe-source';
import { initNeedsNetwork } from './network-wait';
import { writeNetworkConfigJson } from './network-config-json';
import { addSystemInfoToInstanceData, writeCombinedCloudConfig } from './combined-cloud-config';
import { locateDatasource } from './locate-datasource';
import { restoreInstance } from './instance-cache';
import { buildInstanceData, writeInstanceData } from './instance-data';
import { initCloudDirs, instancify, NO_PREVIOUS_INSTANCE_ID, previousInstanceId } from './instance-files';
import { emptyProcessedPart, formatProcessedMessage, type ProcessedPart } from '../userdata/processed-message';
import { validateUserCloudConfig } from './validate-user-cloud-config';
import { formatCloudConfigFile, mergeCloudConfig, parseCloudConfigFile, vendorDataEnabled } from './merge-cloud-config';
import { attemptCmdlineUrl } from './cmdline-url';
import { canonicalModuleName, readModuleList } from './module-list';
import { loadRunConfig, readKernelCmdline, type RunConfig } from './run-config';
import { makeModuleContext, prepareModules, releaseModules, runModules } from './run-modules';
import { markRun, semaphorePath } from './semaphores';
import type { FoundSource, RunnerDeps } from './runner-deps';
import type { StageSync } from './stage-sync';
import { emptyStatus, mergeRecoverable, readStatusFile, writeResultFile, writeStatusFile, type StageName, type StageRecord, type StatusFile } from './status-file';

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

const EVENT_NAME: Record<StageName, string> = { 'init-local': 'init-local', init: 'init-network', 'modules-config': 'modules-config', 'modules-final': 'modules-final' };
const MODULE_STAGE: Record<StageName, ModuleStage | undefined> = { 'init-local': undefined, init: 'init', 'modules-config': 'config', 'modules-final': 'final' };

/** One process's view of the boot: config, distro and the instance are read once and shared by its stages. */
export class StageRunner {
  private readonly platform: Platform;
  private readonly log: Log;
  private readonly deps: RunnerDeps;
  private readonly now: () => Date;
  private runConfig: RunConfig | undefined;
  private distro: DistroInfo | undefined;
  private found: FoundSource | undefined;
  /** Set by runAllStages: work started in one stage is still there for the next. */
  private allInOneProcess = false;
  /** --all-stages synchronised with the stage units: the distro's networking ran between init-local and init. */
  private stageUnitsBetween = false;
  private merged: ConfigMap | undefined;
  /** combined-cloud-config.json as the init stage wrote it (its system_info and features go into the sensitive instance data). */
  private combined: ConfigMap | undefined;
  private networkApplied = false;
  /** Whether init-local wrote network config this boot (in one process: config no networking service has read yet). */
  private localNetworkWritten = false;
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
      const cmdline = this.deps.kernelCmdline ? await this.deps.kernelCmdline() : await readKernelCmdline(this.platform);
      const rc = await loadRunConfig(this.platform, this.deps.embeddedConfig, cmdline);
      if (this.opts.extraConfig) rc.config = mergeSystemConfig(rc.config, this.opts.extraConfig);
      this.runConfig = rc;
      this.log.debug(`config layers: ${rc.sources.join(', ')}`);
    }
    return this.runConfig;
  }

  /**
   * cloud-init's attempt_cmdline_url, run before each init stage reads its config: a `cloud-config-url=` on the
   * kernel command line becomes cloud.cfg.d/91_kernel_cmdline_url.cfg, and the config is read again when it was written.
   */
  private async kernelCmdlineUrl(rc: RunConfig, network: boolean): Promise<RunConfig> {
    const env = this.deps.env ?? process.env;
    const out = await attemptCmdlineUrl({ platform: this.platform, log: this.log, cmdline: rc.kernelCmdline, network, env });
    if (out.level === 'WARNING') this.log.warn(out.message);
    else if (out.level === 'INFO') this.log.info(out.message);
    else this.log.debug(out.message);
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
   * cloud-init's registry; none where the platform tells the host nothing (a dry run: the pool file is the host's telemetry).
   */
  private reportingSink(rc: RunConfig): Promise<EventSink | undefined> {
    this.reportingHandlers ??= this.deps.reportingHandlers?.(this.platform, rc.config, this.opts.logger.for('handlers.py')) ?? Promise.resolve(undefined);
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
    this.allInOneProcess = true;
    this.stageUnitsBetween = sync !== undefined;
    const out: StageOutcome[] = [];
    try {
      for (const stage of ['init-local', 'init', 'modules-config', 'modules-final'] as StageName[]) {
        if (!sync) {
          const o = await this.runStage(stage);
          out.push(o);
          if (o.disabled) break;
          continue;
        }
        await sync.waitForStart(stage);
        try {
          const o = await this.runStage(stage);
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

  async runStage(stage: StageName): Promise<StageOutcome> {
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
    const record: StageRecord = { start: this.now().getTime() / 1000, finished: null, errors: [], recoverable_errors: {} };
    status.v1[stage] = record;
    status.v1.stage = stage;
    await writeStatusFile(p, rc.paths, status);
    const events = this.eventLog(rc);
    events.start(EVENT_NAME[stage], `running '${stage === 'init' ? 'init' : stage.replace('-', ' ')}'`);
    // cloud-init reads the reporting config only inside the stage, after its start event went to the log alone:
    // KVP sees the stage's finish and everything between, never its start.
    events.attach(await this.reportingSink(rc));
    const banner = `Cloud-init v. ${this.deps.version} (kiln) running '${stage === 'init' ? 'init' : stage.replace('modules-', 'modules:')}' at ${this.now().toUTCString().replace('GMT', '+0000')}. Up ${(await this.uptime()).toFixed(2)} seconds.\n`;
    this.opts.print?.(banner);
    await this.output(banner);
    // Every WARNING and ERROR logged while the stage runs is one of its recoverable errors, as in cloud-init.
    const capture = this.opts.logger.capture();
    let failed = false;
    try {
      if (stage === 'init-local') await this.localBody(rc);
      else if (stage === 'init') await this.networkBody(rc, record, status);
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
    if (this.found) status.v1.datasource = describeSource(this.found.source.name, this.found.data, this.found.stage);
    await writeStatusFile(p, rc.paths, status);
    if (stage === 'modules-final') await writeResultFile(p, rc.paths, status);
    const degraded = record.errors.length > 0 || Object.values(record.recoverable_errors).some((l) => l.length > 0);
    events.finish(EVENT_NAME[stage], failed ? 'FAIL' : degraded ? 'WARN' : 'SUCCESS', `${stage} ${failed ? 'failed' : 'finished'}`);
    await events.flush();
    // The next stage is another process for cloud-init, with its handlers registered after its own start event.
    events.attach(undefined);
    return { stage, disabled: false, errors: record.errors, failed };
  }

  /** Logs a problem that did not stop the stage; the stage's log capture makes it a recoverable error. */
  private recover(level: 'WARNING' | 'ERROR', message: string): void {
    if (level === 'WARNING') this.log.warn(message);
    else this.log.error(message);
  }

  private async localBody(rc: RunConfig): Promise<void> {
    const p = this.platform;
    const marker = posix.join(rc.paths.instanceLink, 'manual-clean');
    const trust = rc.config.manual_cache_clean === true || (await p.exists(marker));
    if (trust) {
      this.log.debug(`manual cache clean ${rc.config.manual_cache_clean === true ? 'set in config' : `marker found: ${marker}`}; trusting the cached instance`);
      const cached = await restoreInstance(p, rc.paths.instanceLink);
      const source = cached && this.deps.sources.find((s) => s.name === cached.source);
      if (cached && source) this.found = { source, data: cached.data, ...(cached.stage ? { stage: cached.stage } : {}) };
    } else {
      await p.remove(posix.join(rc.paths.instanceLink, 'boot-finished'));
      await p.remove(rc.paths.instanceLink);
    }
    if (!this.found) {
      // A root no instance has booted in yet (an image's first boot): whatever source is found, its instance is
      // new, so the init stage's slow work may start now, from the system config, while the sources are searched.
      if (this.allInOneProcess && (await previousInstanceId(p, rc.paths)) === NO_PREVIOUS_INSTANCE_ID) await this.prepareInitModulesEarly(rc, undefined);
      const outcome = await this.locate(rc, 'local', false);
      // A source that was detected but failed is already logged at WARNING (find-source), so it is a recoverable error.
      this.found = outcome.found && { ...outcome.found, stage: 'local' };
    }
    if (!this.found) {
      this.log.debug('No local datasource found');
      await this.applyNetwork(undefined, 'local');
      return;
    }
    this.opts.logger.redactor.add(this.found.data.adminPassword);
    const { isNew } = await instancify(p, rc.paths, this.found.source.name, this.found.data, this.found.stage);
    if (rc.config.manual_cache_clean === true) await p.writeFile(marker, '');
    if (isNew && this.allInOneProcess) await this.prepareInitModulesEarly(rc, this.found.data);
    if (isNew || (await this.networkUpdateEvent(rc))) await this.applyNetwork(this.found.data, 'local');
    await this.writeInstanceData(rc, rc.config);
    await this.setHostnameEarly(rc);
    await this.markNetworkUnneeded(rc, this.found.data);
  }

  /**
   * 25.1 (MANUAL_NETWORK_WAIT) judges in init-local whether the init stage needs the network and, when it does not,
   * leaves /run/cloud-init/.skip-network so that the init stage waits for none.
   */
  private async markNetworkUnneeded(rc: RunConfig, data: InstanceData): Promise<void> {
    const need = initNeedsNetwork(data.userData, data.vendorData, data.vendorData2);
    if (need.wait) {
      this.log.debug(`Network connectivity determined necessary for cloud-init's network stage. Reason: ${need.reason}`);
      return;
    }
    this.log.debug(`Network connectivity determined unnecessary for cloud-init's network stage. Reason: ${need.reason}`);
    await this.platform.writeFile(posix.join(rc.paths.runDir, '.skip-network'), '', { mode: 0o644 });
  }

  /**
   * cloud-init already sets the hostname from meta-data in init-local, before user data is read (so DHCP and
   * logs see it), with the system and datasource config and the instance's cloud-config files a previous boot
   * wrote (its config merger reads them: on a later boot the user's `hostname:` wins here too, and the per-
   * instance set_hostname does not run again to put it back); a failure is logged and left to the init
   * stage's set_hostname, which runs again with the whole config.
   */
  private async setHostnameEarly(rc: RunConfig): Promise<void> {
    const mod = this.deps.modules.find((m) => m.name === 'set_hostname');
    const data = this.found?.data;
    if (!mod || !data || !this.found) return;
    const { ctx } = await this.initLocalModuleContext(rc, data, 'main.py');
    const cfg = await this.mergedFromDisk(rc, this.found);
    if (!data.localHostname && cfg.hostname === undefined && cfg.fqdn === undefined) return;
    try {
      await mod.run(ctx, cfg);
    } catch (err) {
      this.log.debug(`Failed setting hostname in init-local stage. Will retry in init-network stage. Error: ${describeError(err)}.`);
    }
  }

  /**
   * --all-stages, first boot of an instance: the init stage's modules may start their slow work (host keys) as
   * soon as the instance is known to be new, from the config known so far (system, then datasource, not yet
   * user data). The init stage calls prepare() again with the final config; work already under way is reused,
   * and work the final config does not need is dropped unused.
   */
  private async prepareInitModulesEarly(rc: RunConfig, data: InstanceData | undefined): Promise<void> {
    const { cfg, ctx } = await this.initLocalModuleContext(rc, data, 'modules.py');
    const modules = readModuleList(cfg, 'init').flatMap((entry) => this.deps.modules.filter((m) => m.name === entry.name));
    prepareModules(modules, ctx, cfg, ctx.log);
  }

  /** What a module sees in init-local: the system and datasource config (user data is not read yet). */
  private async initLocalModuleContext(rc: RunConfig, data: InstanceData | undefined, logName: string): Promise<{ cfg: ConfigMap; ctx: ModuleContext }> {
    const cfg = mergeSystemConfig(rc.config, (data?.sourceConfig ?? {}) as ConfigMap);
    const input = { platform: this.platform, log: this.opts.logger.for(logName), distro: await this.distroInfo(), instance: data, paths: rc.paths, output: (t: string) => this.output(t) };
    return { cfg, ctx: makeModuleContext(input, rc.paths.instanceDir(data?.instanceId ?? 'iid-datasource-none'), () => undefined) };
  }

  /** ds-identify over the deps' sources, then the crawl for STAGE. */
  private async locate(rc: RunConfig, stage: 'local' | 'network', localAlreadyTried: boolean) {
    const log = this.opts.logger.for('sources.py');
    const network = stage === 'local' ? this.deps.ephemeralNetwork?.(log) : undefined;
    const input = { stage, platform: this.platform, log, config: rc.config, kernelCmdline: rc.kernelCmdline, finder: this.deps.finder, localAlreadyTried, events: this.eventLog(rc), ...(network ? { network } : {}) };
    return locateDatasource(input, this.deps.env ?? process.env, this.deps.sources);
  }

  private async applyNetwork(instance: InstanceData | undefined, stage: 'local' | 'network'): Promise<void> {
    const rc = await this.config();
    const net = rc.config.network as Record<string, unknown> | undefined;
    if (net && net.config === 'disabled') {
      this.log.info('network config is disabled by network: {config: disabled}');
      return;
    }
    try {
      // cloud-init's _should_bring_up_interfaces: the network stage brings up what it renders; init-local leaves that
      // to the distro's networking, which starts after it and reads the files.
      const bringUp = stage === 'network' && !cfgBool(rc.config, 'disable_network_activation', false);
      const out = await this.deps.selectAndRenderNetwork({ platform: this.platform, log: this.opts.logger.for('stages.py'), instance, config: rc.config, distro: await this.distroInfo(), stage, kernelCmdline: rc.kernelCmdline, bringUp });
      if (instance) this.networkApplied = true;
      if (instance && out.config) await writeNetworkConfigJson(this.platform, rc.paths, out.config);
      if (stage === 'local' && out.written.length) this.localNetworkWritten = true;
      if (out.written.length) {
        this.log.info(`network config written: ${out.written.join(', ')}`);
        // cloud-init takes this per-boot semaphore (in the run dir) when it applies a network config.
        await markRun(this.platform, posix.join(rc.paths.runDir, 'sem', 'apply_network_config.once'), new Date());
      }
    } catch (err) {
      this.recover('ERROR', `applying network config failed: ${describeError(err)}`);
    }
  }

  private async networkBody(rc: RunConfig, record: StageRecord, status: StatusFile): Promise<void> {
    const p = this.platform;
    if (this.deps.networkInfo) {
      // cloud-init writes the device and route tables to the console before it looks for the instance.
      const info = `${await this.deps.networkInfo(p, this.opts.logger.for('netinfo.py'))}\n`;
      this.opts.print?.(info);
      await this.output(info);
    }
    if (!this.found) {
      const cached = await restoreInstance(p, rc.paths.instanceLink);
      const source = cached && this.deps.sources.find((s) => s.name === cached.source);
      if (cached && source) this.found = { source, data: cached.data, ...(cached.stage ? { stage: cached.stage } : {}) };
    }
    if (this.allInOneProcess && !this.stageUnitsBetween && this.localNetworkWritten) {
      // Under systemd, the stage units keep the distro's networking between init-local and this stage, and it brings
      // up what init-local wrote. Run back to back without them, nothing did: this stage brings it up first, so that
      // network sources and the modules have a network.
      this.localNetworkWritten = false;
      await this.applyNetwork(this.found?.data, 'network');
    }
    if (!this.found) {
      // Without a local stage this boot, local sources are still worth a look before the network ones.
      const outcome = await this.locate(rc, 'network', status.v1['init-local'].start !== null);
      this.found = outcome.found && { ...outcome.found, stage: 'network' };
      if (!this.found) {
        // As cloud-init: without a source the network stage still applies (and brings up) the fallback config.
        await this.applyNetwork(undefined, 'network');
        throw new StageFailure(`No instance datasource found (tried ${outcome.tried.join(', ') || 'none'}); check datasource_list in /etc/cloud/cloud.cfg(.d) and the seed`);
      }
    }
    this.opts.logger.redactor.add(this.found.data.adminPassword);
    const { isNew } = await instancify(p, rc.paths, this.found.source.name, this.found.data, this.found.stage);
    if (isNew ? !this.networkApplied : await this.networkUpdateEvent(rc)) await this.applyNetwork(this.found.data, 'network');
    await this.setupSource(rc, isNew);
    this.merged = await this.consumeData(rc, record, this.found);
    const cloudConfigText = await p.readTextIfExists(posix.join(rc.paths.instanceDir(this.found.data.instanceId), 'cloud-config.txt'));
    await validateUserCloudConfig(cloudConfigText ?? '', this.opts.logger.for('schema.py'));
    await this.writeInstanceData(rc, this.merged);
    if (this.combined) await addSystemInfoToInstanceData(p, rc.paths, this.combined, this.log);
    const activate = this.found.source.activate;
    if (activate) {
      const iid = this.found.data.instanceId;
      const rerunModule = (name: string) => p.remove(semaphorePath(rc.paths, iid, name, 'once-per-instance') as string);
      await activate.call(this.found.source, { platform: p, log: this.opts.logger.for('activate'), distroName: (await this.distroInfo()).name, isNewInstance: isNew, rerunModule, systemConfig: rc.config }, this.found.data);
    }
    await this.runModuleSection(rc, record, 'init', this.merged);
  }

  /** Processes user data, vendor data and vendor_data2; writes what each contributes and the merged result. */
  private async consumeData(rc: RunConfig, record: StageRecord, found: FoundSource): Promise<ConfigMap> {
    const p = this.platform;
    const dir = rc.paths.instanceDir(found.data.instanceId);
    const instanceData = buildInstanceData({ instance: found.data, distro: await this.distroInfo(), mergedConfig: rc.config, systemConfig: rc.config });
    const processed: Partial<Record<'user' | 'vendor' | 'vendor2', ProcessedPart[]>> = {};
    const cloudConfigParts: Partial<Record<'user' | 'vendor' | 'vendor2', string[]>> = {};
    const process = async (kind: 'user' | 'vendor' | 'vendor2', raw: Uint8Array | undefined, onlyProcess = false): Promise<ConfigMap | undefined> => {
      if (!raw || raw.length === 0) return undefined;
      try {
        const out = await this.deps.processUserData({ kind, onlyProcess, raw, instance: found.data, platform: p, log: this.opts.logger.for('user_data.py'), paths: rc.paths, instanceDir: dir, config: rc.config, instanceData });
        for (const w of out.warnings ?? []) this.recover('WARNING', w);
        if (out.processed) processed[kind] = out.processed;
        if (out.cloudConfigParts) cloudConfigParts[kind] = out.cloudConfigParts;
        return out.cloudConfig;
      } catch (err) {
        const why = `processing ${kind === 'user' ? 'user data' : kind === 'vendor' ? 'vendor data' : 'vendor_data2'} failed: ${describeError(err)}`;
        this.log.error(why);
        record.errors.push(why);
        return undefined;
      }
    };
    const user = await process('user', found.data.userData);
    let vendor: ConfigMap | undefined;
    let vendor2: ConfigMap | undefined;
    if (vendorDataEnabled(rc.config, user)) {
      vendor = await process('vendor', found.data.vendorData);
      vendor2 = await process('vendor2', found.data.vendorData2);
    } else {
      // cloud-init still processes and stores vendor data it will not use (vendor-data.txt.i).
      await process('vendor', found.data.vendorData, true);
      await process('vendor2', found.data.vendorData2, true);
      if (found.data.vendorData?.length) this.log.info('vendor data is disabled by vendor_data: {enabled: false}; not used');
    }
    // cloud-init stores every blob processed (even empty, even vendor data it will not use) as <name>.txt.i.
    const blobs = [['user', 'user-data', found.data.userData], ['vendor', 'vendor-data', found.data.vendorData], ['vendor2', 'vendor-data2', found.data.vendorData2]] as const;
    for (const [kind, name, raw] of blobs) {
      const parts = raw && raw.length > 0 ? processed[kind] : undefined;
      await p.writeFile(posix.join(dir, `${name}.txt.i`), formatProcessedMessage(parts ?? [emptyProcessedPart()]), { mode: 0o600 });
    }
    // cloud-config.txt always; the vendor ones only for vendor data that is given and enabled (as cloud-init).
    await p.writeFile(posix.join(dir, 'cloud-config.txt'), formatCloudConfigFile(user, cloudConfigParts.user ?? []), { mode: 0o600 });
    const vendorOn = vendorDataEnabled(rc.config, user);
    for (const [name, kind, cfg, raw] of [['vendor-cloud-config.txt', 'vendor', vendor, found.data.vendorData], ['vendor2-cloud-config.txt', 'vendor2', vendor2, found.data.vendorData2]] as const) {
      if (vendorOn && raw && raw.length > 0) await p.writeFile(posix.join(dir, name), formatCloudConfigFile(cfg, cloudConfigParts[kind] ?? []), { mode: 0o600 });
      else await p.remove(posix.join(dir, name));
    }
    // cloud-init takes the consume_data semaphore when it first consumes an instance's data.
    await markRun(p, posix.join(rc.paths.instanceSemDir(found.data.instanceId), 'consume_data'), this.now());
    const merged = mergeCloudConfig({ system: rc.config, datasource: found.data.sourceConfig, vendor, vendor2, user });
    this.combined = await writeCombinedCloudConfig(p, rc.paths, merged);
    return merged;
  }

  /**
   * A known instance's boot: whether the source's update events (or the user's `updates`, from the cloud-config a
   * previous boot wrote, as cloud-init's config has it at this point) render its network config again.
   */
  private async networkUpdateEvent(rc: RunConfig): Promise<boolean> {
    if (!this.found) return false;
    const cfg = await this.mergedFromDisk(rc, this.found);
    const appliedThisBoot = await this.platform.exists(posix.join(rc.paths.runDir, 'sem', 'apply_network_config.once'));
    const event = bootNetworkEvent({ source: this.found.source.name, cfg, appliedThisBoot, log: this.log });
    if (event) this.log.debug(`Update datasource metadata and network config due to events: ${event}`);
    return event !== undefined;
  }

  /** The merged cloud-config of a later stage in another process: read back from the instance folder. */
  private async mergedFromDisk(rc: RunConfig, found: FoundSource): Promise<ConfigMap> {
    const dir = rc.paths.instanceDir(found.data.instanceId);
    const read = async (name: string): Promise<ConfigMap | undefined> => {
      const file = posix.join(dir, name);
      const text = await this.platform.readTextIfExists(file);
      return text === undefined ? undefined : parseCloudConfigFile(text, file);
    };
    return mergeCloudConfig({ system: rc.config, datasource: found.data.sourceConfig, vendor: await read('vendor-cloud-config.txt'), vendor2: await read('vendor2-cloud-config.txt'), user: await read('cloud-config.txt') });
  }

  private async writeInstanceData(rc: RunConfig, merged: ConfigMap): Promise<void> {
    if (!this.found) return;
    await writeInstanceData(this.platform, rc.paths, { instance: this.found.data, distro: await this.distroInfo(), mergedConfig: merged, systemConfig: rc.config });
  }

  private async restoreForModules(rc: RunConfig): Promise<{ found: FoundSource; merged: ConfigMap }> {
    if (!this.found) {
      const cached = await restoreInstance(this.platform, rc.paths.instanceLink);
      const source = cached && this.deps.sources.find((s) => s.name === cached.source);
      if (!cached || !source) throw new StageFailure(`no datasource found: ${rc.paths.instanceLink} has no cached instance; run 'cloud-init init' first`);
      this.found = { source, data: cached.data, ...(cached.stage ? { stage: cached.stage } : {}) };
      this.opts.logger.redactor.add(cached.data.adminPassword);
    }
    this.merged ??= await this.mergedFromDisk(rc, this.found);
    return { found: this.found, merged: this.merged };
  }

  private async modulesBody(rc: RunConfig, record: StageRecord, stage: StageName): Promise<void> {
    const { merged } = await this.restoreForModules(rc);
    await this.runModuleSection(rc, record, MODULE_STAGE[stage] as ModuleStage, merged);
    if (stage === 'modules-final') {
      const up = (await this.uptime()).toFixed(2);
      await this.platform.writeFile(posix.join(rc.paths.instanceLink, 'boot-finished'), `${up} - ${this.now().toUTCString().replace('GMT', '+0000')} - v. ${this.deps.version}\n`);
    }
  }

  private async runModuleSection(rc: RunConfig, record: StageRecord, stage: ModuleStage, merged: ConfigMap): Promise<void> {
    const outcome = await runModules({
      platform: this.platform,
      log: this.opts.logger.for('modules.py'),
      stage,
      eventPrefix: stage === 'init' ? 'init-network' : `modules-${stage}`,
      modules: this.deps.modules,
      config: merged,
      distro: await this.distroInfo(),
      instance: this.found?.data,
      ...this.datasourceDescription(),
      paths: rc.paths,
      events: this.eventLog(rc),
      now: this.now,
      output: (t) => this.output(t),
      ...this.hostKeyPublisher(merged),
    });
    record.errors.push(...outcome.errors);
    record.modules = outcome.modules;
    this.releaseWorkAhead();
  }

  /** cloud-init's setup_datasource: the found source's setup, if it has one; what it returns replaces the found data. */
  private async setupSource(rc: RunConfig, isNew: boolean): Promise<void> {
    const found = this.found;
    if (!found?.source.setup) return;
    const log = this.opts.logger.for(`DataSource${found.source.name}.py`);
    try {
      const data = await found.source.setup({ platform: this.platform, log, settings: sourceSettings(rc.config, found.source.name) }, found.data, isNew);
      if (data) this.found = { ...found, data };
    } catch (err) {
      this.recover('WARNING', `setting up datasource ${found.source.name} failed: ${describeError(err)}`);
    }
  }

  /** The found source's publish_host_keys for the ssh module, with its settings from CONFIG; nothing when it has none. */
  /** str(datasource) for the modules (the final message names the source as status.json does), when one was found. */
  private datasourceDescription(): { datasource?: string } {
    return this.found ? { datasource: describeSource(this.found.source.name, this.found.data, this.found.stage) } : {};
  }

  private hostKeyPublisher(config: ConfigMap): { publishHostKeys?: (keys: HostKey[]) => Promise<void> } {
    const found = this.found;
    const publish = found?.source.publishHostKeys;
    if (!found || !publish) return {};
    const log = this.opts.logger.for(`DataSource${found.source.name}.py`);
    return { publishHostKeys: (keys) => publish.call(found.source, { log, settings: sourceSettings(config, found.source.name) }, found.data, keys) };
  }

  /** Drops work the modules started ahead and did not use. */
  private releaseWorkAhead(): void {
    releaseModules(this.deps.modules, this.platform, this.opts.logger.for('modules.py'));
  }

  /** `cloud-init single --name M [--frequency F]`: one module, outside any stage record. */
  async runSingle(name: string, frequency: Frequency | undefined): Promise<{ ran: boolean; errors: string[]; reason?: string }> {
    const rc = await this.config();
    const canonical = canonicalModuleName(name);
    const mod: Module | undefined = this.deps.modules.find((m) => m.name === canonical);
    if (!mod) throw new KilnError(`unknown module '${name}'; known modules: ${this.deps.modules.map((m) => m.name).join(', ') || 'none'}`);
    const { merged } = await this.restoreForModules(rc);
    const events = this.eventLog(rc);
    const outcome = await runModules({
      platform: this.platform,
      log: this.opts.logger.for('modules.py'),
      stage: mod.stage,
      eventPrefix: 'single',
      modules: this.deps.modules,
      config: merged,
      distro: await this.distroInfo(),
      instance: this.found?.data,
      ...this.datasourceDescription(),
      paths: rc.paths,
      events,
      now: this.now,
      output: (t) => this.output(t),
      entries: [{ name: canonical, ...(frequency ? { frequency } : {}), args: [] }],
      ...this.hostKeyPublisher(merged),
    });
    await events.flush();
    const m = outcome.modules[0];
    return { ran: m?.outcome === 'ran', errors: outcome.errors, ...(m?.reason ? { reason: m.reason } : {}) };
  }
}
