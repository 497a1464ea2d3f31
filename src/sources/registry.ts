// Every datasource kiln knows, in cloud-init's default datasource_list order (one explicit list, no side-effect registration).
import { azureSource } from './azure/azure';
import { cloudSigmaSource } from './cloudsigma';
import { configDriveSource } from './config-drive';
import type { Datasource } from './datasource';
import { digitalOceanSource } from './digitalocean';
import { ec2Source } from './ec2';
import { lxdSource } from './lxd/lxd';
import { hetznerSource } from './hetzner';
import { gceSource } from './gce';
import { noCloudSource } from './nocloud';
import { noneSource } from './none';
import { nwcsSource } from './nwcs';
import { openStackSource } from './openstack';
import { oracleSource } from './oracle';
import { smartOsSource } from './smartos/smartos';
import { ovfSource } from './ovf/ovf-source';
import { packetSource } from './packet';
import { vmwareSource } from './vmware/vmware-source';

export const DATASOURCES: readonly Datasource[] = [noCloudSource, configDriveSource, lxdSource, digitalOceanSource, azureSource, ovfSource, gceSource, openStackSource, ec2Source, cloudSigmaSource, smartOsSource, hetznerSource, oracleSource, nwcsSource, vmwareSource, noneSource];

/**
 * Sources only the Windows face (cloudbase-init's metadata services) uses: cloud-init has no such source, so
 * they are never in the Linux detection order or reachable by a datasource_list name.
 */
export const WINDOWS_ONLY_SOURCES: readonly Datasource[] = [packetSource];

/** The source named NAME, compared as cloud-init does (case-insensitively; 'NoCloudNet' and 'ConfigDrive2' style aliases included). */
export function datasourceByName(name: string, sources: readonly Datasource[] = DATASOURCES): Datasource | undefined {
  const key = name.trim().toLowerCase().replace(/[-_]/g, '');
  const alias: Record<string, string> = { nocloudnet: 'nocloud', configdrive2: 'configdrive', openstacklocal: 'openstack', ec2local: 'ec2', aws: 'ec2', gcelocal: 'gce' };
  const wanted = alias[key] ?? key;
  return sources.find((s) => s.name.toLowerCase() === wanted);
}
