// Starts the metadata server of src/metadata-server/ on 127.0.0.1 (port 0) for one test, closed when it ends.
import type { TestContext } from 'node:test';
import {
  startMetadataServer,
  type MetadataServerOptions,
  type RunningMetadataServer,
} from '../../src/metadata-server/metadata-server';

export type { Misbehaviour, RunningMetadataServer } from '../../src/metadata-server/metadata-server';

export async function mockMetadataServer(t: TestContext, opts: MetadataServerOptions): Promise<RunningMetadataServer> {
  const host = opts.host ?? '127.0.0.1';
  if (host !== '127.0.0.1' && host !== '::1')
    throw new Error(`mock metadata servers listen on loopback only, not ${host}`);
  const server = await startMetadataServer({ ...opts, host, port: 0 });
  t.after(() => server.close());
  return server;
}
