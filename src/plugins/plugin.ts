// The contract of a cloudbase-init plugin.
import type { InstanceData } from '../sources/datasource';
import type { Platform } from '../platform/platform';
import type { Log } from '../util/log';

export type PluginStage = 'pre-networking' | 'pre-metadata-discovery' | 'main';

export interface PluginResult {
  /** 'done' is recorded in the registry (1) and the plugin is not run again for this instance. */
  status: 'done' | 'next-boot';
  reboot: boolean;
}

export interface PluginContext {
  platform: Platform;
  log: Log;
  /** cloudbase-init.conf, parsed: section → key → value ('DEFAULT' for the default section). */
  conf: Record<string, Record<string, string>>;
  /** Undefined in the stages before metadata discovery. */
  instance: InstanceData | undefined;
}

export interface Plugin {
  /** cloudbase-init's class path, e.g. 'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin'. */
  readonly classPath: string;
  /** The short name used in the registry state, e.g. 'SetHostNamePlugin'. */
  readonly name: string;
  readonly stage: PluginStage;
  execute(ctx: PluginContext): Promise<PluginResult>;
}
