// A fake CloudSigma host: the server context (a JSON file) answered to cepko requests `<\n{path}\n>` on a stream, one line ending in EOT, misbehaving on request.
import { promises as fsp } from 'node:fs';
import { createServer, type Socket } from 'node:net';

export type CloudSigmaMisbehaviour = 'silent' | 'garbage' | 'hang-up' | 'no-newline';

export interface CloudSigmaHostOptions {
  /** The server context document (JSON). */
  contextFile: string;
  misbehave?: CloudSigmaMisbehaviour;
}

/** The answer to a request for PATH ('' or '/meta/key'): strings as they are, anything else as JSON; a missing path is an empty line, as the host gives. */
export async function cloudSigmaAnswer(contextFile: string, path: string): Promise<string> {
  let value: unknown = JSON.parse(await fsp.readFile(contextFile, 'utf8'));
  for (const part of path.split('/').filter(Boolean)) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  }
  const text = value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return `${text}\x04\n`;
}

/** Answers each `<\n{path}\n>` request that arrives on SOCKET. */
export function serveCloudSigmaStream(opts: CloudSigmaHostOptions, socket: Socket, requests: string[]): void {
  let pending = '';
  socket.on('data', async (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    let m: RegExpExecArray | null;
    while ((m = /<\n([^\n]*)\n>/.exec(pending))) {
      pending = pending.slice(m.index + m[0].length);
      const path = m[1] as string;
      requests.push(path);
      if (opts.misbehave === 'silent') continue;
      if (opts.misbehave === 'hang-up') return void socket.destroy();
      if (opts.misbehave === 'garbage') {
        socket.write('Welcome to the serial console\x04\n');
        continue;
      }
      const answer = await cloudSigmaAnswer(opts.contextFile, path);
      socket.write(opts.misbehave === 'no-newline' ? answer.slice(0, -1) : answer);
    }
  });
  socket.on('error', () => socket.destroy());
}

/** The host agent on a unix socket (joined to a pty's master side in tests). */
export async function startCloudSigmaHost(opts: CloudSigmaHostOptions & { socketPath: string }): Promise<{ requests: string[]; close(): Promise<void> }> {
  await fsp.rm(opts.socketPath, { force: true });
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    serveCloudSigmaStream(opts, s, requests);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.socketPath, () => resolve());
  });
  return {
    requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
