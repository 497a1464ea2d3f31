// cloudbase-init's metadata service class names, the kiln datasources that stand for them, and the settings each gets from cloudbase-init.conf.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';
import { maasServiceSettings } from './maas-service-settings';
import type { NetAdapter } from '../platform/windows/windows-system';

const S = 'cloudbaseinit.metadata.services.';

/** Class path → kiln datasource name (as in src/sources, cloud-init's names). */
export const METADATA_SERVICES: Record<string, string> = {
  [`${S}httpservice.HttpService`]: 'OpenStack',
  [`${S}configdrive.ConfigDriveService`]: 'ConfigDrive',
  [`${S}nocloudservice.NoCloudConfigDriveService`]: 'NoCloud',
  [`${S}ec2service.EC2Service`]: 'Ec2',
  [`${S}maasservice.MaaSHttpService`]: 'MAAS',
  [`${S}cloudstack.CloudStack`]: 'CloudStack',
  [`${S}opennebulaservice.OpenNebulaService`]: 'OpenNebula',
  [`${S}gceservice.GCEService`]: 'GCE',
  [`${S}azureservice.AzureService`]: 'Azure',
  [`${S}ovfservice.OvfService`]: 'OVF',
  [`${S}packet.PacketService`]: 'Packet',
  [`${S}vmwareguestinfoservice.VMwareGuestInfoService`]: 'VMware',
  [`${S}base.EmptyMetadataService`]: 'None',
};

/** The datasource name for a class path (or its last component, e.g. 'ConfigDriveService'); undefined when unknown. */
export function datasourceForService(classPath: string): string | undefined {
  const direct = METADATA_SERVICES[classPath];
  if (direct) return direct;
  const short = classPath.split('.').pop();
  const match = Object.entries(METADATA_SERVICES).find(([k]) => k.split('.').pop() === short);
  return match?.[1];
}

/** The DHCP servers of the DHCP-enabled adapters; none when the adapters cannot be listed (the configured URL may still answer). */
function dhcpServersInUse(adapters: () => NetAdapter[]): string[] {
  try {
    return adapters().filter((a) => a.dhcpv4 && a.dhcpServer).map((a) => a.dhcpServer as string);
  } catch {
    return [];
  }
}

/** The section of the services that add a route to their metadata host (add_metadata_private_ip_route). */
const ROUTE_SECTIONS: Record<string, string> = { OpenStack: 'openstack', Ec2: 'ec2', CloudStack: 'cloudstack' };

/**
 * The metadata URL to route to before datasource NAME is loaded, when its section's add_metadata_private_ip_route
 * is true (default true for [openstack] and [ec2], false for [cloudstack], as in cloudbase-init's conf); else undefined.
 */
export function metadataRouteUrl(name: string, conf: CloudbaseConf): string | undefined {
  const section = ROUTE_SECTIONS[name];
  if (!section || !conf.bool('add_metadata_private_ip_route', section)) return undefined;
  return conf.str('metadata_base_url', section);
}

/** What a datasource's crawl gets from cloudbase-init.conf for one service: its settings and base URL. */
export interface ServiceCrawlSettings {
  settings: Record<string, unknown>;
  baseUrl?: string;
}

/**
 * The crawl settings for datasource NAME: [openstack]/[ec2] metadata_base_url as the server root; for GCE the
 * [gce] metadata_base_url (the computeMetadata/v1/ URL), retry_count, and the [DEFAULT] username, whose
 * presence makes the GCE source follow GCEService (keys for that user, host name from instance/name); for OVF
 * and VMware their [ovf] and [vmwareguestinfo] options; for Azure its [azure] options and the retries.
 * and VMware their [ovf] and [vmwareguestinfo] options; for CloudStack its [cloudstack] options, retry_count and
 * the DHCP servers of the DHCP-enabled ADAPTERS (cloudbase-init's get_dhcp_hosts_in_use), tried after
 * metadata_base_url.
 */
export function serviceCrawlSettings(name: string, conf: CloudbaseConf, adapters: () => NetAdapter[] = () => []): ServiceCrawlSettings {
  if (name === 'CloudStack') {
    return {
      settings: {
        metadata_base_url: conf.strValue('metadata_base_url', 'cloudstack'),
        password_server_port: conf.intValue('password_server_port', 'cloudstack'),
        retries: conf.intValue('retry_count'),
        dhcp_servers: dhcpServersInUse(adapters),
      },
    };
  }
  if (name === 'OpenStack' || name === 'Ec2') {
    const section = name === 'OpenStack' ? 'openstack' : 'ec2';
    return conf.isSet('metadata_base_url', section) ? { settings: {}, baseUrl: conf.str('metadata_base_url', section) as string } : { settings: {} };
  }
  if (name === 'GCE') {
    return {
      settings: {
        cloudbase_init_username: conf.strValue('username'),
        metadata_url: conf.str('metadata_base_url', 'gce'),
        retries: conf.intValue('retry_count'),
      },
    };
  }
  if (name === 'Packet') {
    // PacketService: [packet] metadata_base_url, retried retry_count times retry_count_interval apart.
    return { settings: { metadata_base_url: conf.str('metadata_base_url', 'packet'), retry_count: conf.intValue('retry_count'), retry_count_interval: conf.floatValue('retry_count_interval') } };
  }
  if (name === 'OVF' || name === 'VMware') {
    // OvfService and VMwareGuestInfoService: their [ovf] / [vmwareguestinfo] options.
    const section = name === 'OVF' ? 'ovf' : 'vmwareguestinfo';
    const keys = section === 'ovf' ? ['config_file_name', 'drive_label', 'ns'] : ['vmware_rpctool_path'];
    return { settings: Object.fromEntries(keys.map((k) => [k, conf.str(k, section)]).filter(([, v]) => v !== undefined)) };
  }
  if (name === 'MAAS') return maasServiceSettings(conf);
  if (name === 'Azure') {
    // AzureService: the [azure] options, the retries every cloudbase-init HTTP service has, and kiln's
    // [azure] wireserver_url (no cloudbase-init option: for a wireserver not given by DHCP, or a test's mock).
    return {
      settings: {
        retries: conf.intValue('retry_count'),
        retry_interval: conf.floatValue('retry_count_interval'),
        transport_cert_store_name: conf.str('transport_cert_store_name', 'azure'),
        ...(conf.str('wireserver_url', 'azure') ? { wireserver_url: conf.str('wireserver_url', 'azure') } : {}),
      },
    };
  }
  return { settings: {} };
}
