// The request rules of LXD's devlxd API (/dev/lxd/sock) for the mock metadata server, answered from a folder.
import { promises as fsp } from 'node:fs';
import { posix } from 'node:path';

/**
 * The folder layout (docs/datasources.md): `meta-data` (the text LXD serves at /1.0/meta-data), `config/<key>`
 * (one file per instance config key, e.g. `config/user.user-data`, `config/cloud-init.network-config`),
 * `devices.json` (the /1.0/devices map; absent: 404, as an LXD older than the devices API answers) and
 * `instance.json` (the /1.0 document; a started container by default).
 */
export interface LxdAnswer {
  status: number;
  body: string | Uint8Array;
  contentType: string;
}

const JSON_TYPE = 'application/json';
const NOT_FOUND: LxdAnswer = { status: 404, body: 'not found\n', contentType: 'text/plain' };

async function readIfFile(path: string): Promise<Uint8Array | undefined> {
  const st = await fsp.stat(path).catch(() => undefined);
  return st?.isFile() ? fsp.readFile(path) : undefined;
}

/** What devlxd answers to a GET of PATH, read from the folder ROOT. */
export async function lxdAnswer(root: string, path: string): Promise<LxdAnswer> {
  const route = path.replace(/\/+$/, '');
  if (route === '') return { status: 200, body: JSON.stringify(['/1.0']), contentType: JSON_TYPE };
  if (route === '/1.0') {
    const doc = await readIfFile(posix.join(root, 'instance.json'));
    return { status: 200, body: doc ?? JSON.stringify({ api_version: '1.0', location: 'kiln-mock', instance_type: 'container', state: 'Started' }), contentType: JSON_TYPE };
  }
  if (route === '/1.0/meta-data') {
    const text = await readIfFile(posix.join(root, 'meta-data'));
    return text ? { status: 200, body: text, contentType: 'text/plain' } : NOT_FOUND;
  }
  if (route === '/1.0/config') {
    const keys = (await fsp.readdir(posix.join(root, 'config')).catch(() => [] as string[])).sort();
    return { status: 200, body: JSON.stringify(keys.map((k) => `/1.0/config/${k}`)), contentType: JSON_TYPE };
  }
  const key = /^\/1\.0\/config\/([^/]+)$/.exec(route)?.[1];
  if (key !== undefined) {
    const name = decodeURIComponent(key);
    if (name === '.' || name === '..' || name.includes('/')) return NOT_FOUND;
    const value = await readIfFile(posix.join(root, 'config', name));
    return value ? { status: 200, body: value, contentType: 'text/plain' } : NOT_FOUND;
  }
  if (route === '/1.0/devices') {
    const doc = await readIfFile(posix.join(root, 'devices.json'));
    return doc ? { status: 200, body: doc, contentType: JSON_TYPE } : NOT_FOUND;
  }
  return NOT_FOUND;
}
