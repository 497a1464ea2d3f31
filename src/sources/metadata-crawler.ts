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
 * A leaf as cloud-init's MetadataLeafDecoder reads it: '' when empty, a parsed object when the text looks like a
 * JSON object (and is one), a list of lines when it has several, else the text itself.
 */
export function decodeMetadataLeaf(text: string): unknown {
  if (!text) return '';
  const t = text.trim();
  if (t.startsWith('{') && t.endsWith('}')) {
    try {
      return JSON.parse(t) as unknown;
    } catch {
      /* not JSON after all: kept as text, as cloud-init does */
    }
  }
  if (!text.includes('\n')) return text;
  const lines = text.split(/\r\n|\r|\n/);
  // Python's splitlines: a final line break ends the last line, it does not start an empty one.
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Crawls PREFIX ('2021-03-23/meta-data/') into nested objects with leaves decoded as cloud-init's materializer
 * does (decodeMetadataLeaf). A public-key index line '0=name' becomes name → the decoded `0/openssh-key`, and
 * `security-credentials` is never fetched (cloud-init does not materialize credentials either).
 */
export async function crawlMetadataTree(
  source: string,
  get: MetadataGet,
  prefix: string,
  limits: CrawlLimits = { maxRequests: 2000, maxDepth: 12 },
): Promise<Record<string, unknown>> {
  let requests = 0;
  const fetch = async (path: string): Promise<string | undefined> => {
    if (++requests > limits.maxRequests)
      throw new SourceError(
        source,
        `metadata tree under ${prefix} needs more than ${limits.maxRequests} requests; refusing to crawl further`,
      );
    return get(path);
  };
  const walk = async (path: string, depth: number): Promise<Record<string, unknown>> => {
    if (depth > limits.maxDepth)
      throw new SourceError(
        source,
        `metadata tree under ${prefix} is deeper than ${limits.maxDepth} levels (at ${path})`,
      );
    const listing = await fetch(path);
    const out: Record<string, unknown> = {};
    if (listing === undefined) return out;
    for (const raw of listing.split('\n')) {
      const line = raw.trim();
      if (!line || line === '/' || line.replace(/\/$/, '') === 'security-credentials') continue;
      const eq = line.indexOf('=');
      if (line.endsWith('/')) {
        out[line.slice(0, -1)] = await walk(`${path}${line}`, depth + 1);
      } else if (eq > 0 && /^\d+$/.test(line.slice(0, eq))) {
        // '0=my-key': the key's text is at 0/openssh-key, named after '='
        const value = await fetch(`${path}${line.slice(0, eq)}/openssh-key`);
        if (value !== undefined) out[line.slice(eq + 1)] = decodeMetadataLeaf(value);
      } else {
        const value = await fetch(`${path}${line}`);
        if (value !== undefined) out[line] = decodeMetadataLeaf(value);
      }
    }
    return out;
  };
  return walk(prefix, 0);
}

/** Every OpenSSH key in a crawled `public-keys` subtree. */
export function ec2PublicKeys(meta: Record<string, unknown>): string[] {
  const keys: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string')
      keys.push(
        ...v
          .split('\n')
          .map((s) => s.trim())
          .filter((s) => s && !s.startsWith('#')),
      );
    else if (Array.isArray(v)) v.forEach(add);
    else if (v && typeof v === 'object') Object.values(v).forEach(add);
  };
  add(meta['public-keys']);
  return [...new Set(keys)];
}
