// How cloud-init names the datasource it found, in status.json and the instance's `datasource` file.
import type { InstanceData } from '../sources/datasource';

/** Which stage found the source: cloud-init's class differs (DataSourceEc2Local in init-local, DataSourceEc2 in init). */
export type FoundInStage = 'local' | 'network';

/**
 * kiln source → cloud-init 22.4's class for each stage. The `*Local` classes are the ones cloud-init registers
 * with DEP_FILESYSTEM only (its `*Net` ones with DEP_NETWORK); a source registered once (Oracle, Hetzner, …) has
 * one class whichever stage finds it. `bare`: the class keeps the base DataSource.__str__, the class name alone.
 */
const CLASSES: Record<string, { local: string; network: string; bare: boolean }> = {
  LXD: { local: 'LXD', network: 'LXD', bare: true },
  Ec2: { local: 'Ec2Local', network: 'Ec2', bare: true },
  GCE: { local: 'GCELocal', network: 'GCE', bare: true },
  DigitalOcean: { local: 'DigitalOcean', network: 'DigitalOcean', bare: true },
  Hetzner: { local: 'Hetzner', network: 'Hetzner', bare: true },
  Oracle: { local: 'Oracle', network: 'Oracle', bare: true },
  VMware: { local: 'VMware', network: 'VMware', bare: true },
  None: { local: 'None', network: 'None', bare: true },
  NoCloud: { local: 'NoCloud', network: 'NoCloudNet', bare: false },
  OpenStack: { local: 'OpenStackLocal', network: 'OpenStack', bare: false },
  OVF: { local: 'OVF', network: 'OVFNet', bare: false },
};

/** cloud-init's class name for source NAME found in STAGE ('DataSourceEc2Local'), for status.json and `datasource`. */
export function sourceClassName(name: string, stage: FoundInStage): string {
  return `DataSource${CLASSES[name]?.[stage] ?? name}`;
}

/** 'DataSourceNoCloud [seed=…]', the description cloud-init writes into status.json and `datasource` files. */
export function describeSource(name: string, data: InstanceData, stage: FoundInStage = 'local'): string {
  const cls = sourceClassName(name, stage);
  // NoCloud describes itself by its seed and dsmode in cloud-init ('[seed=/dev/sr0][dsmode=net]').
  const seed = /^(?:seed-dir|config-disk|metadata) \((.*)\)$/.exec(data.subplatform)?.[1];
  if (name === 'NoCloud' && seed !== undefined) {
    const dsmode = typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net';
    return `${cls} [seed=${seed}][dsmode=${dsmode}]`;
  }
  if (CLASSES[name]?.bare) return cls;
  // Azure and OVF: the seed their subplatform names ('seed-dir (/var/lib/cloud/seed/azure)', 'imds (IMDS)').
  if (name === 'Azure' || name === 'OVF') return `${cls} [seed=${/^[\w-]+ \((.*)\)$/.exec(data.subplatform)?.[1] ?? data.subplatform}]`;
  // OpenStack: its dsmode and the metadata version it read (kiln reads only the openstack/ tree: version 2).
  if (name === 'OpenStack') return `${cls} [${typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net'},ver=2]`;
  return `${cls} [${data.subplatform}]`;
}
