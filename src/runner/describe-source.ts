// How cloud-init names the datasource it found, in status.json and the instance's `datasource` file.
import type { InstanceData } from '../sources/datasource';

/** Which stage found the source: cloud-init's class differs (DataSourceEc2Local in init-local, DataSourceEc2 in init). */
export type FoundInStage = 'local' | 'network';

/**
 * kiln source → cloud-init 22.4's class for each stage, where it differs from `DataSource<name>`. The `*Local`
 * classes are the ones cloud-init registers with DEP_FILESYSTEM only (its `*Net` ones with DEP_NETWORK); a
 * source registered once (Oracle, Hetzner, …) has one class whichever stage finds it.
 */
const CLASSES: Record<string, { local: string; network: string }> = {
  Ec2: { local: 'Ec2Local', network: 'Ec2' },
  GCE: { local: 'GCELocal', network: 'GCE' },
  UpCloud: { local: 'UpCloudLocal', network: 'UpCloud' },
  NoCloud: { local: 'NoCloud', network: 'NoCloudNet' },
  OpenStack: { local: 'OpenStackLocal', network: 'OpenStack' },
  OVF: { local: 'OVF', network: 'OVFNet' },
};

/** cloud-init's class name for source NAME found in STAGE ('DataSourceEc2Local'), for status.json and `datasource`. */
export function sourceClassName(name: string, stage: FoundInStage): string {
  return `DataSource${CLASSES[name]?.[stage] ?? name}`;
}

/** What a subplatform such as 'seed-dir (/var/lib/cloud/seed/azure)' names in its parentheses, else all of it. */
function subplatformSource(data: InstanceData): string {
  return /^[\w/-]+ \((.*)\)$/.exec(data.subplatform)?.[1] ?? data.subplatform;
}

const dsmodeOf = (data: InstanceData): string => (typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net');

/**
 * str(datasource) as cloud-init writes it into status.json and the `datasource` files: the class name alone
 * (the base DataSource.__str__) unless the class has its own __str__, as these do. NoCloud's is 25.1's: the seed,
 * and the dsmode only when it is not the default `net` (22.4 always printed `[dsmode=…]`).
 */
export function describeSource(name: string, data: InstanceData, stage: FoundInStage = 'local'): string {
  const cls = sourceClassName(name, stage);
  const source = subplatformSource(data);
  switch (name) {
    case 'NoCloud': {
      const dsmode = dsmodeOf(data);
      return `${cls} ${source ? `[seed=${source}]` : ''}${dsmode === 'net' ? '' : `[dsmode=${dsmode}]`}`;
    }
    case 'OpenNebula':
      return `${cls} [seed=${source}][dsmode=${dsmodeOf(data)}]`;
    case 'Azure':
    case 'OVF':
      return `${cls} [seed=${source}]`;
    // AltCloud and RbxCloud print a seed they never set.
    case 'AltCloud':
    case 'RbxCloud':
      return `${cls} [seed=None]`;
    // OpenStack and ConfigDrive: the dsmode and the metadata version read (kiln reads the openstack/ tree: 2).
    case 'OpenStack':
      return `${cls} [${dsmodeOf(data)},ver=2]`;
    case 'ConfigDrive':
      return `${cls} [${dsmodeOf(data)},ver=2][source=${source}]`;
    case 'MAAS':
      return `${cls} [${source}]`;
    case 'IBMCloud':
      return `${cls} [${data.subplatform.replace(/ \((.*)\)$/, ' $1')}]`;
    case 'SmartOS':
      return `${cls} [client=${source.startsWith('/dev/') ? `JoyentMetadataSerialClient(device=${source}, timeout=60)` : `JoyentMetadataSocketClient(socketpath=${source})`}]`;
    default:
      return cls;
  }
}
