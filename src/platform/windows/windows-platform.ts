// The Windows platform: files under a root folder (C:\ at boot) and commands run directly.
import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { win32 } from 'node:path';
import type { BuildFacts } from '../../build-info';
import type { Log } from '../../util/log';
import { PlatformError } from '../../util/errors';
import { execProcess } from '../../util/exec';
import type { FileOpts, OsVersion, Platform, RunOpts, RunResult } from '../platform';
import { undefinedIfMissing } from '../missing-file';
import { loadKoffi, type Koffi } from './koffi-loader';
import { bindKernel32, type Kernel32 } from './win32/kernel32';
import { bindNtdll, type Ntdll } from './win32/ntdll';

export interface Win32Bindings {
  kernel32: Kernel32;
  ntdll: Ntdll;
}

export class WindowsPlatform implements Platform {
  readonly os = 'windows' as const;
  readonly root: string;
  private bindings: Win32Bindings | undefined;
  private koffi: Koffi | undefined;

  constructor(
    opts: { root: string; log: Log; facts: BuildFacts },
    private readonly log: Log = opts.log,
    private readonly facts: BuildFacts = opts.facts,
  ) {
    this.root = opts.root === '/' || opts.root === '' ? 'C:\\' : opts.root;
  }

  /** The Win32 API, bound on first use so commands that need none never load the addon. */
  win32(): Win32Bindings {
    if (!this.bindings) {
      this.koffi ??= loadKoffi(this.facts);
      this.bindings = { kernel32: bindKernel32(this.koffi), ntdll: bindNtdll(this.koffi) };
    }
    return this.bindings;
  }

  async osVersion(): Promise<OsVersion> {
    const v = this.win32().ntdll.rtlGetVersion();
    const version = `${v.major}.${v.minor}.${v.build}`;
    const kind = v.productType === 1 ? 'workstation' : v.productType === 2 ? 'domain controller' : 'server';
    return {
      id: 'windows',
      pretty: `Windows ${version} (${kind}${v.servicePack ? `, ${v.servicePack}` : ''})`,
      version,
      source: 'ntdll!RtlGetVersion',
    };
  }

  hostPath(path: string): string {
    if (/^[a-zA-Z]:[\\/]/.test(path)) return win32.normalize(path);
    return win32.join(this.root, path.replace(/\//g, '\\'));
  }

  readFile(path: string): Promise<Uint8Array> {
    return fsp.readFile(this.hostPath(path));
  }
  readText(path: string): Promise<string> {
    return fsp.readFile(this.hostPath(path), 'utf8');
  }
  readTextIfExists(path: string): Promise<string | undefined> {
    return undefinedIfMissing(() => this.readText(path));
  }
  async exists(path: string): Promise<boolean> {
    try {
      await fsp.stat(this.hostPath(path));
      return true;
    } catch {
      return false;
    }
  }
  async listDir(path: string): Promise<string[]> {
    return (await fsp.readdir(this.hostPath(path))).sort();
  }
  async mkdir(path: string): Promise<void> {
    await fsp.mkdir(this.hostPath(path), { recursive: true });
  }
  async remove(path: string, opts?: { recursive?: boolean }): Promise<void> {
    await fsp.rm(this.hostPath(path), { force: true, recursive: opts?.recursive ?? false });
  }
  async symlink(target: string, path: string): Promise<void> {
    await fsp.symlink(target, this.hostPath(path), 'junction');
  }

  async writeFile(path: string, data: string | Uint8Array, opts: FileOpts = {}): Promise<void> {
    const host = this.hostPath(path);
    await fsp.mkdir(win32.dirname(host), { recursive: true });
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let content: Uint8Array = bytes;
    if (opts.append) {
      try {
        content = Buffer.concat([await fsp.readFile(host), bytes]);
      } catch {
        content = bytes;
      }
    }
    const temp = `${host}.kiln-${randomBytes(6).toString('hex')}`;
    try {
      const handle = await fsp.open(temp, 'wx');
      await handle.writeFile(content);
      await handle.sync();
      await handle.close();
      await fsp.rename(temp, host);
    } catch (err) {
      await fsp.rm(temp, { force: true });
      throw new PlatformError(`cannot write ${path}: ${(err as Error).message}`, { cause: err });
    }
    this.log.debug(`Writing to ${host}: ${content.length} bytes`);
  }

  async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? ['cmd.exe', '/s', '/c', cmd] : cmd;
    const outcome = await execProcess({
      argv,
      ...(opts.input !== undefined ? { input: opts.input } : {}),
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.cwd !== undefined ? { cwd: this.hostPath(opts.cwd) } : {}),
      ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    });
    if ((outcome.code !== 0 || outcome.spawnError) && !opts.allowFailure) {
      throw new PlatformError(`command '${argv.join(' ')}' ${outcome.spawnError ? `could not start (${outcome.spawnError})` : `exited with code ${outcome.code}`}`);
    }
    return { code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr };
  }
}
