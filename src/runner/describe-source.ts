// How cloud-init names the datasource it found, in status.json and the instance's `datasource` file: each source
// says what differs from the default (its class per stage, its own __str__); the defaults are here.
import type { InstanceData } from '../sources/datasource';
import { DATASOURCES, WINDOWS_ONLY_SOURCES, datasourceByName } from '../sources/registry';

/**
 * Which stage found the source: cloud-init's class differs (DataSourceEc2Local in init-local, DataSourceEc2 in init).
 */
export type FoundInStage = 'local' | 'network';

const ALL_SOURCES = [...DATASOURCES, ...WINDOWS_ONLY_SOURCES];

/** cloud-init's class name for source NAME found in STAGE ('DataSourceEc2Local'), for status.json and `datasource`. */
export function sourceClassName(name: string, stage: FoundInStage): string {
  return `DataSource${datasourceByName(name, ALL_SOURCES)?.classNames?.[stage] ?? name}`;
}

/**
 * str(datasource) as cloud-init writes it into status.json and the `datasource` files: the class name alone
 * (the base DataSource.__str__) unless the source describes itself (its class has its own __str__).
 */
export function describeSource(name: string, data: InstanceData, stage: FoundInStage = 'local'): string {
  const cls = sourceClassName(name, stage);
  return datasourceByName(name, ALL_SOURCES)?.describe?.(data, cls) ?? cls;
}
