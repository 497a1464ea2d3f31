// The serial-port metadata hosts (SmartOS, CloudSigma) for `devel serve-metadata`: each on a unix socket, which is the LX zone socket itself, or a serial port's far side through a pty bridge such as `socat PTY,link=ROOT/dev/ttyS1,raw,echo=0 UNIX-CONNECT:SOCKET`.
import { join } from 'node:path';
import { startCloudSigmaHost } from './cloudsigma';
import type { SerialHostKind } from './serve-kinds';
import { startSmartOsHost } from './smartos';

export interface RunningSerialHost {
  url: string;
  socketPath: string;
  /** What the guest asked for: SmartOS lines, CloudSigma paths. */
  requests: string[];
  close(): Promise<void>;
}

/** SmartOS: DIR holds one file per key (`sdc:uuid`, `user-script` …). CloudSigma: DIR/context.json is the server context. */
export async function startSerialHost(kind: SerialHostKind, dir: string, socketPath: string): Promise<RunningSerialHost> {
  if (kind === 'smartos') {
    const host = await startSmartOsHost({ dir, socketPath });
    return { url: `unix:${socketPath}`, socketPath, requests: host.record.lines, close: host.close };
  }
  const host = await startCloudSigmaHost({ contextFile: join(dir, 'context.json'), socketPath });
  return { url: `unix:${socketPath}`, socketPath, requests: host.requests, close: host.close };
}
