// The DigitalOcean droplet metadata service as `devel serve-metadata --kind digitalocean` answers it: metadata/v1.json
// as JSON, and its keys as plain-text paths below metadata/v1/.
import { readMockText, type HttpMockService, type MockAnswer, type MockFiles } from '../mock-service';

/**
 * The folder holds `metadata/v1.json`. It is served as `application/json`; `metadata/v1/KEY[/KEY…]` answers with that
 * part of it as the real service does (scalars as text, lists one item a line, objects as their key names).
 */
async function digitalOceanAnswer(files: MockFiles, path: string): Promise<MockAnswer | undefined> {
  if (path !== '/metadata/v1.json' && !path.startsWith('/metadata/v1/')) return undefined;
  const text = await readMockText(files, 'metadata/v1.json');
  if (text === undefined) return undefined;
  if (path === '/metadata/v1.json') return { status: 200, body: text, headers: { 'content-type': 'application/json' } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The client gets a 500 saying which file of the mock folder is broken.
    return { status: 500, body: "the mock's metadata/v1.json is not JSON\n" };
  }
  for (const key of path.slice('/metadata/v1/'.length).split('/').filter(Boolean).map(decodeURIComponent)) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (value && typeof value === 'object' && key in value) value = (value as Record<string, unknown>)[key];
    else return { status: 404, body: 'not found\n' };
  }
  if (value === undefined) return { status: 404, body: 'not found\n' };
  if (Array.isArray(value))
    return { status: 200, body: value.map((v, i) => (v && typeof v === 'object' ? `${i}/` : String(v))).join('\n') };
  if (value && typeof value === 'object')
    return {
      status: 200,
      body: Object.entries(value)
        .map(([k, v]) => (v && typeof v === 'object' ? `${k}/` : k))
        .join('\n'),
    };
  return { status: 200, body: value === null ? '' : String(value) };
}

export const digitalOceanMock: HttpMockService = {
  kind: 'digitalocean',
  transport: 'http',
  answers: () => ({ readOnly: (req) => digitalOceanAnswer(req.files, req.path) }),
};
