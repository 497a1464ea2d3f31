// An in-memory Platform for plugin tests: files in a map, commands answered by a scripted handler.
import type { FileStat, OsVersion, Platform, RunOpts, RunResult, Uname } from '../../src/platform/platform';

export class FakeFiles implements Platform {
  readonly root = 'C:\\';
  readonly os = 'windows' as const;
  readonly files = new Map<string, Uint8Array>();
  readonly runs: string[][] = [];
  readonly hostnames: string[] = [];
  /** Answers a command; default exit 0. */
  onRun: (argv: string[], files: Map<string, Uint8Array>) => Partial<RunResult> = () => ({});

  private k(path: string): string {
    return path
      .replace(/\//g, '\\')
      .replace(/^[a-z]:\\/i, '')
      .replace(/^\\+/, '')
      .toLowerCase();
  }
  uname(): Uname {
    return {
      sysname: 'Windows_NT',
      nodename: 'WIN-FAKE',
      release: '10.0.20348',
      version: 'Windows Server 2022',
      machine: 'x86_64',
    };
  }
  runningUser(): string {
    return 'SYSTEM';
  }
  hostPath(path: string): string {
    return /^[a-z]:\\/i.test(path) ? path : `C:\\${path.replace(/\//g, '\\').replace(/^\\+/, '')}`;
  }
  async readFile(path: string): Promise<Uint8Array> {
    const f = this.files.get(this.k(path));
    if (!f) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return f;
  }
  async readText(path: string): Promise<string> {
    return Buffer.from(await this.readFile(path)).toString('utf8');
  }
  async readTextIfExists(path: string): Promise<string | undefined> {
    const f = this.files.get(this.k(path));
    return f ? Buffer.from(f).toString('utf8') : undefined;
  }
  async exists(path: string): Promise<boolean> {
    const k = this.k(path);
    return this.files.has(k) || [...this.files.keys()].some((f) => f.startsWith(`${k.replace(/\\+$/, '')}\\`));
  }
  async stat(path: string): Promise<FileStat | undefined> {
    const data = this.files.get(this.k(path));
    if (data) return { type: 'file', mode: 0o644, size: data.length };
    return (await this.exists(path)) ? { type: 'directory', mode: 0o755, size: 0 } : undefined;
  }
  async listDir(path: string): Promise<string[]> {
    const k = `${this.k(path).replace(/\\+$/, '')}\\`;
    return [
      ...new Set(
        [...this.files.keys()].filter((f) => f.startsWith(k)).map((f) => f.slice(k.length).split('\\')[0] as string),
      ),
    ].sort();
  }
  async writeFile(path: string, data: string | Uint8Array, opts: { append?: boolean } = {}): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const before = opts.append ? this.files.get(this.k(path)) : undefined;
    this.files.set(this.k(path), before ? Buffer.concat([before, bytes]) : bytes);
  }
  async mkdir(_path?: string): Promise<void> {}
  async remove(path: string): Promise<void> {
    const k = this.k(path);
    for (const f of [...this.files.keys()]) if (f === k || f.startsWith(`${k}\\`)) this.files.delete(f);
  }
  async symlink(): Promise<void> {}
  async osVersion(): Promise<OsVersion> {
    return { id: 'windows', pretty: 'Windows 10.0.20348', version: '10.0.20348', source: 'fake' };
  }
  async setHostname(hostname: string): Promise<boolean> {
    this.hostnames.push(hostname);
    return true;
  }
  async run(cmd: string[] | string, _opts?: RunOpts): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? ['cmd.exe', '/s', '/c', cmd] : cmd;
    this.runs.push(argv);
    const r = this.onRun(argv, this.files);
    return { code: r.code ?? 0, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  }
}
