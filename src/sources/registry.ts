// Every datasource kiln knows, in cloud-init's default datasource_list order, and every cloudbase-init metadata service
// (explicit lists, no side-effect registration).
import { akamaiSource } from './akamai';
import { aliYunSource } from './aliyun';
import { altCloudSource } from './altcloud';
import { azureSource } from './azure/azure';
import { bigstepSource } from './bigstep';
import { cloudCixSource } from './cloudcix';
import { cloudSigmaSource } from './cloudsigma';
import { cloudbaseAzureService } from './azure/cloudbase-azure-service';
import { cloudbaseCloudStackService } from './cloudbase-cloudstack-service';
import { cloudbaseGceService } from './cloudbase-gce-service';
import { metadataBaseUrlSettings, sourceService, type CloudbaseMetadataService } from './cloudbase-metadata-service';
import { cloudbasePacketService } from './cloudbase-packet-service';
import { cloudStackSource } from './cloudstack';
import { configDriveSource } from './config-drive';
import type { NetworkFormat } from '../net/network-format';
import type { Datasource } from './datasource';
import { digitalOceanSource } from './digitalocean/digitalocean';
import { ec2Source } from './ec2/ec2';
import { exoscaleSource } from './exoscale';
import { gceSource } from './gce';
import { hetznerSource } from './hetzner/hetzner';
import { ibmCloudSource } from './ibmcloud';
import { lxdSource } from './lxd/lxd';
import { cloudbaseMaasService } from './maas/cloudbase-maas-service';
import { maasSource } from './maas/maas';
import { noCloudSource } from './nocloud';
import { noneSource } from './none';
import { nwcsSource } from './nwcs';
import { cloudbaseOpenNebulaService } from './opennebula/cloudbase-opennebula-service';
import { openNebulaSource } from './opennebula/opennebula';
import { openStackSource } from './openstack';
import { oracleSource } from './oracle/oracle';
import { cloudbaseOvfService } from './ovf/cloudbase-ovf-service';
import { ovfSource } from './ovf/ovf-source';
import { packetSource } from './packet';
import { rbxCloudSource } from './rbxcloud';
import { scalewaySource } from './scaleway/scaleway';
import { smartOsSource } from './smartos/smartos';
import { upCloudSource } from './upcloud/upcloud';
import { cloudbaseGuestinfoService } from './vmware/cloudbase-guestinfo-service';
import { vmwareSource } from './vmware/vmware-source';
import { vultrSource } from './vultr/vultr';
import { wslSource } from './wsl/wsl';

export const DATASOURCES: readonly Datasource[] = [
  noCloudSource,
  configDriveSource,
  lxdSource,
  openNebulaSource,
  digitalOceanSource,
  azureSource,
  altCloudSource,
  ovfSource,
  maasSource,
  gceSource,
  openStackSource,
  aliYunSource,
  vultrSource,
  ec2Source,
  cloudSigmaSource,
  cloudStackSource,
  smartOsSource,
  bigstepSource,
  scalewaySource,
  hetznerSource,
  ibmCloudSource,
  oracleSource,
  exoscaleSource,
  rbxCloudSource,
  upCloudSource,
  vmwareSource,
  nwcsSource,
  akamaiSource,
  wslSource,
  cloudCixSource,
  noneSource,
];

/**
 * Sources only the Windows face (cloudbase-init's metadata services) uses: cloud-init has no such source, so
 * they are never in the Linux detection order or reachable by a datasource_list name.
 */
export const WINDOWS_ONLY_SOURCES: readonly Datasource[] = [packetSource];

/**
 * cloudbase-init's metadata services, each named by its class path and reading through its cloud's datasource
 * (a service whose behaviour is the cloud-init source's wraps it; a dialect of its own lives beside the source).
 */
export const CLOUDBASE_SERVICES: readonly CloudbaseMetadataService[] = [
  sourceService('httpservice.HttpService', 'OpenStack', {
    routeSection: 'openstack',
    settings: metadataBaseUrlSettings('openstack'),
  }),
  sourceService('configdrive.ConfigDriveService', 'ConfigDrive'),
  sourceService('nocloudservice.NoCloudConfigDriveService', 'NoCloud'),
  sourceService('ec2service.EC2Service', 'Ec2', { routeSection: 'ec2', settings: metadataBaseUrlSettings('ec2') }),
  cloudbaseMaasService,
  cloudbaseCloudStackService,
  cloudbaseOpenNebulaService,
  cloudbaseGceService,
  cloudbaseAzureService,
  cloudbaseOvfService,
  cloudbasePacketService,
  cloudbaseGuestinfoService,
  sourceService('base.EmptyMetadataService', 'None'),
];

/**
 * The source named NAME, compared as cloud-init does (case-insensitively; 'NoCloudNet' and 'ConfigDrive2' style aliases
 * included).
 */
export function datasourceByName(name: string, sources: readonly Datasource[] = DATASOURCES): Datasource | undefined {
  const key = name.trim().toLowerCase().replace(/[-_]/g, '');
  const alias: Record<string, string> = {
    nocloudnet: 'nocloud',
    configdrive2: 'configdrive',
    openstacklocal: 'openstack',
    ec2local: 'ec2',
    aws: 'ec2',
    gcelocal: 'gce',
    upcloudlocal: 'upcloud',
    akamailocal: 'akamai',
  };
  const wanted = alias[key] ?? key;
  return sources.find((s) => s.name.toLowerCase() === wanted);
}

/** The network format a source registers under NAME (InstanceData.networkConfig.format), from either list. */
export function networkFormatByName(name: string): NetworkFormat | undefined {
  return [...DATASOURCES, ...WINDOWS_ONLY_SOURCES].find((s) => s.networkFormat?.name === name)?.networkFormat;
}
