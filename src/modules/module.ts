// The contract of a cloud-config module (cloud-init's cc_* modules).
import type { HostKey, InstanceData } from '../sources/datasource';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Platform } from '../platform/platform';
import { SubjectError } from '../util/errors';
import type { Log } from '../util/log';

export type ModuleStage = 'init' | 'config' | 'final';
export type Frequency = 'once-per-instance' | 'always' | 'once';

/** The merged cloud-config (system config < datasource < vendor data < user data). */
export type CloudConfig = Record<string, unknown>;

export interface ModuleContext {
  platform: Platform;
  log: Log;
  distro: DistroInfo;
  /** The instance's data, undefined only for modules run with no datasource at all. */
  instance: InstanceData | undefined;
  /** cloud-init's str(datasource), as status.json names the found source ('DataSourceNoCloud [seed=…][dsmode=net]'). */
  datasource?: string;
  /** /var/lib/cloud/instance (the per-instance folder inside the target root). */
  instanceDir: string;
  /** cloud-init's paths: cloud_dir (/var/lib/cloud), run_dir (/run/cloud-init). */
  paths: { cloudDir: string; runDir: string };
  /** The module's name as the module list spells it (cloud-init's handle `name`: 'scripts-user'), when listed. */
  listedAs?: string;
  /** Appends command output to /var/log/cloud-init-output.log (as cloud-init's output redirection does). */
  output(text: string): Promise<void>;
  /**
   * Logs a problem that did not stop the module at LEVEL. Like every WARNING or ERROR line logged during a stage,
   * it becomes one of the stage's recoverable_errors (the boot is degraded), as in cloud-init.
   */
  recoverable(level: 'WARNING' | 'ERROR', message: string): void;
  /** The found datasource's publish_host_keys; absent when it publishes nothing (cloud-init's base no-op). */
  publishHostKeys?(keys: HostKey[]): Promise<void>;
}

export interface Module {
  /** cloud-init's name without the cc_ prefix: 'write_files', 'set_hostname' … */
  readonly name: string;
  readonly stage: ModuleStage;
  readonly frequency: Frequency;
  /** Distros the module supports ('all' for any), as cloud-init declares them. */
  readonly distros: string[] | 'all';
  /** Top-level cloud-config keys that activate the module; empty means it always runs. */
  readonly activateBy: string[];
  /**
   * The top-level keys a module made by support/config-module.ts reads: it is handed only those, checked against the
   * schema and typed. Absent for a module that still reads the whole config untyped.
   */
  readonly configKeys?: readonly string[];
  run(ctx: ModuleContext, cfg: CloudConfig): Promise<void>;
  /**
   * Called when the stage starts for each module that will run in it, before any runs: a module may start slow
   * work that needs no other module (host key generation) so that it overlaps the modules ahead of it. It must
   * change nothing on disk and must not throw; run() still does, and reports, the work.
   */
  prepare?(ctx: ModuleContext, cfg: CloudConfig): void;
  /** Forgets work that prepare() started and run() did not use (called once the stage's modules ran). */
  release?(platform: Platform): void;
}

/** Modules cloud-init renamed (its RENAMED_MODULES, 24.1): the old name still runs the module, with a deprecation. */
export const RENAMED_MODULES: Readonly<Record<string, string>> = { ubuntu_advantage: 'ubuntu_pro' };

/** A module that failed: the runner logs it with the module name and goes on with the others. */
export class ModuleError extends SubjectError {
  override readonly name = 'ModuleError';
}
