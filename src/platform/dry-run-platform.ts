// --dry-run: reads go to the real target, every effect is recorded (and kept in memory) but never applied.
import { posix } from 'node:path';
import type { PlannedFiles } from './linux/accounts/dry-run-accounts';
import type { Effect, FileOpts, FileStat, OsVersion, Platform, RunOpts, RunResult, Uname } from './platform';
import { undefinedIfMissing } from './missing-file';

export class DryRunPlatform implements Platform {
  readonly effects: Effect[] = [];
  /** Files "written" so far, so later reads in the same run see the planned content. */
  private readonly written = new Map<string, Uint8Array>();
  private readonly removed = new Set<string>();

  /**
   * PLAN_COMMAND puts what a listed command would change into this run's view of the files (the accounts a
   * useradd would add), so that what later steps read follows from it; it changes nothing itself.
   */
  constructor(
    private readonly inner: Platform,
    private readonly planCommand?: (argv: readonly string[], files: PlannedFiles) => Promise<boolean>,
  ) {}

  get root(): string {
    return this.inner.root;
  }
  get os(): 'linux' | 'windows' {
    return this.inner.os;
  }
  hostPath(path: string): string {
    return this.inner.hostPath(path);
  }

  resolvedHostPath(path: string): Promise<string> {
    return this.inner.resolvedHostPath?.(path) ?? Promise.resolve(this.inner.hostPath(path));
  }
  osVersion(): Promise<OsVersion> {
    return this.inner.osVersion();
  }
  /**
   * A read: the machine's uptime as the platform it wraps tells it. (No hostReports: a dry run tells the host nothing.)
   */
  uname(): Uname {
    return this.inner.uname();
  }

  runningUser(): string {
    return this.inner.runningUser();
  }

  async hostUptime(): Promise<number | undefined> {
    return this.inner.hostUptime?.();
  }

  private key(path: string): string {
    return posix.normalize(posix.join('/', path.replace(/\\/g, '/')));
  }

  async readFile(path: string): Promise<Uint8Array> {
    const k = this.key(path);
    const planned = this.written.get(k);
    if (planned) return planned;
    if (this.removed.has(k))
      throw Object.assign(new Error(`ENOENT: ${path} (removed in this dry run)`), { code: 'ENOENT' });
    return this.inner.readFile(path);
  }
  async readText(path: string): Promise<string> {
    return Buffer.from(await this.readFile(path)).toString('utf8');
  }
  readTextIfExists(path: string): Promise<string | undefined> {
    return undefinedIfMissing(() => this.readText(path));
  }
  async exists(path: string): Promise<boolean> {
    const k = this.key(path);
    if (this.written.has(k)) return true;
    if (this.removed.has(k)) return false;
    return this.inner.exists(path);
  }
  async stat(path: string, opts?: { followLinks?: boolean }): Promise<FileStat | undefined> {
    const k = this.key(path);
    const planned = this.written.get(k);
    if (planned) return { type: 'file', mode: 0o644, size: planned.length };
    if (this.removed.has(k)) return undefined;
    return this.inner.stat(path, opts);
  }
  async readLink(path: string): Promise<string | undefined> {
    const k = this.key(path);
    if (this.written.has(k) || this.removed.has(k)) return undefined;
    return this.inner.readLink ? this.inner.readLink(path) : undefined;
  }
  async listDir(path: string): Promise<string[]> {
    const base = this.key(path);
    const names = new Set((await this.inner.exists(path)) ? await this.inner.listDir(path) : []);
    for (const k of this.written.keys()) if (posix.dirname(k) === base) names.add(posix.basename(k));
    for (const k of this.removed) if (posix.dirname(k) === base) names.delete(posix.basename(k));
    return [...names].sort();
  }

  async writeFile(path: string, data: string | Uint8Array, opts: FileOpts = {}): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const k = this.key(path);
    let content: Uint8Array = bytes;
    if (opts.append) {
      const before = (await this.exists(path)) ? await this.readFile(path) : new Uint8Array();
      content = Buffer.concat([before, bytes]);
    }
    this.written.set(k, content);
    this.removed.delete(k);
    this.effects.push({
      kind: 'write-file',
      path: k,
      bytes: bytes.length,
      ...(opts.mode !== undefined ? { mode: opts.mode } : {}),
      ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
      ...(opts.append ? { append: true } : {}),
    });
  }
  async mkdir(path: string, opts?: { mode?: number; owner?: string }): Promise<void> {
    this.effects.push({
      kind: 'mkdir',
      path: this.key(path),
      ...(opts?.mode !== undefined ? { mode: opts.mode } : {}),
      ...(opts?.owner !== undefined ? { owner: opts.owner } : {}),
    });
  }
  async remove(path: string): Promise<void> {
    const k = this.key(path);
    this.written.delete(k);
    this.removed.add(k);
    this.effects.push({ kind: 'remove', path: k });
  }
  async symlink(target: string, path: string): Promise<void> {
    this.effects.push({ kind: 'symlink', path: this.key(path), target });
  }
  async setHostname(hostname: string): Promise<boolean> {
    this.effects.push({ kind: 'set-hostname', hostname });
    return true;
  }
  async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    let shown = typeof cmd === 'string' ? cmd : cmd.join(' ');
    for (const s of opts.secrets ?? []) if (s) shown = shown.split(s).join('REDACTED');
    this.effects.push({ kind: 'run', command: shown });
    if (Array.isArray(cmd) && this.planCommand) {
      await this.planCommand(cmd, {
        readTextIfExists: (p) => this.readTextIfExists(p),
        plan: (p, text) => void this.written.set(this.key(p), Buffer.from(text, 'utf8')),
      });
    }
    return { code: 0, stdout: '', stderr: '' };
  }
}

/** One line per effect, as `--dry-run` prints them. */
export function describeEffect(e: Effect): string {
  // In the conditional: nothing of it happened.
  switch (e.kind) {
    case 'write-file':
      return `would write ${e.path} (${e.bytes} bytes${e.mode !== undefined ? `, mode ${e.mode.toString(8).padStart(4, '0')}` : ''}${e.owner ? `, owner ${e.owner}` : ''}${e.append ? ', append' : ''})`;
    case 'mkdir':
      return `would mkdir ${e.path}`;
    case 'remove':
      return `would remove ${e.path}`;
    case 'symlink':
      return `would symlink ${e.path} -> ${e.target}`;
    case 'run':
      return `would run ${e.command}`;
    case 'set-hostname':
      return `would set hostname ${e.hostname}`;
  }
}
