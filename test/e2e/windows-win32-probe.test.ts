// Every Win32 binding executed under wine by the built kiln-win-x64.exe (`kiln devel win32-probe --scratch`, in a
// private prefix), one test per DLL, each checking what wine really returned. The functions wine lacks or cannot
// run are named below (NOT_RUN_BY_THE_PROBE) with where they are run or faked instead; docs/windows.md lists them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test, type TestContext } from 'node:test';
import { REPO } from '../helpers/repo';
import { openLab, sh, type OpenLab } from '../helpers/netns-lab';
import { hasCommand, isRoot, need } from '../helpers/requirements';
import { privateWinePrefix, runUnderWine, wineExe } from '../helpers/wine';

interface ProbeLine {
  dll: string;
  functions: string[];
  ok: boolean;
  value?: unknown;
  error?: string;
}

/** Bound functions the probe does not call, and why; each is run or faked elsewhere (docs/windows.md). */
const NOT_RUN_BY_THE_PROBE: Record<string, string> = {
  'netapi32!NetUserSetInfo':
    'a stub in wine 8 that aborts the process; faked (test/platform/windows/win32-calls.test.ts, FakeWindows)',
  'advapi32!RegisterServiceCtrlHandlerExW':
    'only inside a service the control manager started: e2e/windows-cloudbase-init service test',
  'advapi32!SetServiceStatus':
    'only inside a service the control manager started: e2e/windows-cloudbase-init service test',
  'crypt32!CryptMsgControl':
    'needs an envelope for a key of a machine container: e2e/windows-azure-service (ServerCertificatesPlugin)',
  'crypt32!CryptMsgGetParam':
    'needs an envelope for a key of a machine container: e2e/windows-azure-service (ServerCertificatesPlugin)',
};

/** The MAC of the probe's namespace's eth0. */
const PROBE_MAC = '02:00:5e:00:53:44';
let dir: string | undefined;
let probe: ProbeLine[] | undefined;
let lab: OpenLab | undefined;
after(() => {
  lab?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/**
 * The probe's lines (one run of the exe for every test of this file); undefined with T skipped when wine or openssl is
 * missing.
 */
function probeLines(t: TestContext): ProbeLine[] | undefined {
  const exe = wineExe(t);
  if (!exe || !need(t, hasCommand('openssl'), 'openssl is not installed')) return undefined;
  if (probe) return probe;
  dir = mkdtempSync(join(tmpdir(), 'kiln-win32-probe-'));
  const file = join(dir, 'probe.bin');
  const bytes = Buffer.alloc(2048, 0x5a);
  bytes.write('KILN-PROBE-DATA-0123', 512, 'latin1');
  writeFileSync(file, bytes);
  const ssl = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  ssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'k.pem',
    '-out',
    'c.pem',
    '-days',
    '2',
    '-subj',
    '/CN=kiln-pfx',
  ]);
  // The legacy PKCS#12 algorithms: wine's PFXImportCertStore reads no AES-protected PFX.
  ssl([
    'pkcs12',
    '-export',
    '-inkey',
    'k.pem',
    '-in',
    'c.pem',
    '-out',
    'p.pfx',
    '-passout',
    'pass:pw',
    '-certpbe',
    'PBE-SHA1-3DES',
    '-keypbe',
    'PBE-SHA1-3DES',
    '-macalg',
    'sha1',
  ]);
  const pfxThumbprint = /=([0-9A-F:]+)/
    .exec(ssl(['x509', '-in', 'c.pem', '-noout', '-fingerprint', '-sha1']))?.[1]
    ?.replace(/:/g, '');
  const prefix = privateWinePrefix(dir, {}, []);
  // The probe calls the IP Helper's write functions on the first adapter: it runs in a network namespace of its own,
  // whose eth0 has an address and a default route for the routing table to show, so the host's network is never
  // listed nor touched, whatever wine comes to implement.
  if (!need(t, isRoot() && hasCommand('ip'), 'needs root and ip (iproute2) for a network namespace of its own'))
    return undefined;
  lab = openLab(join(dir, 'lab'), { mac: PROBE_MAC, dhcp: false });
  for (const cmd of [
    ['addr', 'add', '10.199.0.5/24', 'dev', 'eth0'],
    ['link', 'set', 'eth0', 'up'],
    ['route', 'add', 'default', 'via', '10.199.0.1'],
  ])
    sh(['ip', '-n', lab.client, ...cmd]);
  const r = runUnderWine(
    exe,
    [
      'devel',
      'win32-probe',
      '--scratch',
      '--file',
      `Z:${file}`,
      '--pfx',
      `Z:${join(dir, 'p.pfx')}`,
      '--pfx-password',
      'pw',
    ],
    { WINEPREFIX: prefix },
    180_000,
    lab.client,
  );
  assert.equal(r.code, 0, `${r.stdout}\n${r.stderr}`);
  probe = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ProbeLine);
  probe.push({ dll: 'test', functions: [], ok: true, value: pfxThumbprint });
  return probe;
}

