// cloudbase-init's CloudStack service: the CloudStack source given [cloudstack]'s options and the DHCP servers in use.
import type { NetAdapter } from '../platform/windows/windows-system';
import { sourceService } from './cloudbase-metadata-service';

/**
 * The DHCP servers of the DHCP-enabled adapters; none when the adapters cannot be listed (the configured URL may still
 * answer).
 */
function dhcpServersInUse(adapters: () => NetAdapter[]): string[] {
  try {
    return adapters()
      .filter((a) => a.dhcpv4 && a.dhcpServer)
      .map((a) => a.dhcpServer as string);
  } catch {
    // As the comment above says: the configured URL may still answer, so no adapters is not an error.
    return [];
  }
}

/**
 * [cloudstack] metadata_base_url, password_server_port, retry_count and the DHCP servers of the DHCP-enabled
 * adapters (cloudbase-init's get_dhcp_hosts_in_use), tried after metadata_base_url. add_metadata_private_ip_route
 * defaults to false in [cloudstack].
 */
export const cloudbaseCloudStackService = sourceService('cloudstack.CloudStack', 'CloudStack', {
  routeSection: 'cloudstack',
  settings: (conf, adapters) => ({
    settings: {
      metadata_base_url: conf.strValue('metadata_base_url', 'cloudstack'),
      password_server_port: conf.intValue('password_server_port', 'cloudstack'),
      retries: conf.intValue('retry_count'),
      dhcp_servers: dhcpServersInUse(adapters),
    },
  }),
});
