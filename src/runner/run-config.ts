// The system config for a run: files merged in cloud-init's order, then the kernel command line's `cc: … end_cc`.
import { loadSystemConfig } from '../config/load-system-config';
import { mergeSystemConfig } from '../config/merge-system-config';
import { parseKernelCmdline, type KernelCmdlineFacts } from '../config/kernel-cmdline';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { Platform } from '../platform/platform';
import { cloudPaths, type CloudPaths } from './cloud-paths';

export interface RunConfig {
  config: ConfigMap;
  sources: string[];
  paths: CloudPaths;
  kernel: KernelCmdlineFacts;
  kernelCmdline: string;
  /** Why kiln must not run: 'disabled-by-marker-file' or 'disabled-by-kernel-command-line'; undefined when enabled. */
  disabledBy: string | undefined;
}

export async function readKernelCmdline(platform: Platform): Promise<string> {
  return ((await platform.readTextIfExists('/proc/cmdline').catch(() => undefined)) ?? '').trim();
}

export async function loadRunConfig(
  platform: Platform,
  embedded: ConfigMap | undefined,
  cmdline: string,
): Promise<RunConfig> {
  const loaded = await loadSystemConfig(platform, embedded);
  const kernel = parseKernelCmdline(cmdline);
  let config = loaded.config;
  const sources = [...loaded.sources];
  if (kernel.cloudConfig) {
    config = mergeSystemConfig(config, kernel.cloudConfig);
    sources.push('/proc/cmdline');
  }
  const paths = cloudPaths(config);
  let disabledBy: string | undefined;
  if (kernel.disabled) disabledBy = 'disabled-by-kernel-command-line';
  else if (!kernel.enabled && (await platform.exists(paths.disabledFile))) disabledBy = 'disabled-by-marker-file';
  return { config, sources, paths, kernel, kernelCmdline: cmdline, disabledBy };
}
