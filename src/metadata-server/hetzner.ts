// The Hetzner Cloud metadata service's rules for the mock: one YAML document whose keys are also paths, and 204 for no user data.
import { promises as fsp } from 'node:fs';
import { posix } from 'node:path';
import { pyyamlDump } from '../config/pyyaml-dump';
import { readYaml } from '../config/read-yaml';

export interface KindAnswer {
  status: number;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

const API = '/hetzner/v1';

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    return (await fsp.stat(path)).isFile() ? await fsp.readFile(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ROOT holds `hetzner/v1/metadata` (the YAML document) and `hetzner/v1/userdata`. As the real service:
 * `metadata/KEY[/KEY…]` answers with that key of the document (scalars as text, the rest as YAML; 404 when
 * absent), and an empty or missing `userdata` is 204 No Content. Anything else falls to the plain tree.
 */
export async function hetznerAnswer(root: string, path: string): Promise<KindAnswer | undefined> {
  if (path === `${API}/userdata` || path === `${API}/userdata/`) {
    const body = await readIfFile(posix.join(root, 'hetzner/v1/userdata'));
    return body && body.length > 0 ? { status: 200, body } : { status: 204, body: '' };
  }
  if (!path.startsWith(`${API}/metadata/`)) return undefined;
  const doc = await readIfFile(posix.join(root, 'hetzner/v1/metadata'));
  if (!doc) return undefined;
  let value: unknown;
  try {
    value = readYaml(doc.toString('utf8'), 'hetzner/v1/metadata');
  } catch (err) {
    return { status: 500, body: `the mock's hetzner/v1/metadata is not YAML: ${(err as Error).message}\n` };
  }
  for (const key of path.slice(`${API}/metadata/`.length).split('/').filter(Boolean).map(decodeURIComponent)) {
    if (!value || typeof value !== 'object' || Array.isArray(value) || !(key in value)) return { status: 404, body: 'not found\n' };
    value = (value as Record<string, unknown>)[key];
  }
  if (value === null || typeof value !== 'object') return { status: 200, body: value === null ? '' : String(value) };
  return { status: 200, body: pyyamlDump(value, false) };
}
