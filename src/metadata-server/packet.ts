// The Equinix Metal (Packet) metadata service's rules for the mock: metadata (JSON, its phone_home_url pointing back here), userdata, and the phone-home endpoint that takes the password and the "ready" call.
import { promises as fsp } from 'node:fs';
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
 * ROOT holds `metadata` (JSON; `{{url}}` in it becomes this server's URL, so `phone_home_url` can be
 * `{{url}}/phone-home`), `userdata` (absent: 404) and `phone-home-key` (the public key the password is encrypted
 * with, answered at `/phone-home/key`). A POST to `/phone-home` is accepted (the password as
 * `{"password": …}`, or an empty body: provisioning done) and recorded by the server with its body.
 */
export async function packetAnswer(root: string, method: string, path: string, selfUrl: string): Promise<KindAnswer> {
  if (method === 'POST') return path === '/phone-home' ? { status: 200, body: '' } : { status: 404, body: 'not found\n' };
  if (method !== 'GET') return { status: 405, body: 'method not allowed\n' };
  if (path === '/metadata') {
    const doc = await readIfFile(posix.join(root, 'metadata'));
    return doc ? { status: 200, body: doc.toString('utf8').replaceAll('{{url}}', selfUrl), headers: { 'content-type': 'application/json' } } : { status: 404, body: 'not found\n' };
  }
  const file = path === '/userdata' ? 'userdata' : path === '/phone-home/key' ? 'phone-home-key' : undefined;
  const body = file ? await readIfFile(posix.join(root, file)) : undefined;
  return body ? { status: 200, body } : { status: 404, body: 'not found\n' };
}
