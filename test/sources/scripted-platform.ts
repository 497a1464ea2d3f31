// A Linux platform for the temporary-network tests: every command is recorded and answered by the test's
// script (exit 0 with no output where the script says nothing); files and folders as the test gives them.
import type { Platform, RunOpts, RunResult } from '../../src/platform/platform';

export interface ScriptedPlatform {
  platform: Platform;
  /** Every command run, as one line. */
  runs: string[];
  /** Paths removed and written, in order. */
  removed: string[];
  written: string[];
}

export interface Script {
  /** What /sys/class/net lists. */
  nics: string[];
  /** The answer to one command line; undefined: exit 0, no output. */
  answer(line: string): RunResult | undefined;
  /** Text files the target holds (a DHCP client's lease file, say). */
  readTextIfExists?(path: string): string | undefined;
}

export const ok = (stdout = ''): RunResult => ({ code: 0, stdout, stderr: '' });

export function scriptedPlatform(script: Script): ScriptedPlatform {
  const runs: string[] = [];
  const removed: string[] = [];
  const written: string[] = [];
  const unused = async (): Promise<never> => {
    throw new Error('not used by the temporary network');
  };
  const unusedFact = (): never => {
    throw new Error('not used by the temporary network');
  };
  const platform: Platform = {
    root: '/',
    os: 'linux',
    hostPath: (p) => p,
    readFile: unused,
    readText: unused,
    readTextIfExists: async (p) => script.readTextIfExists?.(p),
    exists: async () => false,
    listDir: async (p) => {
      if (p === '/sys/class/net') return script.nics;
      throw new Error('ENOENT');
    },
    writeFile: async (p) => void written.push(p),
    mkdir: unused,
    remove: async (p) => void removed.push(p),
    symlink: unused,
    osVersion: unused,
    stat: unused,
    uname: unusedFact,
    runningUser: unusedFact,
    setHostname: unused,
    run: async (cmd: string[] | string, _opts?: RunOpts): Promise<RunResult> => {
      const line = typeof cmd === 'string' ? cmd : cmd.join(' ');
      runs.push(line);
      return script.answer(line) ?? ok();
    },
  };
  return { platform, runs, removed, written };
}
