// kiln's stdout/stderr writer: files and pipes get write(2) in order; a full non-blocking pipe (EAGAIN) and a
// terminal-like descriptor go to the stream, and a reader that went away (EPIPE) ends the output quietly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { directOutput } from '../../src/util/direct-output';

/** A stand-in for process.stdout that records what it is given. */
function recordingStream(): { stream: () => NodeJS.WritableStream; written: string[]; created: () => number } {
  const written: string[] = [];
  let created = 0;
  const write = (chunk: string | Uint8Array) => {
    written.push(Buffer.from(chunk).toString('utf8'));
    return true;
  };
  const fake = { write } as unknown as NodeJS.WritableStream;
  const stream = () => {
    created++;
    return fake;
  };
  return { stream, written, created: () => created };
}

test('a regular file is written directly, in order, and the stream is never created', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fd = openSync(join(dir, 'out'), 'w');
  const rec = recordingStream();
  const write = directOutput(fd, rec.stream);
  write('first ');
  write('ünïcode\n');
  closeSync(fd);
  assert.equal(readFileSync(join(dir, 'out'), 'utf8'), 'first ünïcode\n');
  assert.equal(rec.created(), 0);
});

test('a full non-blocking pipe hands the rest and every later write to the stream, keeping the order', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-out-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fifo = join(dir, 'fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0, 'mkfifo');
  // Read-write so that opening does not wait for a reader; non-blocking so that a full pipe says EAGAIN.
  const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
  t.after(() => closeSync(fd));
  const rec = recordingStream();
  const write = directOutput(fd, rec.stream);
  const big = 'x'.repeat(1 << 20); // larger than any pipe buffer
  write(big);
  write('after');
  const inPipe = Buffer.alloc(1 << 20);
  let got = 0;
  try {
    for (;;) {
      const n = readSync(fd, inPipe, got, inPipe.length - got, null);
      if (n === 0) break;
      got += n;
    }
  } catch {
    /* EAGAIN: the pipe is drained */
  }
  assert.ok(got > 0 && got < big.length, `the pipe took part of the text (${got} bytes)`);
  assert.equal(rec.written.join(''), `${big.slice(got)}after`);
});

test('a pipe whose reader went away ends the output without an error', () => {
  const rec = recordingStream();
  const dir = mkdtempSync(join(tmpdir(), 'kiln-out-'));
  try {
    const fifo = join(dir, 'fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    // Open both ends, then close the reading one: the pipe has no reader left.
    const readEnd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const fd = openSync(fifo, constants.O_WRONLY);
    closeSync(readEnd);
    const write = directOutput(fd, rec.stream);
    assert.doesNotThrow(() => write('nobody reads this\n'));
    assert.equal(rec.created(), 0);
    closeSync(fd);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
