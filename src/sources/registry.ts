// Every datasource kiln knows, in cloud-init's default datasource_list order (one explicit list, no side-effect registration).
import { akamaiSource } from './akamai';
import { azureSource } from './azure/azure';
import { cloudCixSource } from './cloudcix';
import { configDriveSource } from './config-drive';
import type { Datasource } from './datasource';
import { digitalOceanSource } from './digitalocean';
import { ec2Source } from './ec2';
import { lxdSource } from './lxd/lxd';
import { maasSource } from './maas/maas';
import { hetznerSource } from './hetzner';
import { ibmCloudSource } from './ibmcloud';
import { gceSource } from './gce';
import { noCloudSource } from './nocloud';
import { noneSource } from './none';
import { openStackSource } from './openstack';
import { oracleSource } from './oracle';
import { ovfSource } from './ovf/ovf-source';
import { scalewaySource } from './scaleway/scaleway';
import { upCloudSource } from './upcloud';
import { vultrSource } from './vultr';
import { vmwareSource } from './vmware/vmware-source';

export const DATASOURCES: readonly Datasource[] = [noCloudSource, configDriveSource, lxdSource, digitalOceanSource, azureSource, ovfSource, maasSource, gceSource, openStackSource, vultrSource, ec2Source, scalewaySource, hetznerSource, ibmCloudSource, oracleSource, upCloudSource, vmwareSource, akamaiSource, cloudCixSource, noneSource];

/** The source named NAME, compared as cloud-init does (case-insensitively; 'NoCloudNet' and 'ConfigDrive2' style aliases included). */
export function datasourceByName(name: string, sources: readonly Datasource[] = DATASOURCES): Datasource | undefined {
  const key = name.trim().toLowerCase().replace(/[-_]/g, '');
  const alias: Record<string, string> = { nocloudnet: 'nocloud', configdrive2: 'configdrive', openstacklocal: 'openstack', ec2local: 'ec2', aws: 'ec2', gcelocal: 'gce', upcloudlocal: 'upcloud', akamailocal: 'akamai' };
  const wanted = alias[key] ?? key;
  return sources.find((s) => s.name.toLowerCase() === wanted);
}
