// The cloudbase-init flow: wait for sysprep, PRE_NETWORKING and PRE_METADATA_DISCOVERY plugins, metadata discovery,
// MAIN plugins, reboot.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import type { Platform } from '../platform/platform';
import type { WindowsSystem } from '../platform/windows/windows-system';
import type { CloudbaseMetadataService } from '../sources/cloudbase-metadata-service';
import type { DetectContext, InstanceData } from '../sources/datasource';
import type { SourceSet } from '../sources/source-set';
import { describeError } from '../util/errors';
import type { Log } from '../util/log';
import { ensureMetadataIpRoute } from './metadata-ip-route';
import { findMetadataService, metadataRouteUrl } from './metadata-services';
import { metadataServiceFor } from './metadata-poster';
import type { MetadataService, Plugin, PluginContext, PluginResult, PluginStage } from './plugin';
import { PLUGIN_EXECUTE_ON_NEXT_BOOT, PLUGIN_EXECUTION_DONE, PluginState } from './plugin-state';
import { MISSING_PLUGINS, PLUGINS, findPlugin } from './registry';

export const SYSPREP_KEY = 'SYSTEM\\Setup\\Status\\SysprepStatus';
const GENERALIZATION_DONE = 7;
const BIOS_KEY = 'HARDWARE\\DESCRIPTION\\System\\BIOS';

/** The cloudbase-init face's runner: the sources it searches (shared with the cloud-init runner), and the rest. */
export interface CloudbaseRunnerDeps extends SourceSet {
  platform: Platform;
  windows: WindowsSystem;
  log: Log;
  conf: CloudbaseConf;
  randomPassword(length: number): string;
  /** The environment the service runs in (SystemRoot, proxies). */
  env: NodeJS.ProcessEnv;
  /** Scrubs a secret from every log line and error from now on (the logger's redactor). */
  secret?(value: string): void;
  sleep(ms: number): Promise<void>;
  /** The plugins to pick from; default the registry (tests add their own). */
  plugins?: Plugin[];
  /** The metadata services metadata_services picks from; default the sources' registry (CLOUDBASE_SERVICES). */
  services?: readonly CloudbaseMetadataService[];
  /** Whether a metadata URL answers (cloudbase-init's check_url); default three GETs. Tests answer it. */
  metadataUrlAnswers?: (url: string) => Promise<boolean>;
  /** How long to wait for sysprep's generalization to finish; default 15 minutes. */
  sysprepTimeoutMs?: number;
}

export type PluginOutcome = 'done' | 'next-boot' | 'already-done' | 'failed' | 'stopped';

export interface PluginReport {
  name: string;
  stage: PluginStage;
  outcome: PluginOutcome;
  reboot: boolean;
  seconds: number;
  error?: string;
}

export interface RunReport {
  plugins: PluginReport[];
  /** The service that gave the metadata: cloudbase-init's class path and kiln's datasource. */
  service?: { classPath: string; datasource: string };
  instanceId?: string;
  /** Errors outside plugins: unknown plugins or services, a metadata service that failed, no metadata found. */
  errors: string[];
  /** Configured plugins and metadata services kiln does not implement yet: skipped, not fatal. */
  warnings: string[];
  /** A reboot was asked for and allowed; the caller has initiated it. */
  rebooting: boolean;
  /** A reboot was asked for but allow_reboot is false. */
  rebootSuppressed: boolean;
}

const STAGE_LABEL: Record<PluginStage, string> = {
  'pre-networking': 'PRE_NETWORKING',
  'pre-metadata-discovery': 'PRE_METADATA_DISCOVERY',
  main: 'MAIN',
};

export async function waitForSysprep(deps: CloudbaseRunnerDeps): Promise<void> {
  const deadline = Date.now() + (deps.sysprepTimeoutMs ?? 15 * 60_000);
  for (;;) {
    const v = deps.windows.regGet('HKLM', SYSPREP_KEY, 'GeneralizationState');
    if (v === undefined) {
      deps.log.debug(`No HKLM\\${SYSPREP_KEY}\\GeneralizationState: not a sysprepped image, not waiting`);
      return;
    }
    if (v.type === 'REG_DWORD' && v.data === GENERALIZATION_DONE) return;
    if (Date.now() >= deadline) {
      deps.log.warn(`Sysprep generalization still not done (GeneralizationState ${String(v.data)}); going on anyway`);
      return;
    }
    deps.log.info(`Waiting for sysprep to finish (GeneralizationState ${String(v.data)}, want ${GENERALIZATION_DONE})`);
    await deps.sleep(1000);
  }
}

