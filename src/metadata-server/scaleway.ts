// The Scaleway metadata service's rules for the mock: conf?format=json from the tree, and user and vendor data only to clients whose source port is privileged (< 1024), 404 when unset.
import { promises as fsp } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { posix } from 'node:path';
import type { KindAnswer } from './hetzner';

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    return (await fsp.stat(path)).isFile() ? await fsp.readFile(path) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ROOT holds `conf.json` (the instance metadata), `user_data/cloud-init` and `vendor_data/cloud-init`. As the
 * real service: `/conf?format=json` is the JSON document; `/user_data/…` and `/vendor_data/…` answer 403 to a
 * client whose source port is 1024 or above (the proof that root asks) and 404 when the data is not set.
 */
export async function scalewayAnswer(root: string, req: IncomingMessage, url: URL): Promise<KindAnswer | undefined> {
  const path = url.pathname;
  if (path === '/conf') {
    if (url.searchParams.get('format') !== 'json') return { status: 400, body: 'the mock serves /conf?format=json only\n' };
    const doc = await readIfFile(posix.join(root, 'conf.json'));
    return doc ? { status: 200, body: doc, headers: { 'content-type': 'application/json' } } : { status: 404, body: 'not found\n' };
  }
  const m = /^\/(user_data|vendor_data)\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  const port = req.socket.remotePort ?? 65535;
  if (port >= 1024) return { status: 403, body: `${m[1]} is only served to a privileged source port (< 1024); this request came from port ${port}\n` };
  const body = await readIfFile(posix.join(root, m[1] as string, m[2] as string));
  return body ? { status: 200, body } : { status: 404, body: `no ${m[1]} set\n` };
}
