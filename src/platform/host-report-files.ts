// The files kiln shares with the machine's host (Hyper-V's KVP pools), written in place at their host paths: the
// host's daemon reads the file it knows, so it is truncated and appended to, never replaced by a new one.
import { promises as fsp } from 'node:fs';
import type { HostReports } from './platform';

export class HostReportFiles implements HostReports {
  /** HOST_PATH: where a path inside the root is on this machine (links followed inside the root). */
  constructor(private readonly hostPath: (path: string) => Promise<string>) {}

  async lastWritten(path: string): Promise<number | undefined> {
    const st = await fsp.stat(await this.hostPath(path)).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    return st?.mtimeMs;
  }

  async empty(path: string): Promise<void> {
    await fsp.truncate(await this.hostPath(path), 0);
  }

  async append(path: string, data: Uint8Array): Promise<void> {
    await fsp.appendFile(await this.hostPath(path), data, { mode: 0o644 });
  }
}
