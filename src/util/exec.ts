// Runs a host process and collects its output; the platforms build on this, nothing else should.
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { childProcess } from './on-demand-builtins';
import { describeError } from './errors';

export interface ExecRequest {
  argv: string[];
  input?: string;
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
  /** Windows: argv is joined with spaces as it is, unquoted (a cmd.exe command line that carries its own quotes). */
  verbatimArgs?: boolean;
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

/** What a starter is asked to start: FILE (searched in env.PATH when it has no slash) with ARGS. */
export interface ProcessStart {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdin is a pipe for the input when set, the null device otherwise (as cloud-init's subp gives it). */
  withInput: boolean;
  /** Windows: ARGS go on the command line unquoted (Node's windowsVerbatimArguments); other systems ignore it. */
  verbatimArgs?: boolean;
}

/** How a started program ended; code is null when a signal ended it (or it never started). */
export interface ProcessEnd {
  code: number | null;
  signal: string | null;
  spawnError?: string;
}

/** A program as a starter hands it over: its pipes (none if it could not start), a way to kill it, its end. */
export interface StartedProcess {
  stdin?: Writable;
  stdout?: Readable;
  stderr?: Readable;
  /** SIGKILL, if it is still running. */
  kill(): void;
  /** Settles once the program has ended and its stdout and stderr are closed. */
  ended: Promise<ProcessEnd>;
}

/** Starts programs: Node's spawn by default; the Linux platform has one that does not fork (posix-spawn.ts). */
export type ProcessStarter = (start: ProcessStart) => StartedProcess;

/** Node's child_process.spawn (fork and exec). */
export const startWithNode: ProcessStarter = (start) => {
  let child: ChildProcess;
  try {
    child = childProcess().spawn(start.file, start.args, {
      ...(start.cwd !== undefined ? { cwd: start.cwd } : {}),
      env: start.env,
      stdio: [start.withInput ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      windowsHide: true,
      ...(start.verbatimArgs ? { windowsVerbatimArguments: true } : {}),
    });
  } catch (e) {
    // spawn throws, rather than emitting 'error', for what it refuses before starting anything (EINVAL for a .cmd or
    // .bat program on Windows, a NUL byte in an argument): the same "could not start" as ENOENT.
    const err = e as NodeJS.ErrnoException;
    const why = err.code && !err.code.startsWith('ERR_') ? err.code : describeError(e);
    return {
      kill: () => undefined,
      ended: Promise.resolve({ code: null, signal: null, spawnError: `${start.file}: ${why}` }),
    };
  }
  let spawnError: string | undefined;
  child.on('error', (e: NodeJS.ErrnoException) => {
    spawnError = `${start.file}: ${e.code ?? e.message}`;
  });
  return {
    // Pipes chosen at run time: the typings can only say "maybe null".
    ...(child.stdin ? { stdin: child.stdin } : {}),
    ...(child.stdout ? { stdout: child.stdout } : {}),
    ...(child.stderr ? { stderr: child.stderr } : {}),
    kill: () => child.kill('SIGKILL'),
    ended: new Promise((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, ...(spawnError ? { spawnError } : {}) })),
    ),
  };
};

/** Largest amount of stdout or stderr kept per stream; the rest is dropped, with a marker. */
const MAX_CAPTURE = 16 * 1024 * 1024;

/** Collects what a stream gives, up to MAX_CAPTURE bytes. */
function capture(stream: Readable | undefined): () => string {
  const chunks: Buffer[] = [];
  let length = 0;
  stream?.on('data', (b: Buffer) => {
    if (length < MAX_CAPTURE) chunks.push(b);
    length += b.length;
  });
  return () =>
    Buffer.concat(chunks).toString('utf8') +
    (length > MAX_CAPTURE ? `\n[kiln: ${length - MAX_CAPTURE} more bytes dropped]\n` : '');
}

export async function execProcess(req: ExecRequest, start: ProcessStarter = startWithNode): Promise<ExecOutcome> {
  const [file, ...args] = req.argv;
  if (!file) return { code: 127, signal: null, stdout: '', stderr: '', timedOut: false, spawnError: 'empty command' };
  const child = start({
    file,
    args,
    env: req.env ? { ...process.env, ...req.env } : process.env,
    ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
    withInput: req.input !== undefined,
    ...(req.verbatimArgs ? { verbatimArgs: true } : {}),
  });
  const stdout = capture(child.stdout);
  const stderr = capture(child.stderr);
  let timedOut = false;
  const timer = req.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        child.kill();
      }, req.timeoutMs)
    : undefined;
  if (req.input !== undefined && child.stdin) {
    child.stdin.on('error', () => {
      /* the program may exit without reading its input */
    });
    child.stdin.end(req.input);
  }
  const end = await child.ended;
  if (timer) clearTimeout(timer);
  return {
    // Node reports a failed start as a negative errno; the shell's 127 says it better.
    code: end.spawnError ? 127 : (end.code ?? 128),
    signal: end.signal,
    stdout: stdout(),
    stderr: stderr(),
    timedOut,
    ...(end.spawnError ? { spawnError: end.spawnError } : {}),
  };
}
