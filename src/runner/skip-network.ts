// 25.1's MANUAL_NETWORK_WAIT: init-local judges whether the init stage needs the network and says so in the run dir.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import type { Log } from '../util/log';
import { initNeedsNetwork } from './network-wait';

/** Leaves RUN_DIR/.skip-network when DATA needs no network in the init stage, so that the stage waits for none. */
export async function markNetworkUnneeded(
  platform: Platform,
  log: Log,
  runDir: string,
  data: InstanceData,
): Promise<void> {
  const need = initNeedsNetwork(data.userData, data.vendorData, data.vendorData2);
  if (need.wait) {
    log.debug(`Network connectivity determined necessary for cloud-init's network stage. Reason: ${need.reason}`);
    return;
  }
  log.debug(`Network connectivity determined unnecessary for cloud-init's network stage. Reason: ${need.reason}`);
  await platform.writeFile(posix.join(runDir, '.skip-network'), '', { mode: 0o644 });
}