/** The configured plugins in the configured order, split by stage; unknown ones are reported. */
export function resolvePlugins(
  conf: CloudbaseConf,
  errors: string[],
  warnings: string[],
  available: Plugin[] = PLUGINS,
): Plugin[] {
  const out: Plugin[] = [];
  for (const classPath of conf.listValue('plugins')) {
    const plugin = findPlugin(classPath, available);
    if (plugin) out.push(plugin);
    else if (MISSING_PLUGINS.includes(classPath))
      warnings.push(`plugin ${classPath} is not implemented by kiln yet; skipped`);
    else errors.push(`unknown plugin '${classPath}' in 'plugins' of cloudbase-init.conf`);
  }
  return out;
}

function readDmi(win: WindowsSystem): Record<string, string> {
  const read = (name: string): string => {
    const v = win.regGet('HKLM', BIOS_KEY, name);
    return v?.type === 'REG_SZ' ? v.data : '';
  };
  return {
    sys_vendor: read('SystemManufacturer'),
    product_name: read('SystemProductName'),
    product_version: read('SystemVersion'),
    bios_vendor: read('BIOSVendor'),
    bios_version: read('BIOSVersion'),
    board_vendor: read('BaseBoardManufacturer'),
  };
}

/**
 * Tries the metadata services in metadata_services order, as cloudbase-init does: each service's load() says
 * whether it has data. A local source's load() is its detect() (a drive with the label or the seed files); an
 * HTTP service's is the request itself, so it is crawled whatever DMI says (cloudbase-init has no platform
 * check, and DMI under wine or on an unlisted hypervisor says nothing). An HTTP service that does not answer
 * on hardware that does not look like its cloud is "not available" (a log line); one that fails where DMI
 * says its cloud is, or a local one that fails, is an error.
 */
export async function discoverMetadata(
  deps: CloudbaseRunnerDeps,
  report: RunReport,
): Promise<InstanceData | undefined> {
  const detect: DetectContext = {
    platform: deps.platform,
    log: deps.log,
    kernelCmdline: '',
    dmi: readDmi(deps.windows),
    config: {},
    finder: deps.finder,
    windows: deps.windows,
  };
  for (const classPath of deps.conf.listValue('metadata_services')) {
    const service = findMetadataService(classPath, deps.services);
    if (!service) {
      report.errors.push(`unknown metadata service '${classPath}' in 'metadata_services'`);
      continue;
    }
    const name = service.datasource;
    const source = deps.sources.find((d) => d.name === name);
    if (!source) {
      report.warnings.push(
        `metadata service ${classPath} needs kiln's ${name} datasource, which this build does not have yet; skipped`,
      );
      continue;
    }
    deps.log.info(`Trying metadata service ${classPath} (kiln datasource ${name})`);
    const { settings, baseUrl } = service.settings(deps.conf, () => deps.windows.netAdapters());
    // As the service's load() in cloudbase-init: the route to a link-local metadata host first, when its section asks.
    const routeUrl = metadataRouteUrl(service, deps.conf);
    if (routeUrl) await ensureMetadataIpRoute(deps.windows, routeUrl, deps.log, deps.metadataUrlAnswers);
    // Each service's conf options are its settings, in detect() too (OvfService's [ovf], VMwareGuestInfoService's
    // [vmwareguestinfo]).
    const here: DetectContext = { ...detect, config: { datasource: { [name]: settings } }, env: deps.env };
    const kind = service.kind ?? source.kind;
    let detected = false;
    try {
      detected = await service.detect(here, source);
      if (!detected && kind === 'local') {
        deps.log.debug(`${name}: not found`);
        continue;
      }
      const instance = await service.crawl({ ...here, settings, ...(baseUrl ? { baseUrl } : {}) }, source);
      deps.log.info(`Metadata service loaded: ${classPath} (instance ${instance.instanceId})`);
      report.service = { classPath, datasource: name };
      return instance;
    } catch (err) {
      if (kind === 'network' && !detected) {
        deps.log.info(`Metadata service ${classPath} not available: ${describeError(err)}`);
        continue;
      }
      report.errors.push(`metadata service ${classPath}: ${describeError(err)}`);
      deps.log.error(`Metadata service ${classPath} failed: ${describeError(err)}`);
    }
  }
  return undefined;
}

