// A serial port for tests: a pty pair (test/helpers/pty-bridge.py) whose master side talks to a fake host on a unix
// socket.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO } from './repo';

/** Why pty tests cannot run here, or undefined when they can (python3 with its pty module). */
export function ptySkipReason(): string | undefined {
  const r = spawnSync('python3', ['-c', 'import pty, select, socket'], { stdio: 'ignore' });
  return r.status === 0
    ? undefined
    : 'python3 (with its pty module) is not installed: the pty pair needs openpty(), which Node lacks';
}

export interface PtyPair {
  /** The slave side, the guest's "serial port": /dev/pts/N. */
  slave: string;
  close(): Promise<void>;
}

/** Opens a pty pair joined to the host agent listening on HOSTSOCKET. */
export async function openPtyPair(hostSocket: string): Promise<PtyPair> {
  const child: ChildProcess = spawn('python3', [join(REPO, 'test', 'helpers', 'pty-bridge.py'), hostSocket], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const slave = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.once('line', (l) => resolve(l.trim()));
    child.once('exit', (code) => reject(new Error(`pty-bridge.py exited (${code}) before opening a pty`)));
    child.once('error', reject);
  });
  return {
    slave,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin?.end();
        setTimeout(() => child.kill('SIGTERM'), 2000).unref();
      }),
  };
}
