// Saves the InstanceData a source returned as instances/<iid>/obj.json and restores it (cloud-init's obj.pkl).
// The user-data and vendor-data blobs are not copied into it: they are already on disk beside it, raw, as
// user-data.txt and vendor-data(2).txt, so obj.json names each by its size and SHA-256. A 50 MB user data
// then costs one copy in memory, not a base64 string and a JSON string of it on top.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';
import type { FoundInStage } from './describe-source';

export const CACHE_FILE = 'obj.json';

interface CachedInstance {
  version: 2;
  source: string;
  /** The stage that found the source (cloud-init's pickle keeps its class: DataSourceEc2Local or DataSourceEc2). */
  stage?: FoundInStage;
  data: Record<string, unknown>;
}

/** The blobs kept in files of their own beside obj.json (the files instancify writes). */
export const BLOB_FILES = {
  userData: 'user-data.txt',
  vendorData: 'vendor-data.txt',
  vendorData2: 'vendor-data2.txt',
} as const;
type BlobKey = keyof typeof BLOB_FILES;

interface BlobRef {
  file: string;
  bytes: number;
  sha256: string;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A cached instance: the source's name, the stage that found it (when the cache says), what it returned. */
export interface CachedSource {
  source: string;
  stage?: FoundInStage;
  data: InstanceData;
}

export function serializeInstance(source: string, data: InstanceData, stage?: FoundInStage): string {
  const copy: Record<string, unknown> = { ...data };
  for (const [k, file] of Object.entries(BLOB_FILES) as Array<[BlobKey, string]>) {
    const bytes = data[k];
    if (bytes) copy[k] = { file, bytes: bytes.length, sha256: sha256(bytes) } satisfies BlobRef;
  }
  if (data.files)
    copy.files = data.files.map((f) => ({ path: f.path, base64: Buffer.from(f.content).toString('base64') }));
  const cached: CachedInstance = { version: 2, source, ...(stage ? { stage } : {}), data: copy };
  return `${JSON.stringify(cached)}\n`;
}

/**
 * The instance in TEXT (obj.json), its blobs read through READ BLOB (a file name beside it → bytes, undefined
 * when missing). Undefined when the cache cannot be trusted: unreadable, of another version, or a blob that is
 * missing or not the one it names (a crash between the writes, an edited file): the source is crawled again.
 */
export async function deserializeInstance(
  text: string,
  readBlob: (file: string) => Promise<Uint8Array | undefined>,
): Promise<CachedSource | undefined> {
  let parsed: CachedInstance;
  try {
    parsed = JSON.parse(text) as CachedInstance;
  } catch {
    return undefined; // a cache that is not JSON is not used: the source is crawled again (see above)
  }
  if (parsed?.version !== 2 || typeof parsed.source !== 'string' || typeof parsed.data?.instanceId !== 'string')
    return undefined;
  const data = { ...parsed.data } as Record<string, unknown>;
  for (const [k, file] of Object.entries(BLOB_FILES) as Array<[BlobKey, string]>) {
    const ref = data[k] as BlobRef | undefined;
    if (ref === undefined) continue;
    if (ref.file !== file) return undefined;
    const bytes = await readBlob(file);
    if (!bytes || bytes.length !== ref.bytes || sha256(bytes) !== ref.sha256) return undefined;
    data[k] = bytes;
  }
  if (Array.isArray(data.files)) {
    data.files = (data.files as Array<{ path: string; base64: string }>).map((f) => ({
      path: f.path,
      content: new Uint8Array(Buffer.from(f.base64, 'base64')),
    }));
  }
  const stage = parsed.stage === 'local' || parsed.stage === 'network' ? parsed.stage : undefined;
  return { source: parsed.source, ...(stage ? { stage } : {}), data: data as unknown as InstanceData };
}

/** The cached instance behind /var/lib/cloud/instance, or undefined (no link, no cache, unreadable cache). */
export async function restoreInstance(platform: Platform, instanceLink: string): Promise<CachedSource | undefined> {
  const text = await platform.readTextIfExists(posix.join(instanceLink, CACHE_FILE));
  if (text === undefined) return undefined;
  return deserializeInstance(text, async (file) => {
    const path = posix.join(instanceLink, file);
    return (await platform.exists(path)) ? platform.readFile(path) : undefined;
  });
}
