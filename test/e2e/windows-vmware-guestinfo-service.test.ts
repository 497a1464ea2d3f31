// The built kiln-win-x64.exe as cloudbase-init under wine with VMwareGuestInfoService: [vmwareguestinfo]
// vmware_rpctool_path names a fake rpctool, a cmd batch answering `info-get guestinfo.KEY` from files beside it
// (cloudbase-init runs the tool through the shell, so a batch file is a tool to it); host name and user data in base64
// and gzip+base64 applied (the keys and the admin user: test/plugins/vmware-ovf-services.test.ts).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { gzipSync } from 'node:zlib';
import { tempDir } from '../helpers/temp';
import {
  markerBatch,
  markerLines,
  privateWinePrefix,
  runCloudbaseInit,
  wineComputerName,
  wineExe,
  writeCloudbaseInitConf,
} from '../helpers/wine';

const KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpbG4tdm13LXdpbmUtZTJlLWtleS0wMDAwMDAwMDAwMDE vmw@wine';
const PLUGINS =
  'cloudbaseinit.plugins.common.sethostname.SetHostNamePlugin,cloudbaseinit.plugins.common.userdata.UserDataPlugin';

/**
 * VMware Tools' rpctool as a batch file: its one argument is the RPC (`info-get guestinfo.metadata`); it prints the
 * file named after the key beside it, or says "No value found" on stderr with exit 1 as the real tool does for an unset
 * key. Each RPC it is asked is appended to calls.txt so the test can see what kiln asked.
 */
const FAKE_RPCTOOL = [
  '@echo off',
  'echo %~1>> "%~dp0calls.txt"',
  'for /f "tokens=1,2" %%a in ("%~1") do (',
  '  if not "%%a"=="info-get" goto unknown',
  '  if not exist "%~dp0%%b" goto novalue',
  '  type "%~dp0%%b"',
  '  exit /b 0',
  ')',
  ':unknown',
  'echo Unknown command 1>&2',
  'exit /b 1',
  ':novalue',
  'echo No value found 1>&2',
  'exit /b 1',
  '',
].join('\r\n');

/**
 * Runs EXE with VMwareGuestInfoService only; the fake rpctool sits in a folder with a space in its name (as
 * `%ProgramFiles%\VMware\VMware Tools` has), named through a %VARIABLE% as the default path is. GUESTINFO maps each
 * key (`guestinfo.metadata`) to the value the tool gives.
 */
async function runGuestinfo(t: TestContext, exe: string, guestinfo: (marker: string) => Record<string, string>) {
  const dir = tempDir(t);
  const tools = join(dir, 'VMware Tools');
  const marker = join(dir, 'user-data-ran.txt');
  mkdirSync(tools);
  writeFileSync(join(tools, 'rpctool.cmd'), FAKE_RPCTOOL);
  for (const [key, value] of Object.entries(guestinfo(marker))) writeFileSync(join(tools, key), `${value}\r\n`);
  const prefix = privateWinePrefix(dir, {}, []);
  writeCloudbaseInitConf(
    dir,
    [
      'metadata_services=cloudbaseinit.metadata.services.vmwareguestinfoservice.VMwareGuestInfoService',
      `plugins=${PLUGINS}`,
    ],
    ['[vmwareguestinfo]', 'vmware_rpctool_path=%KILN_TEST_TOOLS%/rpctool.cmd'],
  );
  const r = await runCloudbaseInit(exe, dir, prefix, { KILN_TEST_TOOLS: `Z:${tools.replace(/\//g, '\\')}` });
  return {
    ...r,
    // stdout and stderr together, as the checks below look for a line in either.
    stdout: `${r.stdout}\n${r.stderr}`,
    calls: markerLines(join(tools, 'calls.txt')).map((l) => l.trim()),
    marker: markerLines(marker),
    computerName: wineComputerName(prefix),
  };
}

/** A `rem cmd` batch (cloudbase-init's cmd user data) appending LINE to MARKER. */
function markerScript(marker: string, line: string): Buffer {
  return Buffer.from(markerBatch(marker, line));
}

test('cloudbase-init under wine: VMwareGuestInfoService asks the rpctool for base64 metadata and user data; host name set, user data run', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const metadata = JSON.stringify({
    'instance-id': 'iid-vmware-wine',
    'local-hostname': 'vmw-wine-vm',
    'public-keys-data': `${KEY}\n`,
  });
  const r = await runGuestinfo(t, exe, (marker) => ({
    'guestinfo.metadata': Buffer.from(metadata).toString('base64'),
    'guestinfo.metadata.encoding': 'base64',
    'guestinfo.userdata': markerScript(marker, 'read from guestinfo b64').toString('base64'),
    'guestinfo.userdata.encoding': 'b64',
  }));
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.vmwareguestinfoservice\.VMwareGuestInfoService \(VMware\), instance iid-vmware-wine$/m,
  );
  assert.match(r.stdout, /SetHostNamePlugin\s+done/);
  assert.match(r.stdout, /UserDataPlugin\s+done/);
  assert.deepEqual(r.marker, ['read from guestinfo b64']);
  assert.equal(r.computerName.toUpperCase(), 'VMW-WINE-VM');
  // cloudbase-init's load(): the value, then its .encoding, metadata before userdata.
  assert.deepEqual(
    [...new Set(r.calls)],
    [
      'info-get guestinfo.metadata',
      'info-get guestinfo.metadata.encoding',
      'info-get guestinfo.userdata',
      'info-get guestinfo.userdata.encoding',
    ],
  );
});

test('cloudbase-init under wine: VMwareGuestInfoService with plain YAML metadata and gzip+base64 user data', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = await runGuestinfo(t, exe, (marker) => ({
    'guestinfo.metadata': 'instance-id: iid-vmware-gzip\r\nlocal-hostname: vmw-gzip-vm',
    'guestinfo.userdata': gzipSync(markerScript(marker, 'read from guestinfo gzip')).toString('base64'),
    'guestinfo.userdata.encoding': 'gzip+base64',
  }));
  assert.equal(r.code, 0, r.all);
  assert.match(
    r.stdout,
    /^metadata: cloudbaseinit\.metadata\.services\.vmwareguestinfoservice\.VMwareGuestInfoService \(VMware\), instance iid-vmware-gzip$/m,
  );
  assert.deepEqual(r.marker, ['read from guestinfo gzip']);
  assert.equal(r.computerName.toUpperCase(), 'VMW-GZIP-VM');
  assert.ok(r.calls.includes('info-get guestinfo.metadata.encoding'), r.calls.join('\n'));
});

test('cloudbase-init under wine: an rpctool with no guestinfo set means VMwareGuestInfoService is not there, and nothing is applied', async (t) => {
  const exe = wineExe(t);
  if (!exe) return;
  const r = await runGuestinfo(t, exe, () => ({}));
  assert.doesNotMatch(r.stdout, /^metadata: .*VMwareGuestInfoService/m, r.stdout);
  assert.ok(
    r.calls.includes('info-get guestinfo.metadata'),
    `the tool was asked: ${JSON.stringify(r.calls)}\n${r.all}`,
  );
});
