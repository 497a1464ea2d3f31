// Where CloudStack's virtual router (metadata and password server) is, found as cloud-init's get_vr_address finds it:
// DNS, networkd's lease, dhclient's lease, the default gateway.
import { posix } from 'node:path';
import type { Log } from '../util/log';
import type { Platform } from '../platform/platform';

/** Resolves a host name to its first address, or undefined (kiln passes node's dns.lookup; tests a fake). */
export type ResolveHost = (name: string) => Promise<string | undefined>;

export interface RouterAddress {
  address: string;
  /** How it was found, for the log: 'data-server DNS entry', 'networkd lease', the lease file, 'default gateway'. */
  via: string;
}

export const NETWORKD_LEASES = '/run/systemd/netif/leases';
/**
 * 25.1's IscDhclient.get_newest_lease_file_from_distro: the distro's lease folder and name pattern (Debian's), then
 * cloud-init's fallback folder; the newest matching file of the first folder that has one.
 */
const LEASE_FOLDERS: Array<{ dir: string; match: RegExp }> = [
  { dir: '/var/lib/dhcp', match: /dhclient\.\w+\.leases/ },
  { dir: '/var/lib/dhclient', match: /.+\.leases?$/ },
];

/** networkd_get_option_from_leases: KEY of the first lease file (by name) that has one. */
export async function networkdLeaseOption(platform: Platform, key: string): Promise<string | undefined> {
  const names = await platform.listDir(NETWORKD_LEASES).catch(() => [] as string[]);
  for (const name of [...names].sort()) {
    const text = await platform.readTextIfExists(posix.join(NETWORKD_LEASES, name)).catch(() => undefined);
    const m = text === undefined ? null : new RegExp(`^${key}=(.*)$`, 'm').exec(text);
    if (m?.[1]?.trim()) return m[1].trim();
  }
  return undefined;
}

/** The newest dhclient lease file of the distro's folder, else of cloud-init's fallback folder. */
export async function latestLeaseFile(platform: Platform): Promise<string | undefined> {
  for (const { dir, match } of LEASE_FOLDERS) {
    const names = await platform.listDir(dir).catch(() => undefined);
    if (!names) continue;
    let newest: { path: string; mtime: number } | undefined;
    for (const name of names) {
      if (!match.test(name)) continue;
      const path = posix.join(dir, name);
      const mtime = (await platform.stat(path).catch(() => undefined))?.mtimeMs;
      if (mtime !== undefined && (!newest || mtime > newest.mtime)) newest = { path, mtime };
    }
    if (newest) return newest.path;
  }
  return undefined;
}

/** The last `dhcp-server-identifier` of a lease file, taken as cloud-init takes it: the third space-separated word. */
export function leaseServerIdentifier(text: string): string | undefined {
  let found: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes('dhcp-server-identifier')) continue;
    const words = line.replace(/^[ ;\r\n]+|[ ;\r\n]+$/g, '').split(' ');
    if (words.length > 2 && words[2]) found = words[2];
  }
  return found;
}

/** The gateway of the first default route in /proc/net/route (little-endian hex), as get_default_gateway reads it. */
export function defaultGateway(procNetRoute: string): string | undefined {
  for (const line of procNetRoute.split('\n')) {
    const items = line.split('\t');
    if (items[1] !== '00000000' || !items[2] || !/^[0-9a-fA-F]{1,8}$/.test(items[2])) continue;
    const n = parseInt(items[2], 16);
    return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff].join('.');
  }
  return undefined;
}

/** The virtual router's address, or undefined when none of cloud-init's ways finds one. */
export async function findCloudStackRouter(
  platform: Platform,
  resolve: ResolveHost,
  log: Log,
): Promise<RouterAddress | undefined> {
  const dns = await resolve('data-server').catch(() => undefined);
  if (dns) return { address: dns, via: 'data-server DNS entry' };
  log.debug('CloudStack: no DNS entry for data-server');
  const networkd = await networkdLeaseOption(platform, 'SERVER_ADDRESS');
  if (networkd) return { address: networkd, via: `networkd lease SERVER_ADDRESS in ${NETWORKD_LEASES}` };
  const lease = await latestLeaseFile(platform);
  if (lease) {
    const id = leaseServerIdentifier((await platform.readTextIfExists(lease).catch(() => undefined)) ?? '');
    if (id) return { address: id, via: `dhcp-server-identifier in ${lease}` };
  }
  const gw = defaultGateway((await platform.readTextIfExists('/proc/net/route').catch(() => undefined)) ?? '');
  return gw ? { address: gw, via: 'default gateway' } : undefined;
}
