// A stage's network step: the config selected and rendered (the fallback one without an instance), and what it did.
import { posix } from 'node:path';
import { cfgBool } from '../modules/support/config-values';
import type { DistroInfo } from '../platform/linux/distro/distro-info';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import { describeError } from '../util/errors';
import type { Log } from '../util/log';
import { writeNetworkConfigJson } from './network-config-json';
import type { RunConfig } from './run-config';
import type { RunnerDeps } from './runner-deps';
import { markRun } from './semaphores';

export interface StageNetworkInput {
  platform: Platform;
  /** main.py's log: what was written, or why nothing was (a failure is an ERROR, a recoverable error of the stage). */
  log: Log;
  /** stages.py's log, handed to the rendering. */
  renderLog: Log;
  rc: RunConfig;
  /** Read only when the network config is not disabled. */
  distro: () => Promise<DistroInfo>;
  deps: Pick<RunnerDeps, 'selectAndRenderNetwork'>;
  /** The instance found, or undefined: the fallback config. */
  instance: InstanceData | undefined;
  stage: 'local' | 'network';
}

/** What the step did, for the stages after it in the same process. */
export interface StageNetworkOutcome {
  /** An instance's network config was rendered. */
  appliedForInstance: boolean;
  /** init-local wrote network config files (which no networking service has read yet). */
  localWritten: boolean;
}

export async function applyStageNetwork(input: StageNetworkInput): Promise<StageNetworkOutcome> {
  const { platform, log, rc, instance, stage } = input;
  const did: StageNetworkOutcome = { appliedForInstance: false, localWritten: false };
  const net = rc.config.network as Record<string, unknown> | undefined;
  if (net && net.config === 'disabled') {
    log.info('network config is disabled by network: {config: disabled}');
    return did;
  }
  try {
    // cloud-init's _should_bring_up_interfaces: the network stage brings up what it renders; init-local leaves that
    // to the distro's networking, which starts after it and reads the files.
    const bringUp = stage === 'network' && !cfgBool(rc.config, 'disable_network_activation', false);
    const out = await input.deps.selectAndRenderNetwork({
      platform,
      log: input.renderLog,
      instance,
      config: rc.config,
      distro: await input.distro(),
      stage,
      kernelCmdline: rc.kernelCmdline,
      bringUp,
    });
    if (instance) did.appliedForInstance = true;
    if (instance && out.config) await writeNetworkConfigJson(platform, rc.paths, out.config);
    if (stage === 'local' && out.written.length) did.localWritten = true;
    if (out.written.length) {
      log.info(`network config written: ${out.written.join(', ')}`);
      // cloud-init takes this per-boot semaphore (in the run dir) when it applies a network config.
      await markRun(platform, posix.join(rc.paths.runDir, 'sem', 'apply_network_config.once'), new Date());
    }
  } catch (err) {
    log.error(`applying network config failed: ${describeError(err)}`);
  }
  return did;
}
