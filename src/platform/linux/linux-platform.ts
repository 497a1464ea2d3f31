// The Linux platform: files and commands in a target root ('/' at boot, an image or sandbox with --root).
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  fchmodSync,
  fchownSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { release } from 'node:os';
import { posix } from 'node:path';
import type { Log } from '../../util/log';
import { describeError, PlatformError } from '../../util/errors';
import { CommandError, type CommandFailure } from '../../util/command-error';
import { execProcess, startWithNode, type ProcessStarter } from '../../util/exec';
import { resolveInRoot } from '../../util/paths';
import { readOsRelease } from '../os-release';
import { undefinedIfMissing } from '../missing-file';
import type {
  FileOpts,
  FileStat,
  HostReports,
  OsVersion,
  Platform,
  RunOpts,
  RunResult,
  UnixDatagrams,
  Uname,
} from '../platform';
import { hostUname, hostUser } from '../host-uname';
import { HostReportFiles } from '../host-report-files';
import { AccountWriteBack } from './accounts/account-write-back';
import type { Koffi } from '../../util/koffi-addon';
import { bindMakeRaw } from './termios';
import { bindUnixDatagrams } from './unix-datagram';
import { bindRecordLocks, type RecordLocks } from './record-locks';
import { resolveOwner } from './passwd-lookup';
import { commitStaged, discardStaged, stageFile, syncStaged, type StagedFile, writeAll } from './staged-file';
import { fileKind, readRegularFile } from './regular-file';
import { makeDirs } from '../../util/make-dirs';

/** resolveInRoot's link lookups, as synchronous calls (see the note on the file calls below). */
const syncLinks = {
  lstat: async (p: string) => lstatSync(p),
  readlink: async (p: string) => readlinkSync(p, 'utf8'),
};

/** stat (or lstat) of HOST; undefined when it cannot be had (missing, a file in the way, no permission). */
function statOrUndefined(host: string, followLinks = true): Stats | undefined {
  try {
    return followLinks ? statSync(host) : lstatSync(host);
  } catch {
    return undefined; // any failure means it cannot be had, as said above
  }
}

/** A hostname of letters, digits, dots and hyphens that starts and ends with a letter or digit. */
const PLAIN_HOSTNAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** One file of a LinuxPlatform.writeFiles change. */
export interface FileWrite {
  path: string;
  data: string | Uint8Array;
  opts?: FileOpts;
}

export interface LinuxPlatformOptions {
  root: string;
  log: Log;
  /**
   * How commands reach a non-'/' root. 'chroot' alone (applying to a mounted image), or 'sandbox':
   * chroot inside new UTS, IPC, mount and PID namespaces so a command such as `hostname` cannot change
   * the host. With `isolateNetwork` the command also gets an empty network namespace.
   */
  commandIsolation?: 'chroot' | 'sandbox';
  isolateNetwork?: boolean;
  /** How commands are started (default: Node's spawn; a boot uses posix_spawn, see posix-spawn.ts). */
  startProcess?: ProcessStarter;
  /**
   * koffi, for libc's fcntl (the account files' /etc/.pwd.lock); called once, when first needed. Without it,
   * or when it gives none, kiln leaves the account files to the distro's tools.
   */
  loadKoffi?: () => Koffi | undefined;
}

export class LinuxPlatform implements Platform {
  readonly os = 'linux' as const;
  readonly root: string;
  private readonly log: Log;
  private readonly isolation: 'chroot' | 'sandbox';
  private readonly isolateNetwork: boolean;
  private readonly startProcess: ProcessStarter;
  private readonly loadKoffi: (() => Koffi | undefined) | undefined;
  private locks: RecordLocks | null | undefined;
  /** Account-file changes, held within a batch (a module) and written once (or when something else could read them). */
  readonly accountWrites = new AccountWriteBack(this);

  constructor(opts: LinuxPlatformOptions) {
    this.root = opts.root === '' ? '/' : posix.resolve(opts.root);
    this.log = opts.log;
    this.isolation = opts.commandIsolation ?? 'sandbox';
    this.isolateNetwork = opts.isolateNetwork ?? false;
    this.startProcess = opts.startProcess ?? startWithNode;
    this.loadKoffi = opts.loadKoffi;
  }

  makeTtyRaw(fd: number): void {
    const koffi = this.loadKoffi?.();
    if (!koffi) throw new PlatformError("libc's cfmakeraw cannot be reached: this build has no koffi");
    bindMakeRaw(koffi)(fd);
  }

  unixDatagrams(): UnixDatagrams {
    const koffi = this.loadKoffi?.();
    if (!koffi) throw new PlatformError('unix datagram sockets cannot be reached: this build has no koffi');
    return bindUnixDatagrams(koffi);
  }

