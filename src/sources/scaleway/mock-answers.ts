// The Scaleway metadata service as `devel serve-metadata --kind scaleway` answers it: conf?format=json from the folder,
// and user and vendor data only to clients whose source port is privileged (< 1024), 404 when unset.
import type { HttpMockService, MockAnswer, MockRequest } from '../mock-service';

/**
 * The folder holds `conf.json` (the instance metadata), `user_data/cloud-init` and `vendor_data/cloud-init`. As the
 * real service: `/conf?format=json` is the JSON document; `/user_data/…` and `/vendor_data/…` answer 403 to a
 * client whose source port is 1024 or above (the proof that root asks) and 404 when the data is not set.
 */
async function scalewayAnswer(req: MockRequest): Promise<MockAnswer | undefined> {
  const { path, url, files } = req;
  if (path === '/conf') {
    if (url.searchParams.get('format') !== 'json')
      return { status: 400, body: 'the mock serves /conf?format=json only\n' };
    const doc = await files.read('conf.json');
    return doc
      ? { status: 200, body: doc, headers: { 'content-type': 'application/json' } }
      : { status: 404, body: 'not found\n' };
  }
  const m = /^\/(user_data|vendor_data)\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  const port = req.remotePort ?? 65535;
  if (port >= 1024)
    return {
      status: 403,
      body: `${m[1]} is only served to a privileged source port (< 1024); this request came from port ${port}\n`,
    };
  const body = await files.read(`${m[1] as string}/${m[2] as string}`);
  return body ? { status: 200, body } : { status: 404, body: `no ${m[1]} set\n` };
}

export const scalewayMock: HttpMockService = {
  kind: 'scaleway',
  transport: 'http',
  answers: () => ({ anyMethod: scalewayAnswer }),
};
