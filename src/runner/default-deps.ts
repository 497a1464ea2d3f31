// The real implementations the CLI hands the runner: kiln's sources, modules, user-data and network code.
import { createLinuxFinder } from '../devices/create-finder';
import type { Log } from '../util/log';
import type { ConfigMap } from '../config/parse-yaml-config';
import type { Platform } from '../platform/platform';
import { networkDebugInfo } from '../net/ci-info/debug-info';
import { LinuxEphemeralDhcp } from '../net/ephemeral/ephemeral-network';
import { KvpTelemetry } from '../sources/azure/kvp';
import { DATASOURCES } from '../sources/registry';
import { applyNetworkOnLinux } from './apply-network-linux';
import { MODULES } from '../modules/registry';
import { processUserDataOnLinux } from './process-user-data-linux';
import type { RunnerDeps } from './runner-deps';

export interface DefaultDepsInput {
  platform: Platform;
  embeddedConfig: ConfigMap | undefined;
  cloudInitVersion: string;
  env: NodeJS.ProcessEnv;
  /** Where the device finder logs what it read (cloud-init logs its blkid lookups). */
  log?: Log;
  /** A dry run takes no lease: it would change the network, and nothing can be crawled without it. */
  dryRun?: boolean;
}

export function defaultRunnerDeps(input: DefaultDepsInput): RunnerDeps {
  return {
    sources: [...DATASOURCES],
    modules: [...MODULES],
    processUserData: processUserDataOnLinux,
    selectAndRenderNetwork: applyNetworkOnLinux,
    finder: createLinuxFinder(input.platform.root, input.env, input.log),
    env: input.env,
    embeddedConfig: input.embeddedConfig,
    cloudInitVersion: input.cloudInitVersion,
    reportingHandlers: (platform, config, log) => KvpTelemetry.fromConfig(platform, config, log),
    // A dry run would only record the `ip` commands, leaving tables of nothing to print.
    ...(input.dryRun ? {} : { networkInfo: networkDebugInfo }),
    ...(input.dryRun ? {} : { ephemeralNetwork: (log) => new LinuxEphemeralDhcp({ platform: input.platform, log }) }),
  };
}
