// What the sources' descriptions of themselves (cloud-init's DataSource.__str__) read from their instance data.
import type { InstanceData } from './datasource';

/** What a subplatform such as 'seed-dir (/var/lib/cloud/seed/azure)' names in its parentheses, else all of it. */
export function subplatformSource(data: InstanceData): string {
  return /^[\w/-]+ \((.*)\)$/.exec(data.subplatform)?.[1] ?? data.subplatform;
}

/** The metadata's dsmode, cloud-init's default `net` when it gives none. */
export const dsmodeOf = (data: InstanceData): string =>
  typeof data.metadata.dsmode === 'string' ? data.metadata.dsmode : 'net';