/** The probe line of DLL that called FN first. */
function step(lines: ProbeLine[], dll: string, fn: string): ProbeLine {
  const line = lines.find((l) => l.dll === dll && l.functions.includes(fn));
  assert.ok(line, `no probe step of ${dll} calls ${fn}`);
  return line;
}

/** The probe line of DLL whose functions are exactly FNS. */
function exactly(lines: ProbeLine[], dll: string, fns: string[]): ProbeLine {
  const line = lines.find((l) => l.dll === dll && l.functions.join() === fns.join());
  assert.ok(line, `no probe step of ${dll} calls exactly ${fns.join(', ')}`);
  return line;
}

/** The value of a step that succeeded. */
function ok(lines: ProbeLine[], dll: string, fn: string): unknown {
  const line = step(lines, dll, fn);
  assert.equal(line.ok, true, `${dll}!${fn}: ${line.error}`);
  return line.value;
}

/** The error of a step that failed as wine makes it fail. */
function failed(lines: ProbeLine[], dll: string, fn: string): string {
  const line = step(lines, dll, fn);
  assert.equal(line.ok, false, `${dll}!${fn} was expected to fail under wine, got ${JSON.stringify(line.value)}`);
  return line.error ?? '';
}

/**
 * The functions each binding file (named as its DLL) declares, from its source: lib.func('__stdcall', 'Name' …),
 * lazy('Name' …). A file may bind a function of another DLL (crypt32.ts binds advapi32's CryptoAPI key calls).
 */
function boundFunctions(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const dir = join(REPO, 'src', 'platform', 'windows', 'win32');
  for (const file of readdirSync(dir)) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const m of text.matchAll(/(?:func\('__stdcall', |lazy\()'([A-Za-z0-9]+)'/g)) {
      const fn = m[1] as string;
      const dll = file.replace(/\.ts$/, '');
      if (!out.has(dll)) out.set(dll, new Set());
      out.get(dll)?.add(fn);
    }
  }
  return out;
}

test('the probe calls every bound function of every DLL, but for the few named with the reason', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  const missing: string[] = [];
  for (const [dll, fns] of boundFunctions()) {
    for (const fn of fns)
      if (!lines.some((l) => l.dll === dll && l.functions.includes(fn)) && !NOT_RUN_BY_THE_PROBE[`${dll}!${fn}`])
        missing.push(`${dll}!${fn}`);
  }
  assert.deepEqual(missing, []);
});

test('ntdll under wine: RtlGetVersion reports the Windows 10 the test prefix is set to', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  assert.deepEqual(ok(lines, 'ntdll', 'RtlGetVersion'), {
    major: 10,
    minor: 0,
    build: 18362,
    platformId: 2,
    servicePack: '',
    productType: 1,
  });
});

