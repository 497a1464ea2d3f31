// Runs a host process and collects its output; the platforms build on this, nothing else should.
import { childProcess } from './on-demand-builtins';

export interface ExecRequest {
  argv: string[];
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

export interface ExecOutcome {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Set when the program could not be started at all (ENOENT, EACCES …). */
  spawnError?: string;
}

/** Largest amount of stdout or stderr kept per stream; the rest is dropped, with a marker. */
const MAX_CAPTURE = 16 * 1024 * 1024;

export function execProcess(req: ExecRequest): Promise<ExecOutcome> {
  return new Promise((resolve) => {
    const [file, ...args] = req.argv;
    if (!file) {
      resolve({ code: 127, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: 'empty command' });
      return;
    }
    // Without input the program reads the null device, as cloud-init's subp gives it (and one pipe fewer is made).
    const stdin: 'ignore' | 'pipe' = req.input === undefined ? 'ignore' : 'pipe';
    const child = childProcess().spawn(file, args, {
      cwd: req.cwd,
      env: req.env ? { ...process.env, ...req.env } : process.env,
      stdio: [stdin, 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    let timedOut = false;
    let spawnError: string | undefined;
    const timer = req.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGKILL');
        }, req.timeoutMs)
      : undefined;
    // stdout and stderr are always pipes; with stdin chosen at run time the typings can only say "maybe null".
    child.stdout?.on('data', (b: Buffer) => {
      if (outLen < MAX_CAPTURE) out.push(b);
      outLen += b.length;
    });
    child.stderr?.on('data', (b: Buffer) => {
      if (errLen < MAX_CAPTURE) err.push(b);
      errLen += b.length;
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      spawnError = `${file}: ${e.code ?? e.message}`;
    });
    if (req.input !== undefined) {
      child.stdin?.on('error', () => {
        /* the program may exit without reading its input */
      });
      child.stdin?.end(req.input);
    }
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const clip = (chunks: Buffer[], len: number) =>
        Buffer.concat(chunks).toString('utf8') + (len > MAX_CAPTURE ? `\n[kiln: ${len - MAX_CAPTURE} more bytes dropped]\n` : '');
      resolve({
        code: code ?? (spawnError ? 127 : 128),
        signal,
        stdout: clip(out, outLen),
        stderr: clip(err, errLen),
        timedOut,
        ...(spawnError ? { spawnError } : {}),
      });
    });
  });
}
