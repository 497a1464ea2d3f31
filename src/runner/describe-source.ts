// How cloud-init names the datasource it found, in status.json and the instance's `datasource` file.
import type { InstanceData } from '../sources/datasource';

/** The sources cloud-init names by class alone in status.json and `datasource` (checked against 22.4's classes). */
const BARE_DESCRIPTIONS = new Set(['LXD']);

/** 'DataSourceNoCloud [seed=…]', the description cloud-init writes into status.json and `datasource` files. */
export function describeSource(name: string, data: InstanceData): string {
  // NoCloud describes itself by its seed and dsmode in cloud-init ('[seed=/dev/sr0][dsmode=net]').
  const seed = /^(?:seed-dir|config-disk|metadata) \((.*)\)$/.exec(data.subplatform)?.[1];
  if (name === 'NoCloud' && seed !== undefined) {
    const dsmode = typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net';
    return `DataSource${data.sourceClass ?? 'NoCloud'} [seed=${seed}][dsmode=${dsmode}]`;
  }
  // Sources whose cloud-init class keeps the base DataSource.__str__: the class name alone.
  if (BARE_DESCRIPTIONS.has(name)) return `DataSource${name}`;
  return `DataSource${data.sourceClass ?? name} [${data.subplatform}]`;
}