test('kernel32 under wine: names, drives, a raw read, the time zone (refused without a privilege wine lacks)', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  assert.ok((ok(lines, 'kernel32', 'GetCurrentProcessId') as number) > 0);
  assert.match((ok(lines, 'kernel32', 'FormatMessageW') as { text: string }).text, /^File not found\. \(error 2\)$/);
  assert.match(ok(lines, 'kernel32', 'GetComputerNameExW') as string, /^[A-Z0-9-]{1,15}$/);
  assert.equal(
    ok(lines, 'kernel32', 'SetComputerNameExW'),
    'KILN-PROBE',
    'the name set for the next boot, read back from the registry',
  );
  assert.equal(typeof ok(lines, 'kernel32', 'GetDynamicTimeZoneInformation'), 'string');
  assert.match(failed(lines, 'kernel32', 'SetTimeZoneInformation'), /Privilege not held\. \(error 1314\)/);
  assert.deepEqual(ok(lines, 'kernel32', 'GetLogicalDriveStringsW'), ['C:\\', 'Z:\\']);
  assert.equal(ok(lines, 'kernel32', 'GetDriveTypeW'), 3, 'C: is a fixed drive');
  assert.equal((ok(lines, 'kernel32', 'GetVolumeInformationW') as { fsName: string }).fsName, 'NTFS');
  assert.deepEqual(
    ok(lines, 'kernel32', 'ReadFile'),
    { read: 512, head: 'KILN-PROBE-DATA-0123'.slice(0, 16), diskLength: null },
    'bytes 512… of the file; IOCTL_DISK_GET_LENGTH_INFO refused on a file',
  );
  assert.equal(ok(lines, 'kernel32', 'GetDiskFreeSpaceW'), 512);
  assert.match(ok(lines, 'kernel32', 'QueryDosDeviceW') as string, /^\\Device\\HarddiskVolume\d+$/);
  assert.deepEqual(
    exactly(lines, 'kernel32', ['CreateFileW', 'DeviceIoControl']).value,
    [],
    "IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS: wine's C: lies on no disk it knows",
  );
  assert.match(
    exactly(lines, 'kernel32', ['CreateFileW']).error ?? '',
    /PhysicalDrive97 failed: File not found\. \(error 2\)/,
  );
});

test('advapi32 under wine: registry round trip, privileges, a service made, refused, stopped and deleted, LogonUserW', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  assert.deepEqual(ok(lines, 'advapi32', 'RegSetValueExW'), [
    { type: 'REG_SZ', data: 'kiln ünïcode' },
    { type: 'REG_DWORD', data: 0xfffffffe },
    { type: 'REG_QWORD', data: String(2n ** 40n + 5n) },
    { type: 'REG_MULTI_SZ', data: ['a', 'b'] },
    null,
  ]);
  assert.deepEqual(ok(lines, 'advapi32', 'RegEnumValueW'), ['List', 'Number', 'Text', 'Wide']);
  assert.deepEqual(ok(lines, 'advapi32', 'RegEnumKeyExW'), ['Sub']);
  assert.equal(ok(lines, 'advapi32', 'RegDeleteValueW'), null);
  assert.equal(ok(lines, 'advapi32', 'RegDeleteTreeW'), null, 'the key is gone');
  assert.equal(ok(lines, 'advapi32', 'AdjustTokenPrivileges'), 'enabled');
  assert.equal(ok(lines, 'advapi32', 'ConvertSidToStringSidW'), 'S-1-5-32-544');
  assert.equal(
    (ok(lines, 'advapi32', 'CreateServiceW') as { currentState: number }).currentState,
    1,
    'SERVICE_STOPPED',
  );
  assert.deepEqual(
    ok(lines, 'advapi32', 'ChangeServiceConfigW'),
    { type: 'REG_DWORD', data: 4 },
    'Start = SERVICE_DISABLED in the registry',
  );
  assert.match(failed(lines, 'advapi32', 'StartServiceW'), /File not found\. \(error 2\)/, 'its binary does not exist');
  assert.match(failed(lines, 'advapi32', 'ControlService'), /Service not active\. \(error 1062\)/);
  assert.deepEqual(ok(lines, 'advapi32', 'DeleteService'), { deleted: true, again: false });
  assert.match(
    failed(lines, 'advapi32', 'StartServiceCtrlDispatcherW'),
    /cannot connect to the service control manager/,
  );
  assert.equal(ok(lines, 'advapi32', 'InitiateSystemShutdownExW'), 'requested');
  assert.equal(ok(lines, 'advapi32', 'LogonUserW'), true);
});

test('netapi32 under wine: a user and a group made, read, joined and deleted (NetUserSetInfo is not run: it aborts wine)', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  assert.equal(ok(lines, 'netapi32', 'NetUserAdd'), 'added');
  assert.deepEqual(ok(lines, 'netapi32', 'NetUserGetInfo'), {
    info: { name: 'kilnprobe', comment: '', disabled: false },
    missing: null,
  });
  assert.ok(
    Array.isArray(ok(lines, 'netapi32', 'NetUserEnum')) &&
      (ok(lines, 'netapi32', 'NetUserEnum') as string[]).length > 0,
    'wine lists the Unix user (not the accounts NetUserAdd made)',
  );
  assert.deepEqual(
    ok(lines, 'netapi32', 'NetLocalGroupAdd'),
    { made: true, again: true },
    'wine accepts any group name, also twice',
  );
  assert.equal(ok(lines, 'netapi32', 'NetLocalGroupAddMembers'), true);
  assert.ok((ok(lines, 'netapi32', 'NetLocalGroupGetMembers') as string[]).length > 0);
  assert.deepEqual(ok(lines, 'netapi32', 'NetUserDel'), { deleted: true, again: false });
});

