// The Vultr metadata service as `devel serve-metadata --kind vultr` answers it: v1.json as JSON, and its keys as
// plain-text paths below /v1/ as the real service has them.
import { readMockText, type HttpMockService, type MockAnswer, type MockFiles } from '../mock-service';

/**
 * The folder (below PREFIX) holds `v1.json`. It is served as `application/json`; `/v1/KEY[/KEY…]` answers with that
 * part of it (scalars as text, the rest as JSON; 404 when absent). Anything else falls to the plain tree.
 * UpCloud's service has the same layout one folder down (PREFIX 'metadata/').
 */
export async function jsonKeysAnswer(files: MockFiles, path: string, prefix = ''): Promise<MockAnswer | undefined> {
  if (path !== '/v1.json' && !path.startsWith('/v1/')) return undefined;
  const text = await readMockText(files, `${prefix}v1.json`);
  if (text === undefined) return undefined;
  if (path === '/v1.json') return { status: 200, body: text, headers: { 'content-type': 'application/json' } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The client gets a 500 saying which file of the mock folder is broken.
    return { status: 500, body: "the mock's v1.json is not JSON\n" };
  }
  for (const key of path.slice('/v1/'.length).split('/').filter(Boolean).map(decodeURIComponent)) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (value && typeof value === 'object' && key in value) value = (value as Record<string, unknown>)[key];
    else return { status: 404, body: 'not found\n' };
  }
  if (value === undefined) return { status: 404, body: 'not found\n' };
  return {
    status: 200,
    body: value === null || typeof value !== 'object' ? String(value ?? '') : JSON.stringify(value),
  };
}

export const vultrMock: HttpMockService = {
  kind: 'vultr',
  transport: 'http',
  answers: () => ({ readOnly: (req) => jsonKeysAnswer(req.files, req.path) }),
};