  recordLocks(): RecordLocks | undefined {
    if (this.locks === undefined) {
      try {
        const koffi = this.loadKoffi?.();
        this.locks = koffi ? bindRecordLocks(koffi) : null;
      } catch (err) {
        this.locks = null;
        this.log.debug(
          `the account files are left to the distro's tools: libc's fcntl cannot be reached (${describeError(err)})`,
        );
      }
    }
    return this.locks ?? undefined;
  }

  hostPath(path: string): string {
    return this.root === '/'
      ? posix.normalize(posix.join('/', path))
      : posix.join(this.root, posix.normalize(posix.join('/', path)));
  }

  async osVersion(): Promise<OsVersion> {
    const rel = await readOsRelease(this);
    return {
      id: rel.ID ?? 'linux',
      pretty: rel.PRETTY_NAME ?? `${rel.NAME ?? 'Linux'} ${rel.VERSION ?? ''}`.trim(),
      version: rel.VERSION_ID ?? '',
      source: Object.keys(rel).length ? '/etc/os-release' : 'none (no os-release in the target)',
      kernel: release(),
    };
  }

  async setHostname(hostname: string): Promise<boolean> {
    // Only the running system has a hostname to set; under --root (a mounted image, where commands may run
    // in a plain chroot sharing the host's UTS namespace) the files are the whole job.
    if (this.root !== '/') return true;
    // What `hostname NAME` does (sethostname(2)), through procfs without starting a program; a name hostname(1)
    // would check more closely, or a system without /proc, still goes to hostname(1).
    if (hostname.length <= 64 && PLAIN_HOSTNAME.test(hostname)) {
      try {
        writeFileSync('/proc/sys/kernel/hostname', hostname);
        return true;
      } catch {
        /* no procfs (a bare chroot): hostname(1) below */
      }
    }
    return (await this.run(['hostname', hostname], { allowFailure: true })).code === 0;
  }

  /** Where PATH is under the root; every file call starts here. */
  private resolve(path: string): Promise<string> {
    return resolveInRoot(this.root, path, syncLinks);
  }

  resolvedHostPath(path: string): Promise<string> {
    return this.resolve(path);
  }

  uname(): Uname {
    return hostUname();
  }

  runningUser(): string {
    return hostUser();
  }

  /** This machine's /proc/uptime, whatever the root: a sandbox has no procfs, and at boot they are one file. */
  async hostUptime(): Promise<number | undefined> {
    let text: string;
    try {
      text = readFileSync('/proc/uptime', 'utf8');
    } catch {
      return undefined; // no procfs
    }
    const seconds = Number.parseFloat(text.split(/\s+/)[0] ?? '');
    return Number.isFinite(seconds) ? seconds : undefined;
  }

  hostReports(): HostReports {
    return new HostReportFiles((path) => this.resolve(path));
  }

  // File calls below are synchronous system calls behind the async interface: a promise-based call is a
  // thread-pool round trip (several per file, ~1.5 ms a write on a loaded two-core VM), and kiln runs one
  // module at a time.

  async readFile(path: string): Promise<Uint8Array> {
    const held = this.accountWrites.textOf(rootPath(path));
    return held !== undefined
      ? Buffer.from(held, 'utf8')
      : readRegularFile(await this.resolve(path), path, this.root !== '/');
  }

  async readText(path: string): Promise<string> {
    return this.accountWrites.textOf(rootPath(path)) ?? this.readDiskText(path);
  }

  /** PATH's content on disk, whatever the account write-back holds for it. */
  async readDiskText(path: string): Promise<string> {
    return readRegularFile(await this.resolve(path), path, this.root !== '/').toString('utf8');
  }

  /** Runs WORK with its account-file changes written once, when it ends. */
  batch<T>(work: () => Promise<T>): Promise<T> {
    return this.accountWrites.batch(work);
  }

  readTextIfExists(path: string): Promise<string | undefined> {
    return undefinedIfMissing(() => this.readText(path));
  }

  async exists(path: string): Promise<boolean> {
    if (this.accountWrites.textOf(rootPath(path)) !== undefined) return true;
    return statOrUndefined(await this.resolve(path)) !== undefined;
  }

  async stat(path: string, opts?: { followLinks?: boolean }): Promise<FileStat | undefined> {
    const host = opts?.followLinks === false ? await this.resolveParentOnly(path) : await this.resolve(path);
    const st = statOrUndefined(host, opts?.followLinks !== false);
    if (!st) return undefined;
    const type = st.isSymbolicLink()
      ? 'symlink'
      : st.isFile()
        ? 'file'
        : st.isDirectory()
          ? 'directory'
          : st.isSocket()
            ? 'socket'
            : 'other';
    const held = this.accountWrites.textOf(rootPath(path));
    return {
      type,
      mode: st.mode & 0o7777,
      size: held !== undefined ? Buffer.byteLength(held, 'utf8') : st.size,
      mtimeMs: st.mtimeMs,
    };
  }

