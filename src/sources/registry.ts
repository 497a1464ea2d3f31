// Every datasource kiln knows, in cloud-init's default datasource_list order (one explicit list, no side-effect registration).
import { configDriveSource } from './config-drive';
import type { Datasource } from './datasource';
import { ec2Source } from './ec2';
import { noCloudSource } from './nocloud';
import { noneSource } from './none';
import { openStackSource } from './openstack';
import { oracleSource } from './oracle';

export const DATASOURCES: readonly Datasource[] = [noCloudSource, configDriveSource, openStackSource, ec2Source, oracleSource, noneSource];

/** The source named NAME, compared as cloud-init does (case-insensitively; 'NoCloudNet' and 'ConfigDrive2' style aliases included). */
export function datasourceByName(name: string, sources: readonly Datasource[] = DATASOURCES): Datasource | undefined {
  const key = name.trim().toLowerCase().replace(/[-_]/g, '');
  const alias: Record<string, string> = { nocloudnet: 'nocloud', configdrive2: 'configdrive', openstacklocal: 'openstack', ec2local: 'ec2', aws: 'ec2' };
  const wanted = alias[key] ?? key;
  return sources.find((s) => s.name.toLowerCase() === wanted);
}
