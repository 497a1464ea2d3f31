// What the runner is given instead of importing it: sources, modules, user-data and network processing.
import type { FilesystemFinder } from '../devices/filesystem-finder';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Module } from '../modules/module';
import type { Platform } from '../platform/platform';
import type { Datasource, InstanceData } from '../sources/datasource';
import type { EphemeralNetwork } from '../net/ephemeral/ephemeral-network';
import type { Log } from '../util/log';
import type { ProcessedPart } from '../userdata/processed-message';
import type { SourceSet } from '../sources/source-set';
import type { CloudPaths } from './cloud-paths';
import type { EventLog, EventSink } from './event-log';
import type { FoundInStage } from './describe-source';

export interface UserDataInput {
  /** Which blob: user data, vendor data, or vendor_data2 (processed after vendor data). */
  kind: 'user' | 'vendor' | 'vendor2';
  /**
   * Only split and merge (no scripts written, no boothooks or part handlers run): vendor data cloud-init stores but
   * does not use.
   */
  onlyProcess?: boolean;
  raw: Uint8Array;
  instance: InstanceData;
  platform: Platform;
  log: Log;
  paths: CloudPaths;
  /** instances/<iid>: where scripts/, boothooks/ and cloud-config parts are written. */
  instanceDir: string;
  /** The system config (jinja templates and handlers may read it). */
  config: ConfigMap;
  /** instance-data-sensitive.json's content, for `## template: jinja` parts. */
  instanceData?: Record<string, unknown>;
}

export interface UserDataOutcome {
  /** The cloud-config this blob contributes (its parts already merged by their merge_how). */
  cloudConfig: ConfigMap;
  /** Problems worth a WARNING that did not stop processing (recorded as recoverable errors). */
  warnings?: string[];
  /** The parts as cloud-init attaches them to its processed message (written as <name>.txt.i). */
  processed?: ProcessedPart[];
  /** The names of the cloud-config parts merged, in order (listed in cloud-config.txt). */
  cloudConfigParts?: string[];
}

export interface NetworkInput {
  platform: Platform;
  log: Log;
  /** The instance found in this stage, or undefined: render the fallback config (first NIC, DHCP). */
  instance: InstanceData | undefined;
  config: ConfigMap;
  distro: DistroInfo;
  stage: 'local' | 'network';
  kernelCmdline: string;
  /**
   * Bring the rendered interfaces up with the activator: the network stage does (cloud-init's bring_up unless
   * disable_network_activation), init-local never does (the distro's networking starts after it and reads the files).
   */
  bringUp: boolean;
}

export interface NetworkOutcome {
  /** Files written (for the log), e.g. /etc/netplan/50-cloud-init.yaml. */
  written: string[];
  /** The network config selected and applied (absent when network config is disabled). */
  config?: Record<string, unknown>;
  /** The activator that brought the interfaces up (absent when none was asked for or found). */
  activator?: string;
  /** Whether every activation command succeeded (absent when bring-up was not asked for). */
  broughtUp?: boolean;
}

export interface LocateInput {
  stage: 'local' | 'network';
  platform: Platform;
  log: Log;
  config: ConfigMap;
  kernelCmdline: string;
  finder: FilesystemFinder;
  /** The network stage after an init-local that ran this boot: local sources were already tried. */
  localAlreadyTried: boolean;
  /** init-local: the temporary lease network sources with local evidence are crawled in. */
  network?: EphemeralNetwork;
  /** Where the search-<class> start and finish events go (cloud-init's find_source reporting). */
  events?: EventLog;
}

/** The source that answered, with what it read. */
export interface FoundSource {
  source: Datasource;
  data: InstanceData;
  /** The stage that found it (kept in the cache): cloud-init's class, and so its name in status.json, differs. */
  stage?: FoundInStage;
}

export interface LocateOutcome {
  found: FoundSource | undefined;
  /** The candidates detection picked, in the order they were crawled. */
  tried: string[];
}

/** The cloud-init face's runner: the sources it searches (shared with the cloudbase-init runner), and the rest. */
export interface RunnerDeps extends SourceSet {
  /** Every cloud-config module kiln knows; the cloud_*_modules lists pick and order them. */
  modules: Module[];
  processUserData(input: UserDataInput): Promise<UserDataOutcome>;
  selectAndRenderNetwork(input: NetworkInput): Promise<NetworkOutcome>;
  /** The embedded default cloud.cfg of this build, read when it was built. */
  embeddedConfig: ConfigMap | undefined;
  /**
   * The cloud-init release kiln reproduces (`KILN_CLOUD_INIT_VERSION`), which the stage banner names as cloud-init's
   * names its own.
   */
  cloudInitVersion: string;
  now?: () => Date;
  /** The target's kernel command line; defaults to /proc/cmdline read through the platform. */
  kernelCmdline?: () => Promise<string>;
  /** Seconds since boot; defaults to the platform's hostUptime (this machine's /proc/uptime), else 0. */
  uptime?: () => Promise<number>;
  /** The `ci-info:` device and route tables the network stage prints first (cloud-init's netinfo.debug_info). */
  networkInfo?: (platform: Platform, log: Log) => Promise<string>;
  /**
   * The reporting handlers of the system config beyond the log (cloud-init's hyperv handler: Azure's KVP), made
   * once per process; none given, or none configured: the event log only.
   */
  reportingHandlers?: (platform: Platform, config: ConfigMap, log: Log) => Promise<EventSink | undefined>;
  /**
   * init-local's temporary network (cloud-init's ephemeral DHCP) for sources local facts point at; none: they wait for
   * init.
   */
  ephemeralNetwork?: (log: Log) => EphemeralNetwork;
}