  async readLink(path: string): Promise<string | undefined> {
    const host = await this.resolveParentOnly(path);
    return statOrUndefined(host, false)?.isSymbolicLink() ? readlinkSync(host) : undefined;
  }

  async listDir(path: string): Promise<string[]> {
    return readdirSync(await this.resolve(path)).sort();
  }

  async mkdir(path: string, opts?: { mode?: number; owner?: string }): Promise<void> {
    const host = await this.resolve(path);
    makeDirs(host, opts?.mode ?? 0o755);
    if (opts?.mode !== undefined) chmodSync(host, opts.mode);
    if (opts?.owner !== undefined) {
      const ids = await this.ownerIds(opts.owner, path);
      chownSync(host, ids.uid, ids.gid);
    }
  }

  async remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    await this.accountWrites.flushBefore(rootPath(path));
    const host = await this.resolveParentOnly(path);
    rmSync(host, { force: true, recursive: opts?.recursive ?? false });
  }

  async symlink(target: string, path: string): Promise<void> {
    await this.accountWrites.flushBefore(rootPath(path));
    const host = await this.resolveParentOnly(path);
    makeDirs(posix.dirname(host));
    const temp = `${host}.kiln-${randomBytes(4).toString('hex')}`;
    symlinkSync(target, temp);
    renameSync(temp, host);
  }

  /** The host path of PATH with its folder resolved but the last component kept (to act on a link itself). */
  private async resolveParentOnly(path: string): Promise<string> {
    const norm = posix.normalize(posix.join('/', path));
    return posix.join(await this.resolve(posix.dirname(norm)), posix.basename(norm));
  }

  writeFile(path: string, data: string | Uint8Array, opts: FileOpts = {}): Promise<void> {
    if (opts.append) return this.appendToFile(path, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, opts);
    return this.writeFiles([{ path, data, opts }]);
  }

  /**
   * One write(2) at the end of PATH (O_APPEND, the file made when missing), as cloud-init appends and as
   * logs are written: the whole file is not copied for each line, and an existing file is not replaced.
   */
  private async appendToFile(path: string, bytes: Uint8Array, opts: FileOpts): Promise<void> {
    await this.accountWrites.flushBefore(rootPath(path));
    const host = await this.resolve(path);
    const ids = opts.owner ? await this.ownerIds(opts.owner, path) : undefined;
    const existing = statOrUndefined(host);
    const existingMode = existing?.mode;
    if (existing && !existing.isFile()) {
      // A FIFO would block the boot until someone reads it; a device node in a sandbox is the host's device.
      if (existing.isFIFO() || existing.isSocket() || existing.isDirectory() || this.root !== '/')
        throw new PlatformError(
          `cannot append to ${path}: it is ${fileKind(existing)}; kiln appends only to regular files`,
        );
    }
    if (existing?.isFile() && existing.nlink > 1 && this.root !== '/') {
      // Under --root a hard link may share its inode with a file outside the root: the appended content goes to
      // a new file that replaces this name (the link is broken), as a write without append does.
      const before = readFileSync(host);
      return this.writeFiles([
        {
          path,
          data: Buffer.concat([before, bytes]),
          opts: {
            ...opts,
            append: false,
            mode: opts.mode ?? existing.mode & 0o7777,
            ...(opts.owner ? {} : { owner: `${existing.uid}:${existing.gid}` }),
          },
        },
      ]);
    }
    const mode = opts.mode ?? (existingMode === undefined ? 0o644 : existingMode & 0o7777);
    try {
      makeDirs(posix.dirname(host));
      const fd = openSync(host, 'a', 0o600);
      try {
        if (ids) fchownSync(fd, ids.uid, ids.gid);
        if (existingMode === undefined || (existingMode & 0o7777) !== mode) fchmodSync(fd, mode);
        writeAll(fd, bytes);
        if (opts.durable) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      throw new PlatformError(`cannot append to ${path}: ${describeError(err)}`, { cause: err });
    }
    this.log.debug(`Writing to ${path} - ab: [${mode.toString(8)}] ${bytes.length} bytes`);
  }

  /**
   * Writes several files as one change: every new content is complete (and, for durable ones, synced, all
   * at once) before the first replaces its file; then they replace their files in the order given. A
   * failure before that leaves every file as it was.
   */
  async writeFiles(writes: FileWrite[]): Promise<void> {
    for (const w of writes) await this.accountWrites.flushBefore(rootPath(w.path));
    const staged: Array<{ file: StagedFile; path: string; mode: number; size: number; durable: boolean }> = [];
    try {
      for (const { path, data, opts = {} } of writes) {
        const host = await this.resolve(path);
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
        if (opts.append)
          throw new PlatformError(`cannot write ${path}: writeFiles replaces files; append with writeFile`);
        const existing = statOrUndefined(host);
        const ids = opts.owner
          ? await this.ownerIds(opts.owner, path)
          : existing
            ? { uid: existing.uid, gid: existing.gid }
            : undefined;
        const mode = opts.mode ?? (existing ? existing.mode & 0o7777 : 0o644);
        let file: StagedFile;
        try {
          file = stageFile(host, bytes, mode, ids);
        } catch (err) {
          throw new PlatformError(`cannot write ${path}: ${describeError(err)}`, { cause: err });
        }
        staged.push({ file, path, mode, size: bytes.length, durable: opts.durable ?? false });
      }
      const durable = staged.filter((s) => s.durable).map((s) => s.file);
      if (durable.length) {
        await syncStaged(durable).catch((err: unknown) => {
          throw new PlatformError(`cannot write ${staged.map((s) => s.path).join(', ')}: ${describeError(err)}`, {
            cause: err,
          });
        });
      }
    } catch (err) {
      for (const s of staged) discardStaged(s.file);
      throw err;
    }
    for (const [i, s] of staged.entries()) {
      try {
        commitStaged(s.file);
      } catch (err) {
        for (const rest of staged.slice(i)) discardStaged(rest.file);
        throw new PlatformError(`cannot write ${s.path}: ${describeError(err)}`, { cause: err });
      }
      this.log.debug(`Writing to ${s.path} - wb: [${s.mode.toString(8)}] ${s.size} bytes`);
    }
  }

  private async ownerIds(owner: string, forPath: string): Promise<{ uid: number; gid: number }> {
    // Numeric ids name themselves: no need to read passwd and group (account files and homes are written so).
    const numeric = /^(\d+):(\d+)$/.exec(owner);
    if (numeric) return { uid: Number(numeric[1]), gid: Number(numeric[2]) };
    const passwd = (await this.readTextIfExists('/etc/passwd')) ?? '';
    const group = (await this.readTextIfExists('/etc/group')) ?? '';
    try {
      return resolveOwner(owner, passwd, group);
    } catch (err) {
      throw new PlatformError(`cannot set owner '${owner}' on ${forPath}: ${describeError(err)}`);
    }
  }

  /** The argv that runs CMD in the target root. */
  commandLine(cmd: string[] | string): string[] {
    const argv = typeof cmd === 'string' ? ['/bin/sh', '-c', cmd] : cmd;
    if (this.root === '/') return argv;
    const chroot = ['chroot', this.root, ...argv];
    if (this.isolation === 'chroot') return chroot;
    const ns = ['--uts', '--ipc', '--mount', '--pid', '--fork', '--kill-child'];
    if (this.isolateNetwork) ns.push('--net');
    return ['unshare', ...ns, ...chroot];
  }

  async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    // A command may read or change the account files: it sees them as kiln left them.
    await this.accountWrites.flush();
    const argv = this.commandLine(cmd);
    const shown = scrubAll(typeof cmd === 'string' ? cmd : cmd.join(' '), opts.secrets);
    this.log.debug(`Running command ${shown}${this.root === '/' ? '' : ` in ${this.root}`}`);
    const outcome = await execProcess(
      {
        argv,
        ...(opts.input !== undefined ? { input: opts.input } : {}),
        env: { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...opts.env },
        ...(opts.cwd !== undefined ? { cwd: this.hostPath(opts.cwd) } : {}),
        ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
      },
      this.startProcess,
    );
    const result: RunResult = { code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr };
    const failed = outcome.code !== 0 || outcome.timedOut || outcome.spawnError !== undefined;
    if (failed && !opts.allowFailure) {
      const why = outcome.spawnError
        ? `could not start (${outcome.spawnError})`
        : outcome.timedOut
          ? `timed out after ${opts.timeoutMs} ms`
          : `exited with code ${outcome.code}`;
      const failure: CommandFailure = {
        argv: (typeof cmd === 'string' ? [cmd] : cmd).map((x) => scrubAll(x, opts.secrets)),
        ...(outcome.spawnError || outcome.timedOut ? { reason: why } : { code: outcome.code }),
        stdout: scrubAll(outcome.stdout, opts.secrets),
        stderr: scrubAll(outcome.stderr, opts.secrets),
      };
      throw new CommandError(
        `command '${shown}' ${why}${outcome.stderr ? `: ${scrubAll(outcome.stderr.trim(), opts.secrets)}` : ''}`,
        failure,
      );
    }
    return result;
  }
}

/** PATH as a normalized absolute path inside the root (the account write-back's keys). */
function rootPath(path: string): string {
  return posix.normalize(posix.join('/', path));
}

function scrubAll(text: string, secrets: string[] | undefined): string {
  let out = text;
  for (const s of secrets ?? []) if (s) out = out.split(s).join('REDACTED');
  return out;
}
