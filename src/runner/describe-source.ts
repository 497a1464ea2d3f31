// How cloud-init names the datasource it found, in status.json and the instance's `datasource` file.
import type { InstanceData } from '../sources/datasource';

/** 'DataSourceNoCloud [seed=…]', the description cloud-init writes into status.json and `datasource` files. */
export function describeSource(name: string, data: InstanceData): string {
  // NoCloud describes itself by its seed and dsmode in cloud-init ('[seed=/dev/sr0][dsmode=net]').
  const seed = /^(?:seed-dir|config-disk|metadata) \((.*)\)$/.exec(data.subplatform)?.[1];
  if (name === 'NoCloud' && seed !== undefined) {
    const dsmode = typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net';
    return `DataSourceNoCloud [seed=${seed}][dsmode=${dsmode}]`;
  }
  return `DataSource${name} [${data.subplatform}]`;
}
