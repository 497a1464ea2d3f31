// Starts commands with glibc's posix_spawn (through koffi) instead of Node's spawn, which forks.
//
// A fork copies the page tables of kiln's whole heap and leaves every page of it copy-on-write until the child
// has exec'd: on the 2-CPU VM of docs/parity.md that is ~7 ms of kiln's time per command at a boot's 65 MB (the
// first, with child_process and net to load, ~15-20 ms), before the child's own start. glibc's posix_spawn
// shares the memory with the child until the exec (clone with CLONE_VM and CLONE_VFORK): ~1.5 ms, all of it
// the exec. The child is set up as libuv sets up Node's: signal mask empty, every signal back to its default
// (Node ignores SIGPIPE, and a shell pipeline must not inherit that), stdin the null device or a pipe,
// stdout and stderr pipes; kiln's own descriptors are all close-on-exec. The pipes are read with net.Socket,
// as Node reads a child's; the exit status is collected with waitpid once both output pipes are closed,
// which is when Node's 'close' comes too.
import { statSync } from 'node:fs';
import { constants } from 'node:os';
import type { Socket } from 'node:net';
import { net } from '../../util/on-demand-builtins';
import type { Koffi } from '../../util/koffi-addon';
import type { ProcessEnd, ProcessStart, ProcessStarter, StartedProcess } from '../../util/exec';
import { describeError } from '../../util/errors';

/** The libc calls a start needs; addChdir is missing before glibc 2.29. */
export interface LibcSpawn {
  posixSpawn(
    pid: Int32Array,
    path: string,
    fileActions: Buffer,
    attributes: Buffer,
    argv: Array<string | null>,
    envp: Array<string | null>,
  ): number;
  waitpid(pid: number, status: Int32Array, options: number): number;
  pipe2(fds: Int32Array, flags: number): number;
  close(fd: number): number;
  fileActionsInit(fa: Buffer): number;
  fileActionsDestroy(fa: Buffer): number;
  addDup2(fa: Buffer, fd: number, newFd: number): number;
  addOpen(fa: Buffer, fd: number, path: string, flags: number, mode: number): number;
  addChdir: ((fa: Buffer, path: string) => number) | undefined;
  /** Attributes shared by every start: signal mask empty, every signal's default action restored. */
  attributes: Buffer;
  /** errno of the last failed call on this thread. */
  errno(): number;
}

// Linux's values on x86-64 and arm64 alike (the targets kiln builds for).
const O_RDONLY = 0;
const O_CLOEXEC = 0o2000000;
const WNOHANG = 1;
const POSIX_SPAWN_SETSIGDEF = 0x04;
const POSIX_SPAWN_SETSIGMASK = 0x08;
const ENOEXEC = 8;
const EINTR = 4;
/** glibc's posix_spawn_file_actions_t is 80 bytes, posix_spawnattr_t 336, sigset_t 128: room to spare. */
const OPAQUE_BYTES = 512;

