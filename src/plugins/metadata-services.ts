// cloudbase-init's metadata service class names and the kiln datasources that stand for them.
import type { CloudbaseConf } from '../config/cloudbase-init-conf';

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

/** The conf section options a service's datasource takes as its settings ([ovf], [vmwareguestinfo]); {} for the others. */
export function serviceSettings(datasource: string, conf: CloudbaseConf): Record<string, unknown> {
  const section = datasource === 'OVF' ? 'ovf' : datasource === 'VMware' ? 'vmwareguestinfo' : undefined;
  if (!section) return {};
  const keys = section === 'ovf' ? ['config_file_name', 'drive_label', 'ns'] : ['vmware_rpctool_path'];
  return Object.fromEntries(keys.map((k) => [k, conf.str(k, section)]).filter(([, v]) => v !== undefined));
}
