// The DigitalOcean droplet metadata service's rules for the mock: metadata/v1.json as JSON, and its keys as plain-text paths below metadata/v1/.
import { promises as fsp } from 'node:fs';
import { posix } from 'node:path';
import type { KindAnswer } from './hetzner';

/**
 * ROOT holds `metadata/v1.json`. It is served as `application/json`; `metadata/v1/KEY[/KEY…]` answers with that
 * part of it as the real service does (scalars as text, lists one item a line, objects as their key names).
 */
export async function digitalOceanAnswer(root: string, path: string): Promise<KindAnswer | undefined> {
  if (path !== '/metadata/v1.json' && !path.startsWith('/metadata/v1/')) return undefined;
  let text: string;
  try {
    text = await fsp.readFile(posix.join(root, 'metadata/v1.json'), 'utf8');
  } catch {
    return undefined;
  }
  if (path === '/metadata/v1.json') return { status: 200, body: text, headers: { 'content-type': 'application/json' } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 500, body: "the mock's metadata/v1.json is not JSON\n" };
  }
  for (const key of path.slice('/metadata/v1/'.length).split('/').filter(Boolean).map(decodeURIComponent)) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (value && typeof value === 'object' && key in value) value = (value as Record<string, unknown>)[key];
    else return { status: 404, body: 'not found\n' };
  }
  if (value === undefined) return { status: 404, body: 'not found\n' };
  if (Array.isArray(value)) return { status: 200, body: value.map((v, i) => (v && typeof v === 'object' ? `${i}/` : String(v))).join('\n') };
  if (value && typeof value === 'object') return { status: 200, body: Object.entries(value).map(([k, v]) => (v && typeof v === 'object' ? `${k}/` : k)).join('\n') };
  return { status: 200, body: value === null ? '' : String(value) };
}
