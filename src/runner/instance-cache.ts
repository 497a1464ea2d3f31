// Saves the InstanceData a source returned as instances/<iid>/obj.json and restores it (cloud-init's obj.pkl).
import { posix } from 'node:path';
import type { Platform } from '../platform/platform';
import type { InstanceData } from '../sources/datasource';

export const CACHE_FILE = 'obj.json';

interface CachedInstance {
  version: 1;
  source: string;
  data: Record<string, unknown>;
}

const BYTE_KEYS = ['userData', 'vendorData', 'vendorData2'] as const;

export function serializeInstance(source: string, data: InstanceData): string {
  const copy: Record<string, unknown> = { ...data };
  for (const k of BYTE_KEYS) if (data[k]) copy[k] = { base64: Buffer.from(data[k] as Uint8Array).toString('base64') };
  if (data.files) copy.files = data.files.map((f) => ({ path: f.path, base64: Buffer.from(f.content).toString('base64') }));
  const cached: CachedInstance = { version: 1, source, data: copy };
  return `${JSON.stringify(cached)}\n`;
}

export function deserializeInstance(text: string): { source: string; data: InstanceData } | undefined {
  let parsed: CachedInstance;
  try {
    parsed = JSON.parse(text) as CachedInstance;
  } catch {
    return undefined;
  }
  if (parsed?.version !== 1 || typeof parsed.source !== 'string' || typeof parsed.data?.instanceId !== 'string') return undefined;
  const data = { ...parsed.data } as Record<string, unknown>;
  for (const k of BYTE_KEYS) {
    const v = data[k] as { base64?: string } | undefined;
    if (v && typeof v.base64 === 'string') data[k] = new Uint8Array(Buffer.from(v.base64, 'base64'));
  }
  if (Array.isArray(data.files)) {
    data.files = (data.files as Array<{ path: string; base64: string }>).map((f) => ({ path: f.path, content: new Uint8Array(Buffer.from(f.base64, 'base64')) }));
  }
  return { source: parsed.source, data: data as unknown as InstanceData };
}

/** The cached instance behind /var/lib/cloud/instance, or undefined (no link, no cache, unreadable cache). */
export async function restoreInstance(platform: Platform, instanceLink: string): Promise<{ source: string; data: InstanceData } | undefined> {
  const text = await platform.readTextIfExists(posix.join(instanceLink, CACHE_FILE));
  return text === undefined ? undefined : deserializeInstance(text);
}
