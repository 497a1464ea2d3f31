// Reads everything `cloud-init status` needs from the target: status.json, the disable switches, the generator's marks.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { ConfigMap } from '../config/parse-yaml-config';
import { computeBootStatus, type BootStatus } from './boot-status';
import { loadRunConfig, readKernelCmdline } from './run-config';
import { readStatusFile } from './status-file';

export async function readBootStatus(platform: Platform, embedded: ConfigMap | undefined, cmdline?: string): Promise<BootStatus> {
  const rc = await loadRunConfig(platform, embedded, cmdline ?? (await readKernelCmdline(platform)));
  const status = await readStatusFile(platform, rc.paths);
  let disabledBy = rc.disabledBy;
  // The generator leaves /run/cloud-init/disabled when it found no datasource and did not start kiln.
  if (!disabledBy && (await platform.exists(posix.join(rc.paths.runDir, 'disabled')))) disabledBy = 'disabled-by-generator';
  const enabledBy = rc.kernel.enabled
    ? 'enabled-by-kernel-command-line'
    : (await platform.exists(posix.join(rc.paths.runDir, 'enabled')))
      ? 'enabled-by-generator'
      : 'enabled-by-sysvinit';
  return computeBootStatus({ status, disabledBy, enabledBy });
}
