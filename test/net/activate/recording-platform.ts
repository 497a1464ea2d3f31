// A LinuxPlatform over a temp root whose commands are recorded and answered from a script instead of run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { LinuxPlatform } from '../../../src/platform/linux/linux-platform';
import type { RunOpts, RunResult } from '../../../src/platform/platform';
import { Logger } from '../../../src/util/log';
import { tempDir } from '../../helpers/temp';

export class RecordingPlatform extends LinuxPlatform {
  readonly commands: string[] = [];
  readonly timeouts: Array<number | undefined> = [];
  constructor(
    root: string,
    private readonly answer: (argv: string[]) => Partial<RunResult> = () => ({}),
  ) {
    super({ root, log: new Logger().for('test.ts') });
  }
  override async run(cmd: string[] | string, opts: RunOpts = {}): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? ['/bin/sh', '-c', cmd] : cmd;
    this.commands.push(argv.join(' '));
    this.timeouts.push(opts.timeoutMs);
    const r = { code: 0, stdout: '', stderr: '', ...this.answer(argv) };
    if (r.code !== 0 && !opts.allowFailure) throw new Error(`${argv.join(' ')} failed`);
    return r;
  }
}

/** A temp root holding FILES (empty) and a platform over it that records commands. */
export function recordingRoot(
  t: TestContext,
  files: string[],
  answer?: (argv: string[]) => Partial<RunResult>,
): RecordingPlatform {
  const root = tempDir(t);
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), '');
  }
  return new RecordingPlatform(root, answer);
}

export const IFUPDOWN_FILES = ['sbin/ifquery', 'sbin/ifup', 'sbin/ifdown', 'etc/network/interfaces'];
export const NETWORKD_FILES = ['bin/ip', 'bin/systemctl'];
export const NETPLAN_FILES = ['usr/sbin/netplan'];
export const NM_FILES = ['usr/bin/nmcli', 'etc/NetworkManager/NetworkManager.conf'];
