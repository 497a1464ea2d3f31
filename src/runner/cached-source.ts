// The instance a previous stage or boot cached, with the source that found it: a stage's start without a search.
import type { Platform } from '../platform/platform';
import type { Datasource } from '../sources/datasource';
import { restoreInstance } from './instance-cache';
import type { FoundSource } from './runner-deps';

/** The instance cached behind INSTANCE_LINK and its source among SOURCES; undefined without a cache or that source. */
export async function restoreCachedSource(
  platform: Platform,
  instanceLink: string,
  sources: readonly Datasource[],
): Promise<FoundSource | undefined> {
  const cached = await restoreInstance(platform, instanceLink);
  const source = cached && sources.find((s) => s.name === cached.source);
  if (!cached || !source) return undefined;
  return { source, data: cached.data, ...(cached.stage ? { stage: cached.stage } : {}) };
}
