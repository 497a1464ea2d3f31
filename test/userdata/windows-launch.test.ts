// Windows script detection order, PowerShell/cmd launch lines and exit-code mapping, checked on any OS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FileOpts, Platform, RunOpts, RunResult } from '../../src/platform/platform';
import { runWindowsScript, windowsHostFacts } from '../../src/userdata/windows-runner';
import { detectWindowsScript, exitCodeRequest, windowsLaunchLine } from '../../src/userdata/windows-scripts';

/** Records writes, runs and removes; answers every run with CODE. */
class RecordingPlatform {
  readonly root = 'C:\\';
  readonly os = 'windows' as const;
  files = new Map<string, Uint8Array>();
  runs: string[][] = [];
  removed: string[] = [];
  sawFileAtRun = false;
  constructor(private readonly code: number) {}
  async writeFile(path: string, data: string | Uint8Array, _o?: FileOpts): Promise<void> {
    this.files.set(path, typeof data === 'string' ? Buffer.from(data) : data);
  }
  async run(cmd: string[] | string, _o?: RunOpts): Promise<RunResult> {
    const argv = typeof cmd === 'string' ? [cmd] : cmd;
    this.runs.push(argv);
    this.sawFileAtRun = this.files.has(argv[argv.length - 1] as string);
    return { code: this.code, stdout: '', stderr: '' };
  }
  async remove(path: string): Promise<void> {
    this.removed.push(path);
    this.files.delete(path);
  }
}

const host64 = { systemRoot: 'C:\\Windows', os64: true, wow64: false };
const host32on64 = { systemRoot: 'C:\\Windows', os64: true, wow64: true };

test('detection follows cloudbase-init order', () => {
  const k = (s: string) => detectWindowsScript(Buffer.from(s));
  assert.equal(k('rem cmd\necho'), 'cmd');
  assert.equal(k('REM cmd\necho'), undefined, 'rem cmd is case-sensitive in cloudbase-init');
  assert.equal(k('#!/usr/bin/env python\nprint()'), 'python');
  assert.equal(k('#!/usr/bin/env python3\nprint()'), 'bash');
  assert.equal(k('#!/bin/bash\n'), 'bash');
  assert.equal(k('#ps1\nWrite-Host'), 'powershell');
  assert.equal(k('#ps1_sysnative\nWrite-Host'), 'powershell');
  assert.equal(k('#ps1_x86\nWrite-Host'), 'powershell-x86');
  assert.equal(k('#ps1x\n'), undefined);
  assert.equal(k('hello <powershell>x</powershell>'), 'ec2');
  assert.equal(k('rem cmd\n<script>x</script>'), 'cmd', 'earlier rules win');
  assert.equal(k('plain text'), undefined);
});

test('PowerShell launch lines: Sysnative from a 32-bit process, SysWOW64 for #ps1_x86, System32 otherwise', () => {
  const flags = ['-ExecutionPolicy', 'RemoteSigned', '-NonInteractive', '-File', 'C:\\t\\x.ps1'];
  assert.deepEqual(windowsLaunchLine('powershell', 'C:\\t\\x.ps1', host64), [
    'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    ...flags,
  ]);
  assert.deepEqual(windowsLaunchLine('powershell', 'C:\\t\\x.ps1', host32on64), [
    'C:\\Windows\\Sysnative\\WindowsPowerShell\\v1.0\\powershell.exe',
    ...flags,
  ]);
  assert.deepEqual(windowsLaunchLine('powershell-x86', 'C:\\t\\x.ps1', host64), [
    'C:\\Windows\\SysWOW64\\WindowsPowerShell\\v1.0\\powershell.exe',
    ...flags,
  ]);
  assert.deepEqual(
    windowsLaunchLine('powershell-x86', 'C:\\t\\x.ps1', { systemRoot: 'C:\\Windows', os64: false, wow64: false }),
    ['C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', ...flags],
  );
  assert.deepEqual(windowsLaunchLine('cmd', 'C:\\t\\x.cmd', host64), ['cmd.exe', '/c', 'C:\\t\\x.cmd']);
  assert.deepEqual(windowsLaunchLine('python', 'C:\\t\\x.py', host64), ['python', 'C:\\t\\x.py']);
  assert.deepEqual(windowsLaunchLine('bash', 'C:\\t\\x.sh', host64), ['bash', 'C:\\t\\x.sh']);
});

test('host facts come from the Windows environment', () => {
  assert.deepEqual(
    windowsHostFacts({ SystemRoot: 'D:\\Win', PROCESSOR_ARCHITECTURE: 'x86', PROCESSOR_ARCHITEW6432: 'AMD64' }),
    { systemRoot: 'D:\\Win', os64: true, wow64: true },
  );
  assert.deepEqual(windowsHostFacts({ SystemRoot: 'C:\\Windows', PROCESSOR_ARCHITECTURE: 'AMD64' }), {
    systemRoot: 'C:\\Windows',
    os64: true,
    wow64: false,
  });
});

test('exit codes 1001/1002/1003 ask for reboot and/or another run; others for nothing', () => {
  assert.deepEqual(exitCodeRequest(0), { reboot: false, runAgain: false });
  assert.deepEqual(exitCodeRequest(1), { reboot: false, runAgain: false });
  assert.deepEqual(exitCodeRequest(1001), { reboot: true, runAgain: false });
  assert.deepEqual(exitCodeRequest(1002), { reboot: false, runAgain: true });
  assert.deepEqual(exitCodeRequest(1003), { reboot: true, runAgain: true });
  assert.deepEqual(exitCodeRequest(1004), { reboot: false, runAgain: false });
});

test('a script is written to a random temp file, launched, and removed', async () => {
  const p = new RecordingPlatform(1002);
  const ctx = { platform: p as unknown as Platform, host: host64, tempDir: 'C:\\Temp' };
  const a = await runWindowsScript(ctx, {
    kind: 'powershell',
    name: 'user-data',
    content: Buffer.from('#ps1\nexit 1002'),
    persist: false,
    runAsLocalSystem: false,
  });
  const b = await runWindowsScript(ctx, {
    kind: 'powershell',
    name: 'user-data',
    content: Buffer.from('#ps1\nexit 1002'),
    persist: false,
    runAsLocalSystem: false,
  });
  const path = a.launch[a.launch.length - 1] as string;
  assert.match(path, /^C:\\Temp\\kiln-[0-9a-f]{32}\.ps1$/);
  assert.notEqual(path, b.launch[b.launch.length - 1], 'names are random');
  assert.ok(p.sawFileAtRun, 'the file existed when the interpreter ran');
  assert.deepEqual(p.removed, [path, b.launch[b.launch.length - 1]]);
  assert.equal(p.files.size, 0);
  assert.deepEqual(
    { code: a.code, reboot: a.reboot, runAgain: a.runAgain },
    { code: 1002, reboot: false, runAgain: true },
  );
  const persisted = await runWindowsScript(
    { ...ctx, platform: new RecordingPlatform(0) as unknown as Platform },
    { kind: 'cmd', name: 'x', content: Buffer.from('echo'), persist: true, runAsLocalSystem: false },
  );
  assert.deepEqual(
    { runAgain: persisted.runAgain, persist: persisted.persist },
    { runAgain: false, persist: true },
    '<persist> is not a request to run again, but runs at every boot',
  );
});
