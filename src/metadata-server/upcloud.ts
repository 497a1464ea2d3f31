// The UpCloud metadata service's rules for the mock: metadata/v1.json as JSON, and its keys as plain-text paths below metadata/v1/.
import type { KindAnswer } from './hetzner';
import { vultrAnswer } from './vultr';

/**
 * ROOT holds `metadata/v1.json`; `/metadata/v1/KEY[/KEY…]` answers with that part of it, as UpCloud's service
 * does (the same JSON-tree rules as Vultr's, one folder down).
 */
export async function upCloudAnswer(root: string, path: string): Promise<KindAnswer | undefined> {
  if (path !== '/metadata/v1.json' && !path.startsWith('/metadata/v1/')) return undefined;
  return vultrAnswer(`${root}/metadata`, path.slice('/metadata'.length));
}
