// The serial metadata hosts of the SmartOS and CloudSigma mocks (their sources' mock hosts on a unix socket), with
// their faults, for tests.
import { folderFiles } from '../../src/metadata-server/mock-files';
import { listenSerialHost } from '../../src/metadata-server/serial-hosts';
import { cloudSigmaMockHost, type CloudSigmaMisbehaviour } from '../../src/sources/cloudsigma';
import { smartOsMockHost, type SmartOsMisbehaviour } from '../../src/sources/smartos/mock-host';

export type { CloudSigmaMisbehaviour, SmartOsMisbehaviour };

/**
 * SmartOS's host over DIR (one file a key) on SOCKETPATH; `record` has the lines the guest sent and the keys it got.
 */
export async function startSmartOsHost(opts: {
  dir: string;
  misbehave?: SmartOsMisbehaviour[];
  socketPath: string;
}): Promise<{ record: { lines: string[]; gets: string[] }; close(): Promise<void> }> {
  const host = smartOsMockHost(folderFiles(opts.dir), opts.misbehave);
  const running = await listenSerialHost(host, opts.socketPath);
  return { record: { lines: host.requests, gets: host.gets }, close: running.close };
}

/**
 * CloudSigma's host over the folder of CONTEXTFILE (its context.json) on SOCKETPATH; `requests` has the paths asked
 * for.
 */
export async function startCloudSigmaHost(opts: {
  contextFile: string;
  misbehave?: CloudSigmaMisbehaviour;
  socketPath: string;
}): Promise<{ requests: string[]; close(): Promise<void> }> {
  if (!opts.contextFile.endsWith('/context.json'))
    throw new Error(`the CloudSigma mock reads context.json of a folder, not ${opts.contextFile}`);
  const host = cloudSigmaMockHost(folderFiles(opts.contextFile.slice(0, -'/context.json'.length)), opts.misbehave);
  const running = await listenSerialHost(host, opts.socketPath);
  return { requests: host.requests, close: running.close };
}