export function bindLibcSpawn(koffi: Koffi): LibcSpawn {
  const libc = koffi.load('libc.so.6');
  const fn = (prototype: string) => libc.func(prototype) as (...args: unknown[]) => number;
  let addChdir: LibcSpawn['addChdir'];
  try {
    addChdir = fn('int posix_spawn_file_actions_addchdir_np(void *fa, const char *path)');
  } catch {
    addChdir = undefined; // glibc before 2.29: commands with a working directory go through Node's spawn
  }
  const attributes = Buffer.alloc(OPAQUE_BYTES);
  const signals = Buffer.alloc(OPAQUE_BYTES);
  const check = (what: string, rc: number) => {
    if (rc !== 0) throw new Error(`${what} failed (${rc})`);
  };
  check('posix_spawnattr_init', fn('int posix_spawnattr_init(void *attr)')(attributes));
  check(
    'posix_spawnattr_setflags',
    fn('int posix_spawnattr_setflags(void *attr, short flags)')(
      attributes,
      POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK,
    ),
  );
  check('sigemptyset', fn('int sigemptyset(void *set)')(signals));
  check(
    'posix_spawnattr_setsigmask',
    fn('int posix_spawnattr_setsigmask(void *attr, const void *set)')(attributes, signals),
  );
  check('sigfillset', fn('int sigfillset(void *set)')(signals));
  check(
    'posix_spawnattr_setsigdefault',
    fn('int posix_spawnattr_setsigdefault(void *attr, const void *set)')(attributes, signals),
  );
  return {
    posixSpawn: fn(
      'int posix_spawn(_Out_ int *pid, const char *path, const void *fa, const void *attr, const char **argv, const char **envp)',
    ),
    waitpid: fn('int waitpid(int pid, _Out_ int *status, int options)'),
    pipe2: fn('int pipe2(_Out_ int *fds, int flags)'),
    close: fn('int close(int fd)'),
    fileActionsInit: fn('int posix_spawn_file_actions_init(void *fa)'),
    fileActionsDestroy: fn('int posix_spawn_file_actions_destroy(void *fa)'),
    addDup2: fn('int posix_spawn_file_actions_adddup2(void *fa, int fd, int newfd)'),
    addOpen: fn('int posix_spawn_file_actions_addopen(void *fa, int fd, const char *path, int flags, uint32_t mode)'),
    addChdir,
    attributes,
    errno: () => koffi.errno(),
  };
}

/** Error names by number (ENOENT …). */
function errnoName(errno: number): string {
  return Object.entries(constants.errno).find(([, n]) => n === errno)?.[0] ?? `errno ${errno}`;
}

/** Signal names by number (SIGKILL …). */
function signalName(signal: number): string {
  return Object.entries(constants.signals).find(([, n]) => n === signal)?.[0] ?? `signal ${signal}`;
}

