// The domain CloudStack's FQDN takes from the DHCP lease, as cloud-init 25.1's DataSourceCloudStack._get_domainname
// finds it: networkd's leases (DOMAINNAME), then the newest dhclient lease (its last lease with a domain-name).
import type { Log } from '../util/log';
import type { Platform } from '../platform/platform';
import { latestLeaseFile, networkdLeaseOption } from './cloudstack-router';

/**
 * IscDhclient.parse_leases: each `lease { … }` block of a dhclient lease file as option → value, the `option `
 * prefix and double quotes dropped, oldest first.
 */
export function parseDhclientLeaseOptions(text: string): Array<Record<string, string>> {
  const leases: Array<Record<string, string>> = [];
  for (const block of text.matchAll(/lease {([\s\S]*?)}\n/g)) {
    const options: Record<string, string> = {};
    for (const raw of (block[1] as string).split(';')) {
      const line = raw
        .trim()
        .replace(/"/g, '')
        .replace(/option /g, '');
      if (!line) continue;
      const space = line.indexOf(' ');
      if (space < 0) options[line] = '';
      else options[line.slice(0, space)] = line.slice(space + 1);
    }
    leases.push(options);
  }
  return leases;
}

/** The domain name of the instance's DHCP lease, or undefined when no lease gives one. */
export async function cloudStackDomainName(platform: Platform, log: Log): Promise<string | undefined> {
  const networkd = await networkdLeaseOption(platform, 'DOMAINNAME');
  if (networkd) return networkd;
  log.debug('CloudStack: no domain name in the networkd leases; trying the dhclient lease');
  const file = await latestLeaseFile(platform);
  const text = file === undefined ? undefined : await platform.readTextIfExists(file).catch(() => undefined);
  for (const lease of parseDhclientLeaseOptions(text ?? '').reverse()) {
    if (lease['domain-name']) return lease['domain-name'];
  }
  log.debug('CloudStack: no domain name in the DHCP leases');
  return undefined;
}
