// Walks an EC2-style metadata tree over HTTP (listings with 'dir/' entries, '0=name' key indexes) into nested objects.
import { SourceError } from './source-error';

/** GETs a path below the tree root; undefined for 404. */
export type MetadataGet = (path: string) => Promise<string | undefined>;

export interface CrawlLimits {
  /** Requests allowed for the whole tree (a hostile or broken server cannot make us crawl forever). */
  maxRequests: number;
  maxDepth: number;
}

/**
 * Crawls PREFIX ('2021-03-23/meta-data/'), returning leaves as text. Public-key indexes ('0=name') become
 * { name: { 'openssh-key': [lines] } } like cloud-init's materializer.
 */
export async function crawlMetadataTree(source: string, get: MetadataGet, prefix: string, limits: CrawlLimits = { maxRequests: 2000, maxDepth: 12 }): Promise<Record<string, unknown>> {
  let requests = 0;
  const fetch = async (path: string): Promise<string | undefined> => {
    if (++requests > limits.maxRequests) throw new SourceError(source, `metadata tree under ${prefix} needs more than ${limits.maxRequests} requests; refusing to crawl further`);
    return get(path);
  };
  const walk = async (path: string, depth: number): Promise<Record<string, unknown>> => {
    if (depth > limits.maxDepth) throw new SourceError(source, `metadata tree under ${prefix} is deeper than ${limits.maxDepth} levels (at ${path})`);
    const listing = await fetch(path);
    const out: Record<string, unknown> = {};
    if (listing === undefined) return out;
    for (const raw of listing.split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      const eq = line.indexOf('=');
      if (eq > 0 && !line.endsWith('/')) {
        // '0=my-key': the name is after '=', the folder is the index before it
        const index = line.slice(0, eq);
        out[line.slice(eq + 1)] = await walkKeyFolder(`${path}${index}/`, depth + 1);
      } else if (line.endsWith('/')) {
        out[line.slice(0, -1)] = await walk(`${path}${line}`, depth + 1);
      } else {
        const value = await fetch(`${path}${line}`);
        if (value !== undefined) out[line] = value;
      }
    }
    return out;
  };
  const walkKeyFolder = async (path: string, depth: number): Promise<Record<string, unknown>> => {
    const tree = await walk(path, depth);
    for (const [k, v] of Object.entries(tree)) if (typeof v === 'string') tree[k] = v.split('\n').map((s) => s.trim()).filter(Boolean);
    return tree;
  };
  return walk(prefix, 0);
}

/** Every OpenSSH key in a crawled `public-keys` subtree. */
export function ec2PublicKeys(meta: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string') keys.push(...v.split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('#')));
    else if (Array.isArray(v)) v.forEach(add);
    else if (v && typeof v === 'object') Object.values(v).forEach(add);
  };
  add(meta['public-keys']);
  return [...new Set(keys)];
}
