// Writes kiln's stdout and stderr with write(2) on the descriptor where that is what Node would do anyway
// (files and pipes are written synchronously on Linux), without creating process.stdout/stderr: their stream
// objects load net and the stream machinery, several milliseconds of every start. A terminal, or a descriptor
// that cannot take a write now (EAGAIN: a non-blocking pipe that is full), goes to Node's stream from then on,
// so that the order of the output is kept.
import { fstatSync, writeSync } from 'node:fs';

/** Whether FD is a regular file, a pipe or a socket: kinds write(2) handles whole, in order. */
function writesDirectly(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFile() || st.isFIFO() || st.isSocket();
  } catch {
    return false; // closed or invalid: the stream reports it as Node always has
  }
}

/**
 * A writer for FD (stdout or stderr) that falls back to STREAM (process.stdout or process.stderr, created on
 * first need). It takes text (written as UTF-8) or bytes (written as they are).
 */
export function directOutput(fd: number, stream: () => NodeJS.WritableStream): (data: string | Uint8Array) => void {
  let direct: boolean | undefined;
  return (text) => {
    direct ??= writesDirectly(fd);
    if (direct) {
      const bytes =
        typeof text === 'string'
          ? Buffer.from(text, 'utf8')
          : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
      let done = 0;
      try {
        while (done < bytes.length) done += writeSync(fd, bytes, done);
        return;
      } catch (err) {
        // A reader that went away (EPIPE) gets nothing more, as a closed output should; anything else
        // (EAGAIN) hands the rest, and every later write, to the stream.
        if ((err as NodeJS.ErrnoException).code === 'EPIPE') return;
        direct = false;
        stream().write(bytes.subarray(done));
        return;
      }
    }
    stream().write(text);
  };
}
