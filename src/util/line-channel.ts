// A line-at-a-time conversation over a serial port (a tty in raw mode) or a unix socket: what the SmartOS and
// CloudSigma host protocols are spoken over.
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { isatty, ReadStream } from 'node:tty';
import type { Log } from './log';
import { describeError } from './errors';

/** Nothing (or not a whole line) came within the time allowed; PARTIAL is what did come. */
export class LineTimeoutError extends Error {
  override readonly name = 'LineTimeoutError';
  constructor(
    readonly partial: string,
    ms: number,
  ) {
    super(`no answer within ${ms / 1000} s${partial ? ` (partial answer '${partial.slice(0, 200)}')` : ''}`);
  }
}

/** The other end closed, or the channel failed. */
export class LineChannelClosedError extends Error {
  override readonly name = 'LineChannelClosedError';
}

/** A host that sends this much without a newline is not speaking the protocol; the line is refused, not buffered. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export interface LineChannel {
  write(text: string): Promise<void>;
  /** The next line without its '\n' (and without a '\r' before it), or LineTimeoutError after TIMEOUTMS. */
  readLine(timeoutMs: number): Promise<string>;
  /** Bytes received but not read yet as a line (what a partial answer was). */
  pending(): string;
  close(): Promise<void>;
}

/** Splits what a readable sends into lines and hands them to readLine calls in order. */
class LineBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private ended: Error | undefined;
  private waiter: (() => void) | undefined;

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    this.waiter?.();
  }

  end(err: Error): void {
    this.ended ??= err;
    this.waiter?.();
  }

  pending(): string {
    return Buffer.concat(this.chunks).toString('latin1');
  }

  private takeLine(): string | undefined {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks);
    this.chunks = [all];
    const nl = all.indexOf(0x0a);
    if (nl < 0) {
      if (all.length > MAX_LINE_BYTES)
        throw new LineChannelClosedError(`the host sent more than ${MAX_LINE_BYTES} bytes without a newline`);
      return undefined;
    }
    const line = all.subarray(0, nl).toString('latin1').replace(/\r$/, '');
    const rest = all.subarray(nl + 1);
    this.chunks = rest.length ? [rest] : [];
    this.size = rest.length;
    return line;
  }

  async readLine(timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.size ? this.takeLine() : undefined;
      if (line !== undefined) return line;
      if (this.ended) throw this.ended;
      const left = deadline - Date.now();
      if (left <= 0) throw new LineTimeoutError(this.pending(), timeoutMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = undefined;
          resolve();
        }, left);
        this.waiter = () => {
          clearTimeout(timer);
          this.waiter = undefined;
          resolve();
        };
      });
    }
  }
}

/**
 * The serial port DEVICE (a host path) in raw mode, as pyserial opens it: no echo, no line editing, no CR/NL
 * translation, 8 bits, by MAKERAW (libc's cfmakeraw through the platform). Without it, Node's setRawMode,
 * which keeps ONLCR (a '\n' sent goes out as "\r\n"), with a warning. Reading and writing use two opens of
 * the device, so the reader's non-blocking mode (libuv's) never makes a write fail half-way.
 */
export function openSerialChannel(device: string, makeRaw: ((fd: number) => void) | undefined, log: Log): LineChannel {
  const readFd = openSync(device, constants.O_RDWR | constants.O_NOCTTY);
  if (!isatty(readFd)) {
    closeSync(readFd);
    throw new LineChannelClosedError(`${device} is not a serial port (not a tty)`);
  }
  let writeFd: number;
  try {
    writeFd = openSync(device, constants.O_WRONLY | constants.O_NOCTTY);
  } catch (err) {
    closeSync(readFd);
    throw err;
  }
  const buffer = new LineBuffer();
  const stream = new ReadStream(readFd);
  let raw = false;
  if (makeRaw) {
    try {
      makeRaw(readFd);
      raw = true;
    } catch (err) {
      log.warn(
        `${device}: cfmakeraw failed (${describeError(err)}); using Node's raw mode, which sends each newline as CR LF`,
      );
    }
  }
  if (!raw) stream.setRawMode(true);
  stream.on('data', (chunk: Buffer) => buffer.push(chunk));
  stream.on('error', (err) =>
    buffer.end(new LineChannelClosedError(`reading ${device} failed: ${describeError(err)}`)),
  );
  stream.on('end', () => buffer.end(new LineChannelClosedError(`${device} was closed`)));
  let closed = false;
  return {
    async write(text: string) {
      const bytes = Buffer.from(text, 'latin1');
      for (let done = 0; done < bytes.length; ) done += writeSync(writeFd, bytes, done);
    },
    readLine: (ms) => buffer.readLine(ms),
    pending: () => buffer.pending(),
    async close() {
      if (closed) return;
      closed = true;
      // The port is left in raw mode, as pyserial leaves it.
      stream.destroy();
      closeSync(writeFd);
    },
  };
}

/** A stream connection to the unix socket PATH (a host path), within TIMEOUTMS. */
export async function openSocketChannel(path: string, timeoutMs: number): Promise<LineChannel> {
  const socket: Socket = await new Promise((resolve, reject) => {
    const s = createConnection(path);
    const timer = setTimeout(() => {
      s.destroy();
      reject(new LineTimeoutError('', timeoutMs));
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once('error', (err) => {
      clearTimeout(timer);
      reject(new LineChannelClosedError(`connecting to ${path} failed: ${describeError(err)}`));
    });
  });
  const buffer = new LineBuffer();
  socket.on('data', (chunk: Buffer) => buffer.push(chunk));
  socket.on('error', (err) => buffer.end(new LineChannelClosedError(`${path}: ${describeError(err)}`)));
  socket.on('close', () => buffer.end(new LineChannelClosedError(`${path} was closed by the other end`)));
  return {
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        socket.write(Buffer.from(text, 'latin1'), (err) =>
          err ? reject(new LineChannelClosedError(`writing to ${path} failed: ${describeError(err)}`)) : resolve(),
        );
      }),
    readLine: (ms) => buffer.readLine(ms),
    pending: () => buffer.pending(),
    async close() {
      socket.destroy();
    },
  };
}
