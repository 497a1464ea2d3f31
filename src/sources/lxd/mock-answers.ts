// LXD's devlxd API (/dev/lxd/sock) as `devel serve-metadata --kind lxd --socket PATH` answers it, from a folder.
import type { HttpMockService, MockAnswer, MockFiles } from '../mock-service';

/*
 * The folder layout (docs/datasources.md): `meta-data` (the text LXD serves at /1.0/meta-data), `config/<key>`
 * (one file per instance config key, e.g. `config/user.user-data`, `config/cloud-init.network-config`),
 * `devices.json` (the /1.0/devices map; absent: 404, as an LXD older than the devices API answers) and
 * `instance.json` (the /1.0 document; a started container by default).
 */

const JSON_TYPE = { 'content-type': 'application/json' };
const TEXT_TYPE = { 'content-type': 'text/plain' };
const NOT_FOUND: MockAnswer = { status: 404, body: 'not found\n', headers: TEXT_TYPE };

/** What devlxd answers to a GET of PATH. */
async function lxdAnswer(files: MockFiles, path: string): Promise<MockAnswer> {
  const route = path.replace(/\/+$/, '');
  if (route === '') return { status: 200, body: JSON.stringify(['/1.0']), headers: JSON_TYPE };
  if (route === '/1.0') {
    const doc = await files.read('instance.json');
    return {
      status: 200,
      body:
        doc ??
        JSON.stringify({ api_version: '1.0', location: 'kiln-mock', instance_type: 'container', state: 'Started' }),
      headers: JSON_TYPE,
    };
  }
  if (route === '/1.0/meta-data') {
    const text = await files.read('meta-data');
    return text ? { status: 200, body: text, headers: TEXT_TYPE } : NOT_FOUND;
  }
  if (route === '/1.0/config') {
    const keys = ((await files.list('config')) ?? []).map((e) => e.name);
    return { status: 200, body: JSON.stringify(keys.map((k) => `/1.0/config/${k}`)), headers: JSON_TYPE };
  }
  const key = /^\/1\.0\/config\/([^/]+)$/.exec(route)?.[1];
  if (key !== undefined) {
    const name = decodeURIComponent(key);
    if (name === '.' || name === '..' || name.includes('/')) return NOT_FOUND;
    const value = await files.read(`config/${name}`);
    return value ? { status: 200, body: value, headers: TEXT_TYPE } : NOT_FOUND;
  }
  if (route === '/1.0/devices') {
    const doc = await files.read('devices.json');
    return doc ? { status: 200, body: doc, headers: JSON_TYPE } : NOT_FOUND;
  }
  return NOT_FOUND;
}

export const lxdMock: HttpMockService = {
  kind: 'lxd',
  transport: 'http-socket',
  socketHint: 'ROOT/dev/lxd/sock',
  socketUrl: 'http://lxd',
  answers: () => ({ readOnly: (req) => lxdAnswer(req.files, req.path) }),
};