/**
 * Runs the plugins of one stage; returns true when one asked for a reboot that is allowed (the rest are then left for
 * the next boot).
 */
async function runStage(
  deps: CloudbaseRunnerDeps,
  stage: PluginStage,
  plugins: Plugin[],
  instance: InstanceData | undefined,
  shared: Map<string, unknown>,
  report: RunReport,
  service?: MetadataService,
): Promise<boolean> {
  // As cloudbase-init's _exec_plugin: a stage before metadata discovery has no instance id, and then no state is read
  // or written, so its plugins run at every boot (a record under ...\Plugins would also survive sysprep).
  const state = instance ? new PluginState(deps.windows, instance.instanceId) : undefined;
  const allowReboot = deps.conf.boolValue('allow_reboot');
  const guard = state !== undefined && deps.conf.boolValue('enable_reboot_loop_guard');
  const maxReboots = deps.conf.intValue('max_consecutive_reboots');
  deps.log.info(`Executing plugins for stage ${STAGE_LABEL[stage]}`);
  for (const plugin of plugins.filter((p) => p.stage === stage)) {
    const started = Date.now();
    const entry = (outcome: PluginOutcome, reboot: boolean, error?: string): PluginReport => ({
      name: plugin.name,
      stage,
      outcome,
      reboot,
      seconds: (Date.now() - started) / 1000,
      ...(error !== undefined ? { error } : {}),
    });
    if (state?.get(plugin.name) === PLUGIN_EXECUTION_DONE) {
      deps.log.debug(`Plugin '${plugin.name}' already executed. Skipping`);
      report.plugins.push(entry('already-done', false));
      continue;
    }
    deps.log.info(`Executing plugin '${plugin.name}'`);
    const ctx: PluginContext = {
      platform: deps.platform,
      windows: deps.windows,
      log: deps.log,
      conf: deps.conf,
      instance,
      shared,
      randomPassword: deps.randomPassword,
      env: deps.env,
      secret: (value) => deps.secret?.(value),
      ...(service ? { service } : {}),
    };
    let result: PluginResult;
    try {
      result = await plugin.execute(ctx);
    } catch (err) {
      // As cloudbase-init: the failure is logged, no state is saved, so the plugin runs again at the next boot.
      deps.log.error(`plugin '${plugin.name}' failed: ${describeError(err)}`);
      report.plugins.push(entry('failed', false, describeError(err)));
      continue;
    }
    // A persisted plugin (EC2 <persist>) runs at every boot: that is not a request to run again, but a reboot it asks
    // for at every boot is still a loop.
    const status = result.persistent ? 'next-boot' : result.status;
    if (state && status === 'next-boot' && result.reboot && guard) {
      const count = state.rebootRequests(plugin.name) + 1;
      if (count > maxReboots && result.persistent) {
        // The guard drops the reboot, never the persistence: the plugin still runs at the next boot.
        const msg = `plugin '${plugin.name}' asked for a reboot ${count} boots in a row (max_consecutive_reboots=${maxReboots}); this reboot is not done, and the persisted plugin runs again at the next boot`;
        deps.log.error(msg);
        state.set(plugin.name, PLUGIN_EXECUTE_ON_NEXT_BOOT);
        state.setRebootRequests(plugin.name, 0);
        report.plugins.push(entry('stopped', false, msg));
        continue;
      }
      if (count > maxReboots) {
        const msg = `plugin '${plugin.name}' asked for a reboot and to run again ${count} times in a row (max_consecutive_reboots=${maxReboots}); stopped and marked done to break the reboot loop`;
        deps.log.error(msg);
        state.set(plugin.name, PLUGIN_EXECUTION_DONE);
        state.setRebootRequests(plugin.name, 0);
        report.plugins.push(entry('stopped', false, msg));
        continue;
      }
      state.setRebootRequests(plugin.name, count);
    } else if (state && guard) {
      state.setRebootRequests(plugin.name, 0);
    }
    state?.set(plugin.name, status === 'done' ? PLUGIN_EXECUTION_DONE : PLUGIN_EXECUTE_ON_NEXT_BOOT);
    report.plugins.push(entry(status, result.reboot));
    if (result.reboot) {
      if (allowReboot) {
        deps.log.info(`Plugin '${plugin.name}' asked for a reboot`);
        return true;
      }
      deps.log.warn(`Plugin '${plugin.name}' asked for a reboot, but allow_reboot is false`);
      report.rebootSuppressed = true;
    }
  }
  return false;
}

