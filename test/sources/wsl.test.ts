// WSL's Windows side from inside the instance: drvfs mounts, cmd.exe's %USERPROFILE% and wslpath on the running
// system (their answers scripted), and Landscape's installation_request_id, as upstream's DataSourceWSL.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { LinuxPlatform } from '../../src/platform/linux/linux-platform';
import type { Platform, RunResult } from '../../src/platform/platform';
import { configData, mergeAgentAndUserData } from '../../src/sources/wsl/wsl-user-data';
import { drvfsMounts, windowsToLinuxPath } from '../../src/sources/wsl/wsl-windows-home';
import { wslSource } from '../../src/sources/wsl/wsl';
import { Logger } from '../../src/util/log';
import { FIXTURES } from '../helpers/repo';
import { FakeFinder } from './fake-finder';

const MOUNTS = [
  'C:\\134 /mnt/c 9p rw,noatime,aname=drvfs;path=C:\\134;uid=1000;gid=1000;symlinkroot=/mnt/ 0 0',
  'drvfs /mnt/my\\040data 9p rw,aname=drvfs;path=D:\\134;uid=1000 0 0',
  'none /mnt/wsl tmpfs rw 0 0',
  'C:\\134 /mnt/c2 9p rw,aname=other 0 0',
].join('\n');

test('drvfs mounts: 9p with aname=drvfs, octal escapes undone, the drive letter from path=; Windows paths through them', () => {
  const mounts = drvfsMounts(MOUNTS);
  assert.deepEqual(mounts, [
    { mountpoint: '/mnt/c', letter: 'C' },
    { mountpoint: '/mnt/my data', letter: 'D' },
  ]);
  assert.equal(windowsToLinuxPath('C:\\Users\\Ann Lee', mounts), '/mnt/c/Users/Ann Lee');
  assert.equal(windowsToLinuxPath('d:/x\\y\\', mounts), '/mnt/my data/x/y');
  assert.throws(() => windowsToLinuxPath('E:\\Users\\x', mounts), /drive E: .* is not mounted/);
  assert.throws(() => windowsToLinuxPath('\\\\server\\share', mounts), /not a drive path/);
});

/** The precedence fixture's root, seen as the running system ('/'), with cmd.exe and wslpath answered by RUN. */
function runningSystem(run: (argv: string[]) => RunResult): { platform: Platform; runs: string[][] } {
  const log = new Logger().for('t');
  const inner = new LinuxPlatform({ root: join(FIXTURES, 'sources/wsl/precedence/root'), log });
  const runs: string[][] = [];
  const platform: Platform = new Proxy(inner, {
    get(target, key) {
      if (key === 'root') return '/';
      if (key === 'run')
        return async (cmd: string[]) => {
          runs.push(cmd);
          return run(cmd);
        };
      if (key === 'stat')
        return async (p: string) => (p.endsWith('cmd.exe') ? { type: 'file', mode: 0o777, size: 1 } : target.stat?.(p));
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { platform, runs };
}

test("on the running system: cmd.exe /U's UTF-16 %USERPROFILE% and wslpath -am / find the folder and the instance", async () => {
  const utf16 = (s: string) => Buffer.from(s, 'utf16le').toString('utf8');
  const { platform, runs } = runningSystem((argv) => {
    if (argv[0] === '/init') return { code: 0, stdout: utf16('C:\\Users\\ann\r\n'), stderr: '' };
    if (argv[0] === '/usr/bin/wslpath') return { code: 0, stdout: '//wsl.localhost/Dev/\n', stderr: '' };
    return { code: 127, stdout: '', stderr: 'not found' };
  });
  const log = new Logger().for('t');
  const data = await wslSource.crawl({
    platform,
    log,
    kernelCmdline: '',
    dmi: {},
    config: {},
    finder: new FakeFinder(platform),
    settings: {},
  });
  assert.equal(data.instanceId, 'dev-0001');
  assert.equal(Buffer.from(data.userData ?? []).toString(), '#cloud-config\nhostname: from-version\n');
  assert.deepEqual(runs.slice(0, 2), [
    ['/usr/bin/wslpath', '-am', '/'],
    ['/init', '/mnt/c/Windows/System32/cmd.exe', '/U', '/C', 'echo.%USERPROFILE%'],
  ]);
  const silent = runningSystem((argv) =>
    argv[0] === '/init'
      ? { code: 0, stdout: '', stderr: '' }
      : { code: 0, stdout: '//wsl.localhost/Dev/\n', stderr: '' },
  );
  await assert.rejects(
    wslSource.crawl({
      platform: silent.platform,
      log,
      kernelCmdline: '',
      dmi: {},
      config: {},
      finder: new FakeFinder(silent.platform),
      settings: {},
    }),
    /no output from cmd.exe/,
  );
});

test("Landscape's client gets installation_request_id = the instance id (unless set), and the text is rewritten; the default id leaves it", () => {
  const text = '#cloud-config\nlandscape:\n  client:\n    account_name: acme\n';
  assert.equal(
    configData(text, 'a', 'wsl-7').raw,
    '#cloud-config\nlandscape:\n  client:\n    account_name: acme\n    installation_request_id: wsl-7',
  );
  assert.equal(configData(text, 'a', 'iid-datasource-wsl').raw, text);
  assert.equal(configData(text, 'a', '').raw, text);
  const preset = '#cloud-config\nlandscape:\n  client:\n    installation_request_id: other\n';
  assert.equal(configData(preset, 'a', 'wsl-7').raw, preset);
  assert.equal(configData('#cloud-config-archive\n- x\n', 'a', 'wsl-7').config, undefined);
  const log = new Logger().for('t');
  assert.equal(mergeAgentAndUserData(undefined, undefined, log), undefined);
  assert.equal(
    mergeAgentAndUserData(configData('', 'agent', ''), configData('#!/bin/sh\n', 'u', ''), log),
    '#!/bin/sh\n',
  );
});