/** FILE as execvp finds it: itself when it has a slash, else the first executable file of that name in PATH. */
export function findExecutable(file: string, path: string | undefined): string | undefined {
  if (file.includes('/')) return file;
  for (const dir of (path ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    const candidate = `${dir === '' ? '.' : dir}/${file}`;
    const st = statSync(candidate, { throwIfNoEntry: false });
    if (st?.isFile() && (st.mode & 0o111) !== 0) return candidate;
  }
  return undefined;
}

/** A start that failed before the program ran. */
function notStarted(spawnError: string): StartedProcess {
  return { kill: () => undefined, ended: Promise.resolve({ code: null, signal: null, spawnError }) };
}

/** A pipe: [read end, write end], both close-on-exec. */
function makePipe(libc: LibcSpawn): [number, number] {
  const fds = new Int32Array(2);
  if (libc.pipe2(fds, O_CLOEXEC) !== 0) throw new Error(`pipe2: ${errnoName(libc.errno())}`);
  return [fds[0] as number, fds[1] as number];
}

/** Starts START with posix_spawn; the caller has checked that LIBC can honour its working directory. */
export function spawnWithLibc(libc: LibcSpawn, start: ProcessStart): StartedProcess {
  const path = findExecutable(start.file, start.env.PATH);
  if (path === undefined) return notStarted(`${start.file}: ENOENT`);
  const opened: number[] = [];
  const closeAll = (fds: number[]) => {
    for (const fd of fds) libc.close(fd);
  };
  let stdinPipe: [number, number] | undefined;
  let stdoutPipe: [number, number];
  let stderrPipe: [number, number];
  try {
    stdoutPipe = makePipe(libc);
    opened.push(...stdoutPipe);
    stderrPipe = makePipe(libc);
    opened.push(...stderrPipe);
    if (start.withInput) {
      stdinPipe = makePipe(libc);
      opened.push(...stdinPipe);
    }
  } catch (err) {
    closeAll(opened);
    return notStarted(`${start.file}: ${describeError(err)}`);
  }
  const fa = Buffer.alloc(OPAQUE_BYTES);
  libc.fileActionsInit(fa);
  const pid = new Int32Array(1);
  let rc: number;
  try {
    if (stdinPipe) libc.addDup2(fa, stdinPipe[0], 0);
    else libc.addOpen(fa, 0, '/dev/null', O_RDONLY, 0);
    libc.addDup2(fa, stdoutPipe[1], 1);
    libc.addDup2(fa, stderrPipe[1], 2);
    if (start.cwd !== undefined) libc.addChdir?.(fa, start.cwd);
    const envp: Array<string | null> = [];
    for (const [key, value] of Object.entries(start.env)) if (value !== undefined) envp.push(`${key}=${value}`);
    envp.push(null);
    rc = libc.posixSpawn(pid, path, fa, libc.attributes, [start.file, ...start.args, null], envp);
    // execvp runs a file the kernel cannot execute (no #! line) with /bin/sh; Node's spawn does, so kiln does.
    if (rc === ENOEXEC)
      rc = libc.posixSpawn(pid, '/bin/sh', fa, libc.attributes, ['/bin/sh', path, ...start.args, null], envp);
  } finally {
    libc.fileActionsDestroy(fa);
  }
  // The child has its copies (or never started): kiln keeps only its own ends.
  closeAll([stdoutPipe[1], stderrPipe[1], ...(stdinPipe ? [stdinPipe[0]] : [])]);
  if (rc !== 0) {
    closeAll([stdoutPipe[0], stderrPipe[0], ...(stdinPipe ? [stdinPipe[1]] : [])]);
    return notStarted(`${start.file}: ${errnoName(rc)}`);
  }
  return watch(libc, pid[0] as number, stdoutPipe[0], stderrPipe[0], stdinPipe?.[1]);
}

/** The started program's pipes as streams, and its end once both output pipes have closed. */
function watch(
  libc: LibcSpawn,
  pid: number,
  stdoutFd: number,
  stderrFd: number,
  stdinFd: number | undefined,
): StartedProcess {
  const { Socket } = net();
  const stdout: Socket = new Socket({ fd: stdoutFd, readable: true, writable: false });
  const stderr: Socket = new Socket({ fd: stderrFd, readable: true, writable: false });
  const stdin: Socket | undefined =
    stdinFd === undefined ? undefined : new Socket({ fd: stdinFd, readable: false, writable: true });
  let reaped = false;
  const ended = new Promise<ProcessEnd>((resolve) => {
    const status = new Int32Array(1);
    // Usually the program has exited when its pipes close; one that closed them and goes on is asked again,
    // less and less often.
    const reap = (delayMs: number): void => {
      const got = libc.waitpid(pid, status, WNOHANG);
      if (got === 0 || (got < 0 && libc.errno() === EINTR)) {
        setTimeout(() => reap(Math.min(delayMs * 2, 50)), delayMs);
        return;
      }
      reaped = true;
      if (got < 0) {
        resolve({ code: null, signal: null, spawnError: `waitpid ${pid}: ${errnoName(libc.errno())}` });
        return;
      }
      const raw = status[0] as number;
      const termSignal = raw & 0x7f;
      resolve(
        termSignal === 0 ? { code: (raw >> 8) & 0xff, signal: null } : { code: null, signal: signalName(termSignal) },
      );
    };
    let open = 2;
    const closed = () => {
      if (--open === 0) reap(1);
    };
    stdout.on('close', closed);
    stderr.on('close', closed);
  });
  return {
    ...(stdin ? { stdin } : {}),
    stdout,
    stderr,
    kill: () => {
      // Once reaped the pid may belong to someone else.
      if (reaped) return;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone: its end is on the way */
      }
    },
    ended,
  };
}

/**
 * A starter that uses posix_spawn, with koffi loaded (by LOAD_KOFFI) at the first command, and Node's spawn
 * (FALLBACK) when koffi cannot be had or a working directory is asked of a glibc that cannot set one.
 */
export function posixSpawnStarter(
  loadKoffi: () => Koffi | undefined,
  fallback: ProcessStarter,
  onUnavailable: (why: string) => void,
): ProcessStarter {
  let libc: LibcSpawn | null | undefined;
  return (start) => {
    if (libc === undefined) {
      try {
        const koffi = loadKoffi();
        libc = koffi ? bindLibcSpawn(koffi) : null;
      } catch (err) {
        libc = null;
        onUnavailable(describeError(err));
      }
    }
    if (libc === null || (start.cwd !== undefined && !libc.addChdir)) return fallback(start);
    return spawnWithLibc(libc, start);
  };
}
