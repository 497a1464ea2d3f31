// The serial-port metadata hosts for `devel serve-metadata` (the clouds whose mock is a SerialMockService): each on a
// unix socket, which is the zone socket itself, or a serial port's far side through a pty bridge such as `socat
// PTY,link=ROOT/dev/ttyS1,raw,echo=0 UNIX-CONNECT:SOCKET`.
import { promises as fsp } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { MockSerialHost, MockStream } from '../sources/mock-service';
import { folderFiles } from './mock-files';
import { serialServeKind } from './serve-kinds';

export interface RunningSerialHost {
  url: string;
  socketPath: string;
  /** What the guest asked for (the cloud's host says in what unit: lines, paths). */
  requests: string[];
  close(): Promise<void>;
}

/** SOCKET as the host's stream. */
function streamOf(socket: Socket): MockStream {
  return {
    onData: (listener) => void socket.on('data', listener),
    write: (text) => void socket.write(text),
    destroy: () => void socket.destroy(),
    get destroyed() {
      return socket.destroyed;
    },
  };
}

/** HOST answering every connection on the unix socket SOCKETPATH (an old socket file there replaced). */
export async function listenSerialHost(host: MockSerialHost, socketPath: string): Promise<RunningSerialHost> {
  await fsp.rm(socketPath, { force: true });
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
    host.serve(streamOf(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  return {
    url: `unix:${socketPath}`,
    socketPath,
    requests: host.requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** KIND's host over the folder DIR (its layout is the cloud's: docs/datasources.md). */
export async function startSerialHost(kind: string, dir: string, socketPath: string): Promise<RunningSerialHost> {
  return listenSerialHost(serialServeKind(kind).host(folderFiles(dir)), socketPath);
}
