// A fake SmartOS host's metadata agent: the Joyent protocol V2 answered from a folder of keys (one file a key), on a unix socket, misbehaving on request.
import { promises as fsp } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { posix } from 'node:path';
import { crc32 } from '../util/crc32';

/** A deliberate fault of the host, applied to the answer to every request for KEY (all keys when unset). */
export interface SmartOsMisbehaviour {
  kind: 'bad-checksum' | 'wrong-request-id' | 'bad-length' | 'silent' | 'garbage' | 'hang-up' | 'no-v2' | 'not-base64';
  key?: string;
}

export interface SmartOsHostOptions {
  /** One file per key: DIR/sdc:uuid, DIR/user-script …; the file's bytes are the value. */
  dir: string;
  misbehave?: SmartOsMisbehaviour[];
}

export interface SmartOsHostRecord {
  /** Each line the guest sent, in order. */
  lines: string[];
  /** The keys asked for with GET. */
  gets: string[];
}

const checksum = (body: string) => crc32(Buffer.from(body, 'utf8')).toString(16).padStart(8, '0');
const frame = (body: string) => `V2 ${Buffer.byteLength(body)} ${checksum(body)} ${body}\n`;

async function keysIn(dir: string): Promise<string[]> {
  return (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name).sort();
}

/**
 * The host's answer to one LINE from the guest (with its newline), '' to stay silent, or null to hang up:
 * an empty line is 'invalid command' (the serial resync), NEGOTIATE V2 is V2_OK, a V2 frame with a good
 * length and checksum is answered SUCCESS with the base64 value or NOTFOUND; anything else is 'invalid command'.
 */
export async function smartOsHostAnswer(opts: SmartOsHostOptions, line: string, record?: SmartOsHostRecord): Promise<string | null> {
  record?.lines.push(line);
  const rule = (key?: string) => (opts.misbehave ?? []).find((m) => m.key === undefined || m.key === key);
  if (line === '') return 'invalid command\n';
  if (line === 'NEGOTIATE V2') return rule()?.kind === 'no-v2' ? 'FAILURE\n' : 'V2_OK\n';
  const m = /^V2 (\d+) ([0-9a-f]{8}) (([0-9a-f]+) (GET|KEYS|PUT)( (\S+))?)$/.exec(line);
  if (!m) return 'invalid command\n';
  const [, length, sum, body, id, type, , param] = m as unknown as [string, string, string, string, string, string, string | undefined, string | undefined];
  if (Number(length) !== Buffer.byteLength(body) || sum !== checksum(body)) return 'invalid command\n';
  const key = param ? Buffer.from(param, 'base64').toString('utf8') : undefined;
  let value: Buffer | undefined;
  if (type === 'KEYS') value = Buffer.from((await keysIn(opts.dir)).join('\n'));
  else if (type === 'GET' && key !== undefined && !key.includes('/') && key !== '.' && key !== '..') {
    record?.gets.push(key);
    value = await fsp.readFile(posix.join(opts.dir, key)).catch(() => undefined);
  }
  const fault = rule(key)?.kind;
  if (fault === 'silent') return '';
  if (fault === 'hang-up') return null;
  if (fault === 'garbage') return 'V2 this is not a frame SUCCESS\n';
  const answerId = fault === 'wrong-request-id' ? (id === '00000000' ? '00000001' : '00000000') : id;
  // An empty value is SUCCESS without a payload (the guest takes it as no value, as cloud-init does).
  const payload = fault === 'not-base64' ? '!!not*base64!!' : value?.length ? value.toString('base64') : '';
  const answerBody = value === undefined ? `${answerId} NOTFOUND` : payload ? `${answerId} SUCCESS ${payload}` : `${answerId} SUCCESS`;
  if (fault === 'bad-checksum') return `V2 ${Buffer.byteLength(answerBody)} ${checksum(`${answerBody}x`)} ${answerBody}\n`;
  if (fault === 'bad-length') return `V2 ${Buffer.byteLength(answerBody) + 1} ${checksum(answerBody)} ${answerBody}\n`;
  return frame(answerBody);
}

/** Answers each connection on a stream line by line (the serial port seen from the host, or the zone socket). */
export function serveSmartOsStream(opts: SmartOsHostOptions, socket: Socket, record?: SmartOsHostRecord): void {
  let pending = '';
  let chain = Promise.resolve();
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('latin1');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      // A strict host: a CR the guest's tty added stays in the line, and the frame then fails its checks.
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      chain = chain.then(async () => {
        if (socket.destroyed) return;
        const answer = await smartOsHostAnswer(opts, line, record);
        if (answer === null) socket.destroy();
        else if (answer) socket.write(answer);
      });
    }
  });
  socket.on('error', () => socket.destroy());
}

/** The zone socket (/native/.zonecontrol/metadata.sock) at SOCKETPATH, an old socket file there replaced. */
export async function startSmartOsHost(opts: SmartOsHostOptions & { socketPath: string }): Promise<{ server: Server; record: SmartOsHostRecord; close(): Promise<void> }> {
  await fsp.rm(opts.socketPath, { force: true });
  const record: SmartOsHostRecord = { lines: [], gets: [] };
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    serveSmartOsStream(opts, s, record);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.socketPath, () => resolve());
  });
  return {
    server,
    record,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
