// The one seam through which kiln affects the operating system; nothing outside src/platform touches it.
import type { WindowsMachine } from './windows/windows-machine';

export interface FileOpts {
  /** Permission bits, e.g. 0o600. Default 0o644 for new files; an existing file keeps its mode unless given. */
  mode?: number;
  /** Owner as `user`, `user:group`, or numeric ids; names are looked up in the target root's passwd/group. */
  owner?: string;
  /**
   * Append to the file (made when missing) with one write at its end, as cloud-init appends and logs are
   * written, instead of replacing it. Readers never see a part of the file's old content changed, but a crash
   * mid-write can leave a torn last record, as with any log.
   */
  append?: boolean;
  /**
   * fsync the new content before it is renamed into place, for files a crash must never leave old or empty
   * (the account files, as shadow-utils syncs them). Other writes are atomic but not synced, as cloud-init's:
   * a sync per file waits on all the disk's queued writes and cost ~150 ms a boot.
   */
  durable?: boolean;
}

export interface RunOpts {
  /** Text written to the command's standard input. */
  input?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Working directory inside the target root. */
  cwd?: string;
  /** Milliseconds before the command is killed; default no limit. */
  timeoutMs?: number;
  /** Resolve with the exit code instead of throwing when the command fails. */
  allowFailure?: boolean;
  /** Strings to scrub from the logged command line and output (passwords on a command line, say). */
  secrets?: string[];
  /**
   * Windows: the argv elements go on the command line joined by blanks as they are, each carrying the quotes its
   * program reads (a script that reads its raw command line, as winrm.vbs does), never Node's `\"` escapes. Other
   * systems have no command line and ignore it.
   */
  verbatimArguments?: boolean;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** One recorded effect: what `--dry-run` prints and what tests assert on. */
export type Effect =
  | { kind: 'write-file'; path: string; bytes: number; mode?: number; owner?: string; append?: boolean }
  | { kind: 'mkdir'; path: string; mode?: number; owner?: string }
  | { kind: 'remove'; path: string }
  | { kind: 'symlink'; path: string; target: string }
  | { kind: 'run'; command: string }
  | { kind: 'set-hostname'; hostname: string };

/** The operating system of the target, as far as it can be read without changing anything. */
export interface OsVersion {
  /** 'debian', 'ubuntu', 'rhel' … on Linux (os-release ID); 'windows' on Windows. */
  id: string;
  /** A line a person reads: 'Debian GNU/Linux 12 (bookworm)', 'Windows 10.0.20348'. */
  pretty: string;
  version: string;
  /** Where it was read from: '/etc/os-release', 'ntdll!RtlGetVersion'. */
  source: string;
  kernel?: string;
}

/** What `stat` reports about a path inside the root (symlinks followed, as Python's os.path.isfile). */
export interface FileStat {
  /** 'symlink' only when asked not to follow a final link; 'socket' for a unix socket (LXD's /dev/lxd/sock). */
  type: 'file' | 'directory' | 'symlink' | 'socket' | 'other';
  /** Permission bits (0o7777). */
  mode: number;
  size: number;
  /**
   * When it was last written, in milliseconds since the epoch; absent where the platform cannot tell (a file a dry run
   * planned).
   */
  mtimeMs?: number;
}

/** A bound AF_UNIX datagram socket. */
export interface UnixDatagramSocket {
  readonly path: string;
  /** The next datagram (at most MAX_BYTES of it) and the path its sender is bound to ('' when unbound). */
  receive(maxBytes: number): Promise<{ data: Buffer; from: string }>;
  sendTo(path: string, data: Uint8Array): void;
  close(): void;
}

/** AF_UNIX datagram sockets at host paths (cloud-init 25.1's stage synchronisation, sd_notify). */
export interface UnixDatagrams {
  /** Binds a socket at PATH (a host path; the file must not exist). */
  bind(path: string): UnixDatagramSocket;
  /** Sends one datagram to PATH ('@name': an abstract socket) from an unbound socket. */
  send(path: string, data: Uint8Array): void;
}

/**
 * Files kiln shares with the machine's host and writes in place, as the host's reader expects (Hyper-V's KVP pool
 * files, which hv_kvp_daemon reads). Paths are inside the root, as every Platform path.
 */
export interface HostReports {
  /** When PATH was last written, in milliseconds since the epoch; undefined when it does not exist. */
  lastWritten(path: string): Promise<number | undefined>;
  /** Empties PATH in place (the same file, not a new one). */
  empty(path: string): Promise<void>;
  /** Appends DATA to PATH in one O_APPEND write, making it (mode 0644) when missing. */
  append(path: string, data: Uint8Array): Promise<void>;
}

/** The running kernel as Python's os.uname() gives it: the machine kiln runs on, also under --root. */
export interface Uname {
  sysname: string;
  /** The machine's own name (socket.gethostname()). */
  nodename: string;
  release: string;
  version: string;
  /** 'x86_64', 'aarch64' …, as `uname -m`. */
  machine: string;
}

export interface Platform {
  /** '/' at boot; a mounted image or sandbox with --root. Paths given to methods are inside this root. */
  readonly root: string;
  readonly os: 'linux' | 'windows';
  /** The host path of PATH inside the root. */
  hostPath(path: string): string;
  /**
   * The host path of PATH with every symlink on the way followed inside the root, as a chroot would: what to
   * open when a path must not leave the root (logs, times, records kiln writes by hand). Optional: where a
   * platform lacks it, hostPath is used.
   */
  resolvedHostPath?(path: string): Promise<string>;
  readFile(path: string): Promise<Uint8Array>;
  readText(path: string): Promise<string>;
  /** Like readText, but undefined when the file does not exist. */
  readTextIfExists(path: string): Promise<string | undefined>;
  exists(path: string): Promise<boolean>;
  listDir(path: string): Promise<string[]>;
  /**
   * Type, mode, size and time of PATH, undefined when it does not exist (or cannot be looked at). Windows gives the
   * permission bits Node makes of its attributes (no execute bit).
   */
  stat(path: string, opts?: { followLinks?: boolean }): Promise<FileStat | undefined>;
  /** Where the symlink PATH points (its text, unresolved), undefined when PATH is not a symlink. Optional, as stat. */
  readLink?(path: string): Promise<string | undefined>;
  /** Writes atomically: temp file in the same folder, mode and owner set, fsync when durable, rename. */
  writeFile(path: string, data: string | Uint8Array, opts?: FileOpts): Promise<void>;
  /**
   * Creates PATH and missing parents; MODE and OWNER (as in FileOpts) are applied to PATH itself, even when it exists.
   */
  mkdir(path: string, opts?: { mode?: number; owner?: string }): Promise<void>;
  remove(path: string, opts?: { recursive?: boolean }): Promise<void>;
  symlink(target: string, path: string): Promise<void>;
  /**
   * Puts the open tty FD in raw mode as cfmakeraw does (serial-port metadata protocols). Optional: without it Node's
   * setRawMode is used.
   */
  makeTtyRaw?(fd: number): void;
  /**
   * AF_UNIX datagram sockets. Optional: a dry run and Windows have none, so `--all-stages` does not wait for the stage
   * units.
   */
  unixDatagrams?(): UnixDatagrams;
  osVersion(): Promise<OsVersion>;
  /**
   * Seconds since the machine kiln runs on booted (Linux: its own /proc/uptime, which a --root sandbox lacks), or
   * undefined when it cannot be read. Optional: callers take a platform without it as one that cannot tell.
   */
  hostUptime?(): Promise<number | undefined>;
  /** The running kernel and the machine's name (os.uname()). */
  uname(): Uname;
  /** The name of the user kiln runs as (getpass.getuser()). */
  runningUser(): string;
  /**
   * What kiln tells the machine's host about this boot through files they share (the KVP reporting handler).
   * Optional: a dry run tells the host nothing, so it has none, and where it is missing the sources send their
   * cloud's fabric no report either (Azure's ready report changes what the host believes about the VM).
   */
  hostReports?(): HostReports;
  /**
   * The running Windows beyond files and commands: registry, accounts, services, certificates, the Win32 calls.
   * Optional: only the Windows platform has it; a dry run has none (such changes cannot be planned and recorded).
   */
  windows?(): WindowsMachine;
  /**
   * Sets the running system's host name, not persistently (what `hostname NAME` does): at once on Linux, from
   * the next boot on Windows. Nothing to do when the root is not '/' (an image is not running). False when refused.
   */
  setHostname(hostname: string): Promise<boolean>;
  /** Runs a command in the target root (a chroot when the root is not '/'). Argument arrays are never shell-parsed. */
  run(cmd: string[] | string, opts?: RunOpts): Promise<RunResult>;
  /**
   * Runs WORK as one batch of changes, which the platform may hold and write when it ends (on Linux, account
   * files that several steps change are written once); the runner makes each module a batch. Reads through
   * the platform see held changes meanwhile, and commands see them on disk.
   */
  batch?<T>(work: () => Promise<T>): Promise<T>;
}
