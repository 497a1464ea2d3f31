// Hetzner Cloud's metadata service as `devel serve-metadata --kind hetzner` answers it: one YAML document whose keys
// are also paths, and 204 for no user data.
import { pyyamlDump } from '../../config/pyyaml-dump';
import { readYaml } from '../../config/read-yaml';
import type { HttpMockService, MockAnswer, MockFiles } from '../mock-service';
import { describeError } from '../../util/errors';

const API = '/hetzner/v1';

/**
 * The folder holds `hetzner/v1/metadata` (the YAML document) and `hetzner/v1/userdata`. As the real service:
 * `metadata/KEY[/KEY…]` answers with that key of the document (scalars as text, the rest as YAML; 404 when
 * absent), and an empty or missing `userdata` is 204 No Content. Anything else falls to the plain tree.
 */
async function hetznerAnswer(files: MockFiles, path: string): Promise<MockAnswer | undefined> {
  if (path === `${API}/userdata` || path === `${API}/userdata/`) {
    const body = await files.read('hetzner/v1/userdata');
    return body && body.length > 0 ? { status: 200, body } : { status: 204, body: '' };
  }
  if (!path.startsWith(`${API}/metadata/`)) return undefined;
  const doc = await files.read('hetzner/v1/metadata');
  if (!doc) return undefined;
  let value: unknown;
  try {
    value = readYaml(Buffer.from(doc).toString('utf8'), 'hetzner/v1/metadata');
  } catch (err) {
    return { status: 500, body: `the mock's hetzner/v1/metadata is not YAML: ${describeError(err)}\n` };
  }
  for (const key of path.slice(`${API}/metadata/`.length).split('/').filter(Boolean).map(decodeURIComponent)) {
    if (!value || typeof value !== 'object' || Array.isArray(value) || !(key in value))
      return { status: 404, body: 'not found\n' };
    value = (value as Record<string, unknown>)[key];
  }
  if (value === null || typeof value !== 'object') return { status: 200, body: value === null ? '' : String(value) };
  return { status: 200, body: pyyamlDump(value, false) };
}

export const hetznerMock: HttpMockService = {
  kind: 'hetzner',
  transport: 'http',
  answers: () => ({ readOnly: (req) => hetznerAnswer(req.files, req.path) }),
};
