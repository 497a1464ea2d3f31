// Whether the init stage needs the network: cloud-init 25.1 decides it in init-local from the raw user and vendor
// data and, when it does not, leaves /run/cloud-init/.skip-network for the init stage (which then waits for no
// network; kiln never waits, but leaves the same marker).
import { readYaml } from '../config/read-yaml';
import { isConfigMap } from '../config/parse-yaml-config';
import { truthy } from '../userdata/jinja-filters';
import { CT, typeFromStartsWith } from '../userdata/part-types';

export interface NetworkWait {
  wait: boolean;
  reason: string;
}

function decodeUtf8(raw: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    return undefined; // not UTF-8: binary user data, which the caller says is no cloud-config
  }
}

/** One blob of user or vendor data, as 25.1's _should_wait_via_user_data judges it. */
export function dataNeedsNetwork(raw: Uint8Array | undefined): NetworkWait {
  if (!raw || raw.length === 0) return { wait: false, reason: 'no configuration found' };
  const text = decodeUtf8(raw);
  // Only the head is looked at (enough to tell #cloud-config from #cloud-config-archive); binary data is no
  // cloud-config.
  if (text === undefined || typeFromStartsWith(text.trim().slice(0, 42)) !== CT.cloudConfig)
    return { wait: true, reason: 'non-cloud-config user data found' };
  let parsed: unknown;
  try {
    parsed = readYaml(text, 'user data');
  } catch {
    return { wait: true, reason: 'failed to parse user data as yaml' }; // readYaml fails only on text that is not YAML: cloud-init's reason for it
  }
  if (!isConfigMap(parsed)) return { wait: true, reason: 'parsed config not in cloud-config format' };
  if (Array.isArray(parsed.write_files)) {
    for (const item of parsed.write_files) {
      const source = isConfigMap(item) && isConfigMap(item.source) ? item.source : {};
      const uri = typeof source.uri === 'string' ? source.uri : '';
      if (uri && !uri.startsWith('/') && !uri.startsWith('file:'))
        return { wait: true, reason: 'write_files with source uri found' };
    }
  }
  if (truthy(parsed.bootcmd)) return { wait: true, reason: 'bootcmd found' };
  if (isConfigMap(parsed.random_seed) && truthy(parsed.random_seed.command))
    return { wait: true, reason: 'random_seed command found' };
  if (truthy(parsed.mounts)) return { wait: true, reason: 'mounts found' };
  return { wait: false, reason: 'cloud-config does not contain network requiring elements' };
}

/** 25.1's _should_wait_on_network for a found source: any of user data, vendor data and vendor data 2 may need it. */
export function initNeedsNetwork(
  userData: Uint8Array | undefined,
  vendorData: Uint8Array | undefined,
  vendorData2: Uint8Array | undefined,
): NetworkWait {
  const user = dataNeedsNetwork(userData);
  if (user.wait) return { wait: true, reason: `${user.reason} in user data` };
  const vendor = dataNeedsNetwork(vendorData);
  if (vendor.wait) return { wait: true, reason: `${vendor.reason} in vendor data` };
  const vendor2 = dataNeedsNetwork(vendorData2);
  if (vendor2.wait) return { wait: true, reason: `${vendor2.reason} in vendor data2` };
  return {
    wait: false,
    reason: `user data: ${user.reason}, vendor data: ${vendor.reason}, vendor data2: ${vendor2.reason}`,
  };
}
