// network-config.json: the network config an instance's boot applied, as cloud-init 25.1 records it
// (Init._write_network_config_json) in the instance folder, linked from /run/cloud-init.
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { CloudPaths } from './cloud-paths';
import { sortedJson } from './sorted-json';

/**
 * Writes CONFIG to /var/lib/cloud/instance/network-config.json (0600) when it differs from what is there, and links
 * /run/cloud-init/network-config.json to it; nothing before an instance is known (no instance link yet).
 */
export async function writeNetworkConfigJson(
  platform: Platform,
  paths: CloudPaths,
  config: Record<string, unknown>,
): Promise<void> {
  if (!(await platform.exists(paths.instanceLink))) return;
  const file = posix.join(paths.instanceLink, 'network-config.json');
  const text = sortedJson(config);
  if ((await platform.readTextIfExists(file)) !== text) await platform.writeFile(file, text, { mode: 0o600 });
  await platform.symlink(file, posix.join(paths.runDir, 'network-config.json'));
}