/** Runs the whole flow; never throws for a plugin or a metadata service, only reports. */
export async function runCloudbaseInit(deps: CloudbaseRunnerDeps): Promise<RunReport> {
  const report: RunReport = { plugins: [], errors: [], warnings: [], rebooting: false, rebootSuppressed: false };
  await waitForSysprep(deps);
  const plugins = resolvePlugins(deps.conf, report.errors, report.warnings, deps.plugins);
  for (const e of report.errors) deps.log.error(e);
  for (const w of report.warnings) deps.log.warn(w);
  const shared = new Map<string, unknown>();
  const reboot = (why: string): RunReport => {
    report.rebooting = true;
    deps.windows.reboot(`kiln (cloudbase-init): ${why}`);
    return report;
  };
  if (await runStage(deps, 'pre-networking', plugins, undefined, shared, report))
    return reboot('PRE_NETWORKING plugin asked for a reboot');
  if (await runStage(deps, 'pre-metadata-discovery', plugins, undefined, shared, report))
    return reboot('PRE_METADATA_DISCOVERY plugin asked for a reboot');
  const instance = await discoverMetadata(deps, report);
  for (const w of report.warnings.filter((x) => x.startsWith('metadata service'))) deps.log.warn(w);
  if (!instance) {
    const tried = deps.conf
      .listValue('metadata_services')
      .map((c) => c.split('.').pop())
      .join(', ');
    const msg = `No available metadata service found (tried ${tried || 'none: metadata_services is empty'}); MAIN plugins not run`;
    report.errors.push(msg);
    deps.log.error(msg);
    return report;
  }
  report.instanceId = instance.instanceId;
  const found = report.service
    ? metadataServiceFor(
        report.service.classPath,
        report.service.datasource,
        deps.conf,
        { log: deps.log, env: deps.env, windows: deps.windows },
        instance,
      )
    : undefined;
  const service = found?.service;
  // cloudbase-init's provisioning reports (Azure's health reports), at its points: started before MAIN; failed
  // when a MAIN plugin failed; completed when MAIN succeeded and no reboot follows. A report that cannot be
  // sent is logged, not fatal.
  const tell = async (what: string, send: (() => Promise<void>) | undefined): Promise<void> => {
    if (!send) return;
    deps.log.info(`Reporting provisioning ${what}`);
    try {
      await send();
    } catch (err) {
      const msg = `could not report provisioning ${what} to ${report.service?.classPath ?? 'the metadata service'}: ${describeError(err)}`;
      deps.log.error(msg);
      report.errors.push(msg);
    }
  };
  const reportCompletion = deps.conf.boolValue('metadata_report_provisioning_completed');
  try {
    if (deps.conf.boolValue('metadata_report_provisioning_started'))
      await tell('started', service?.provisioningStarted);
    const before = report.plugins.length;
    const rebooting = await runStage(deps, 'main', plugins, instance, shared, report, service);
    const success = !report.plugins.slice(before).some((p) => p.outcome === 'failed');
    if (reportCompletion && !success) await tell('failed', service?.provisioningFailed);
    if (rebooting) return reboot('MAIN plugin asked for a reboot');
    if (reportCompletion && success) await tell('completed', service?.provisioningCompleted);
  } finally {
    await found?.close();
  }
  return report;
}
