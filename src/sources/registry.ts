// Every datasource kiln knows, in cloud-init's default datasource_list order (one explicit list, no side-effect registration).
import { aliYunSource } from './aliyun';
import { azureSource } from './azure/azure';
import { cloudStackSource } from './cloudstack';
import { configDriveSource } from './config-drive';
import type { Datasource } from './datasource';
import { digitalOceanSource } from './digitalocean';
import { ec2Source } from './ec2';
import { exoscaleSource } from './exoscale';
import { lxdSource } from './lxd/lxd';
import { hetznerSource } from './hetzner';
import { gceSource } from './gce';
import { noCloudSource } from './nocloud';
import { noneSource } from './none';
import { openStackSource } from './openstack';
import { oracleSource } from './oracle';
import { ovfSource } from './ovf/ovf-source';
import { vmwareSource } from './vmware/vmware-source';

export const DATASOURCES: readonly Datasource[] = [noCloudSource, configDriveSource, lxdSource, digitalOceanSource, azureSource, ovfSource, gceSource, openStackSource, aliYunSource, ec2Source, cloudStackSource, hetznerSource, oracleSource, exoscaleSource, vmwareSource, noneSource];

/** The source named NAME, compared as cloud-init does (case-insensitively; 'NoCloudNet' and 'ConfigDrive2' style aliases included). */
export function datasourceByName(name: string, sources: readonly Datasource[] = DATASOURCES): Datasource | undefined {
  const key = name.trim().toLowerCase().replace(/[-_]/g, '');
  const alias: Record<string, string> = { nocloudnet: 'nocloud', configdrive2: 'configdrive', openstacklocal: 'openstack', ec2local: 'ec2', aws: 'ec2', gcelocal: 'gce' };
  const wanted = alias[key] ?? key;
  return sources.find((s) => s.name.toLowerCase() === wanted);
}
