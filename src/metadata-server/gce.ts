// The GCE metadata server's request rules for the mock: the Metadata-Flavor header, computeMetadata/v1 paths, recursive JSON, guest attributes.
import { promises as fsp } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { posix } from 'node:path';

export interface GceAnswer {
  status: number;
  body: string | Uint8Array;
  headers: Record<string, string>;
}

const V1 = '/computeMetadata/v1/';
const FLAVOR = { 'metadata-flavor': 'Google' };

/**
 * Answers one request as GCE's server does: 403 without `Metadata-Flavor: Google` (or with X-Forwarded-For),
 * the folder ROOT served below /computeMetadata/v1/, folders listed one name a line (subfolders with '/'), and
 * `?recursive=true` (any case, as cloud-init sends `True`) answering a folder as one JSON object of its files.
 * PUTs below instance/guest-attributes/ are kept in GUEST (path → value) and read back by GET.
 */
export async function gceAnswer(root: string, req: IncomingMessage, url: URL, guest: Map<string, string>): Promise<GceAnswer> {
  if (req.headers['metadata-flavor'] !== 'Google') return { status: 403, body: 'Missing required header "Metadata-Flavor": "Google"\n', headers: { 'content-type': 'text/html' } };
  if (req.headers['x-forwarded-for']) return { status: 403, body: 'Request had X-Forwarded-For\n', headers: FLAVOR };
  if (!url.pathname.startsWith(V1)) return { status: 404, body: 'not found\n', headers: FLAVOR };
  const rel = decodeURIComponent(url.pathname.slice(V1.length));
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) return { status: 404, body: 'not found\n', headers: FLAVOR };
  const guestPath = parts.join('/');
  if (parts[0] === 'instance' && parts[1] === 'guest-attributes') {
    if (req.method === 'PUT') {
      guest.set(guestPath, await readBody(req));
      return { status: 200, body: '', headers: FLAVOR };
    }
    const v = guest.get(guestPath);
    if (v !== undefined) return { status: 200, body: v, headers: { ...FLAVOR, 'content-type': 'application/text' } };
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, body: 'method not allowed\n', headers: FLAVOR };
  const path = posix.join(posix.resolve(root), ...parts);
  const st = await fsp.stat(path).catch(() => undefined);
  if (!st) return { status: 404, body: 'not found\n', headers: FLAVOR };
  if (st.isFile()) return { status: 200, body: await fsp.readFile(path), headers: { ...FLAVOR, 'content-type': 'application/text' } };
  const recursive = /^true$/i.test(url.searchParams.get('recursive') ?? '');
  if (recursive) return { status: 200, body: JSON.stringify(await folderJson(path)), headers: { ...FLAVOR, 'content-type': 'application/json' } };
  const names = (await fsp.readdir(path)).sort();
  const lines = await Promise.all(names.map(async (n) => ((await fsp.stat(posix.join(path, n))).isDirectory() ? `${n}/` : n)));
  return { status: 200, body: `${lines.join('\n')}\n`, headers: { ...FLAVOR, 'content-type': 'application/text' } };
}

/** A folder as GCE's recursive JSON: files as strings, subfolders as objects. */
async function folderJson(dir: string): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of (await fsp.readdir(dir)).sort()) {
    const p = posix.join(dir, name);
    out[name] = (await fsp.stat(p)).isDirectory() ? await folderJson(p) : await fsp.readFile(p, 'utf8');
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > 256 * 1024) req.destroy(new Error('guest attribute over 256 KiB'));
      else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