test('userenv under wine: the profiles folder and a profile loaded; CreateProfile is missing from wine', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  assert.equal(ok(lines, 'userenv', 'GetProfilesDirectoryW'), 'C:\\users');
  assert.equal(ok(lines, 'userenv', 'LoadUserProfileW'), 'loaded');
  assert.match(failed(lines, 'userenv', 'CreateProfile'), /userenv\.dll has no CreateProfile/);
});

test('iphlpapi under wine: the adapters read; the row functions are missing from wine, so nothing touches the network', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  const adapters = ok(lines, 'iphlpapi', 'GetAdaptersAddresses') as Array<{
    friendlyName: string;
    unicast: Array<{ address: string }>;
  }>;
  assert.ok(
    adapters.some((a) => a.unicast.some((u) => u.address === '127.0.0.1')),
    'the loopback adapter with 127.0.0.1',
  );
  assert.ok(
    adapters.some((a) => a.unicast.some((u) => u.address === '10.199.0.5')),
    "the namespace's eth0 with its address",
  );
  const routes = ok(lines, 'iphlpapi', 'GetIpForwardTable2') as Array<{
    destination: string;
    prefixLength: number;
    nextHop: string;
  }>;
  assert.ok(
    routes.some((r) => r.destination === '0.0.0.0' && r.prefixLength === 0 && r.nextHop === '10.199.0.1'),
    `the namespace's default route: ${JSON.stringify(routes)}`,
  );
  assert.match(failed(lines, 'iphlpapi', 'CreateUnicastIpAddressEntry'), /has no InitializeUnicastIpAddressEntry/);
  assert.match(failed(lines, 'iphlpapi', 'CreateIpForwardEntry2'), /has no InitializeIpForwardEntry/);
  assert.match(failed(lines, 'iphlpapi', 'SetIpInterfaceEntry'), /has no InitializeIpInterfaceEntry/);
});

test('dhcpcsvc under wine: DhcpRequestParams answers for the first adapter that it holds no lease', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  assert.equal(ok(lines, 'dhcpcsvc', 'DhcpRequestParams'), null);
});

test("version under wine: kernel32.dll's file version", (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  const v = ok(lines, 'version', 'VerQueryValueW') as number[];
  assert.deepEqual(v.slice(0, 3), [10, 0, 18362], 'wine reports its DLLs as Windows 10 1903 files');
});

test('crypt32 under wine: a self-signed certificate made, found, imported, a PFX imported, a non-envelope refused, the certificate deleted', (t) => {
  const lines = probeLines(t);
  if (!lines) return;
  const thumbprint = ok(lines, 'crypt32', 'CertCreateSelfSignCertificate') as string;
  assert.match(thumbprint, /^[0-9A-F]{40}$/);
  assert.equal(ok(lines, 'crypt32', 'CertEnumCertificatesInStore'), true, 'in LocalMachine\\My');
  const der = ok(lines, 'crypt32', 'CertFindCertificateInStore') as { length: number; head: string };
  assert.ok(
    der.length > 300 && der.head === '3082',
    `a DER certificate (SEQUENCE, two length bytes): ${JSON.stringify(der)}`,
  );
  assert.deepEqual(ok(lines, 'crypt32', 'CertGetNameStringW'), { thumbprint, upn: '' });
  const pfxThumbprint = lines.find((l) => l.dll === 'test')?.value;
  assert.deepEqual(
    ok(lines, 'crypt32', 'PFXImportCertStore'),
    [{ thumbprint: pfxThumbprint, store: 'MY' }],
    "the PFX's certificate, keyed, in MY: the thumbprint openssl computed",
  );
  assert.match(
    failed(lines, 'crypt32', 'CryptMsgUpdate'),
    /CryptMsgUpdate \(not CMS enveloped data\?\) failed: .*\(error 2148086027\)/,
    'CRYPT_E_ASN1_BADTAG',
  );
  assert.deepEqual(ok(lines, 'crypt32', 'CertDeleteCertificateFromStore'), { deleted: true, again: false });
});
