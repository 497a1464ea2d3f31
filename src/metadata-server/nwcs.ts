// The NWCS metadata service's rules for the mock: api/v1/metadata as one JSON document, and its keys as plain-text paths below it (the DHCP connectivity check reads metadata/instance-id).
import { promises as fsp } from 'node:fs';
import { posix } from 'node:path';
import type { KindAnswer } from './hetzner';

const DOC = '/api/v1/metadata';

/**
 * ROOT holds `api/v1/metadata` (JSON). It is served as `application/json`; `api/v1/metadata/KEY[/KEY…]` answers
 * with that part of it (scalars as text, the rest as JSON; 404 when absent). Anything else falls to the tree.
 */
export async function nwcsAnswer(root: string, path: string): Promise<KindAnswer | undefined> {
  if (path !== DOC && path !== `${DOC}/` && !path.startsWith(`${DOC}/`)) return undefined;
  let text: string;
  try {
    text = await fsp.readFile(posix.join(root, 'api/v1/metadata'), 'utf8');
  } catch {
    return undefined;
  }
  if (path === DOC || path === `${DOC}/`) return { status: 200, body: text, headers: { 'content-type': 'application/json' } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 500, body: "the mock's api/v1/metadata is not JSON\n" };
  }
  for (const key of path.slice(DOC.length + 1).split('/').filter(Boolean).map(decodeURIComponent)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && key in value) value = (value as Record<string, unknown>)[key];
    else return { status: 404, body: 'not found\n' };
  }
  if (value === null || typeof value !== 'object') return { status: 200, body: value === null ? '' : String(value) };
  return { status: 200, body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
}
