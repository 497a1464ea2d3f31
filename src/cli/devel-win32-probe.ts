// `devel win32-probe --scratch`: runs every Win32 binding once, DLL by DLL, and prints what each call returned, as
// JSON lines. For the wine tests (test/e2e/windows-win32-probe.test.ts): it creates and deletes a user, a group, a
// service, registry keys and certificates, sets the computer name and the time zone, so it refuses to run unless
// told with --scratch that this Windows is a throw-away one.
import { readFileSync } from 'node:fs';
import type { Win32Bindings, WindowsMachine } from '../platform/windows/windows-machine';
import { ComputerNameFormat } from '../platform/windows/win32/kernel32';
import { DhcpOption } from '../platform/windows/win32/dhcpcsvc';
import { describeError, UsageError } from '../util/errors';
import type { Command } from './command';

interface ProbeStep {
  dll: string;
  /** The bound functions the step calls. */
  functions: string[];
  run(): unknown;
}

const PROBE_KEY = 'SOFTWARE\\KilnWin32Probe';
const PROBE_USER = 'kilnprobe';
const PROBE_GROUP = 'KilnProbers';
const PROBE_SERVICE = 'KilnWin32Probe';

/** Every step, in an order where later ones use what earlier ones made (the user, the certificate). */
function probeSteps(
  w: Win32Bindings,
  platform: WindowsMachine,
  opts: { file?: string; pfx?: Uint8Array; pfxPassword: string },
): ProbeStep[] {
  const password = `Kp-${Date.now().toString(36)}-9z!`;
  let thumbprint = '';
  let der: Uint8Array | undefined;
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  return [
    { dll: 'ntdll', functions: ['RtlGetVersion'], run: () => w.ntdll.rtlGetVersion() },
    { dll: 'kernel32', functions: ['GetCurrentProcessId'], run: () => w.kernel32.getCurrentProcessId() },
    {
      dll: 'kernel32',
      functions: ['GetLastError', 'FormatMessageW'],
      run: () => ({ text: w.kernel32.lastErrorText(2), lastError: w.kernel32.lastError() }),
    },
    {
      dll: 'kernel32',
      functions: ['GetComputerNameExW'],
      run: () => w.kernel32.getComputerNameEx(ComputerNameFormat.NetBIOS),
    },
    {
      dll: 'kernel32',
      functions: ['SetComputerNameExW'],
      run: () => {
        w.kernel32.setComputerNameEx(ComputerNameFormat.PhysicalDnsHostname, 'KILN-PROBE');
        return platform.computerName().pending;
      },
    },
    { dll: 'kernel32', functions: ['GetDynamicTimeZoneInformation'], run: () => w.kernel32.getTimeZoneKeyName() },
    {
      dll: 'kernel32',
      functions: ['SetDynamicTimeZoneInformation', 'SetTimeZoneInformation'],
      run: () => {
        // The binding itself, not WindowsPlatform.setTimeZone, whose SeTimeZonePrivilege wine does not know.
        const key = 'SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Time Zones\\Tokyo Standard Time';
        const tzi = w.advapi32.regGetValue('HKLM', key, 'TZI');
        if (tzi?.type !== 'REG_BINARY') throw new UsageError(`no TZI under HKLM\\${key}`);
        const b = Buffer.from(tzi.data);
        w.kernel32.setDynamicTimeZone({
          keyName: 'Tokyo Standard Time',
          standardName: 'Tokyo Standard Time',
          daylightName: 'Tokyo Daylight Time',
          bias: b.readInt32LE(0),
          standardBias: b.readInt32LE(4),
          daylightBias: b.readInt32LE(8),
          standardDate: b.subarray(12, 28),
          daylightDate: b.subarray(28, 44),
        });
        return w.kernel32.getTimeZoneKeyName();
      },
    },
    { dll: 'kernel32', functions: ['GetLogicalDriveStringsW'], run: () => w.disk.logicalDrives() },
    { dll: 'kernel32', functions: ['GetDriveTypeW'], run: () => w.disk.driveType('C:\\') },
    { dll: 'kernel32', functions: ['GetVolumeInformationW'], run: () => w.disk.volumeInformation('C:\\') },
    {
      dll: 'kernel32',
      functions: ['CreateFileW', 'SetFilePointerEx', 'ReadFile', 'DeviceIoControl', 'CloseHandle'],
      run: () => {
        if (!opts.file) throw new UsageError('--file names no file to read');
        const opened = w.disk.openDevice(opts.file);
        if ('error' in opened) return opened;
        try {
          const buf = Buffer.alloc(512);
          const read = w.disk.readAt(opened.handle, 512, buf);
          // IOCTL_DISK_GET_LENGTH_INFO on a file, not a disk: Windows refuses it.
          return {
            read,
            head: buf.subarray(0, 16).toString('latin1'),
            diskLength: w.disk.deviceLength(opened.handle) ?? null,
          };
        } finally {
          w.disk.closeHandle(opened.handle);
        }
      },
    },
    { dll: 'kernel32', functions: ['GetDiskFreeSpaceW'], run: () => w.volumes.bytesPerSector('C:\\') },
    { dll: 'kernel32', functions: ['QueryDosDeviceW'], run: () => w.volumes.ntDevice('C:\\') ?? null },
    { dll: 'kernel32', functions: ['CreateFileW', 'DeviceIoControl'], run: () => w.volumes.volumeExtents('C:\\') },
    // A disk number no machine has: the read ioctls are reached only where a disk opens; nothing is written.
    { dll: 'kernel32', functions: ['CreateFileW'], run: () => w.volumes.diskLayout(97) },
    {
      dll: 'advapi32',
      functions: ['RegCreateKeyExW', 'RegSetValueExW', 'RegCloseKey', 'RegOpenKeyExW', 'RegQueryValueExW'],
      run: () => {
        w.advapi32.regSetValue('HKLM', PROBE_KEY, 'Text', { type: 'REG_SZ', data: 'kiln ünïcode' });
        w.advapi32.regSetValue('HKLM', PROBE_KEY, 'Number', { type: 'REG_DWORD', data: 0xfffffffe });
        w.advapi32.regSetValue('HKLM', PROBE_KEY, 'Wide', { type: 'REG_QWORD', data: 2n ** 40n + 5n });
        w.advapi32.regSetValue('HKLM', PROBE_KEY, 'List', { type: 'REG_MULTI_SZ', data: ['a', 'b'] });
        w.advapi32.regSetValue('HKLM', `${PROBE_KEY}\\Sub`, 'Bytes', {
          type: 'REG_BINARY',
          data: Uint8Array.from([0, 1, 255]),
        });
        return ['Text', 'Number', 'Wide', 'List', 'Missing'].map(
          (n) => w.advapi32.regGetValue('HKLM', PROBE_KEY, n) ?? null,
        );
      },
    },
    {
      dll: 'advapi32',
      functions: ['RegEnumValueW'],
      run: () => w.advapi32.regListValues('HKLM', PROBE_KEY)?.map((v) => v.name),
    },
    { dll: 'advapi32', functions: ['RegEnumKeyExW'], run: () => w.advapi32.regListKeys('HKLM', PROBE_KEY) },
    {
      dll: 'advapi32',
      functions: ['RegDeleteValueW'],
      run: () => {
        w.advapi32.regDeleteValue('HKLM', PROBE_KEY, 'Text');
        return w.advapi32.regGetValue('HKLM', PROBE_KEY, 'Text') ?? null;
      },
    },
    {
      dll: 'advapi32',
      functions: ['RegDeleteTreeW'],
      run: () => {
        w.advapi32.regDeleteTree('HKLM', PROBE_KEY);
        return w.advapi32.regListKeys('HKLM', PROBE_KEY) ?? null;
      },
    },
    {
      dll: 'advapi32',
      functions: ['OpenProcessToken', 'LookupPrivilegeValueW', 'AdjustTokenPrivileges'],
      run: () => {
        w.advapi32.enablePrivilege('SeShutdownPrivilege');
        return 'enabled';
      },
    },
    {
      dll: 'advapi32',
      functions: ['LookupAccountNameW', 'ConvertSidToStringSidW', 'LocalFree'],
      run: () => w.advapi32.accountSid('Administrators') ?? null,
    },
    {
      dll: 'advapi32',
      functions: [
        'OpenSCManagerW',
        'CreateServiceW',
        'ChangeServiceConfig2W',
        'CloseServiceHandle',
        'OpenServiceW',
        'QueryServiceStatus',
      ],
      run: () => {
        w.advapi32.createService({
          name: PROBE_SERVICE,
          displayName: 'kiln win32 probe',
          description: 'made and deleted by kiln devel win32-probe',
          binaryPath: 'C:\\kiln-probe-missing.exe',
          startType: 'demand',
          dependencies: [],
        });
        return w.advapi32.queryService(PROBE_SERVICE) ?? null;
      },
    },
    {
      dll: 'advapi32',
      functions: ['ChangeServiceConfigW'],
      run: () => {
        w.advapi32.setServiceStartType(PROBE_SERVICE, 'disabled');
        return w.advapi32.regGetValue('HKLM', `SYSTEM\\CurrentControlSet\\Services\\${PROBE_SERVICE}`, 'Start') ?? null;
      },
    },
    {
      dll: 'advapi32',
      functions: ['StartServiceW'],
      run: () => {
        w.advapi32.setServiceStartType(PROBE_SERVICE, 'demand');
        w.advapi32.startService(PROBE_SERVICE);
        return 'started';
      },
    },
    {
      dll: 'advapi32',
      functions: ['ControlService'],
      run: () => {
        w.advapi32.stopService(PROBE_SERVICE);
        return 'stopped';
      },
    },
    {
      dll: 'advapi32',
      functions: ['DeleteService'],
      run: () => ({
        deleted: w.advapi32.deleteService(PROBE_SERVICE),
        again: w.advapi32.deleteService(`${PROBE_SERVICE}-none`),
      }),
    },
    {
      dll: 'advapi32',
      functions: ['StartServiceCtrlDispatcherW'],
      run: () => w.advapi32.runService(PROBE_SERVICE, async () => 0).then(() => 'connected'),
    },
    {
      dll: 'advapi32',
      functions: ['InitiateSystemShutdownExW'],
      run: () => {
        // 10 minutes, so wine's answer is seen; the prefix is thrown away after the test.
        w.advapi32.initiateSystemShutdown({
          message: 'kiln win32 probe',
          timeoutSeconds: 600,
          reboot: true,
          force: false,
        });
        return 'requested';
      },
    },
    {
      dll: 'netapi32',
      functions: ['NetUserAdd'],
      run: () => {
        w.netapi32.userAdd({ name: PROBE_USER, password, comment: 'kiln probe', passwordNeverExpires: true });
        return 'added';
      },
    },
    {
      dll: 'netapi32',
      functions: ['NetUserGetInfo', 'NetApiBufferFree'],
      run: () => ({
        info: w.netapi32.userGetInfo(PROBE_USER) ?? null,
        missing: w.netapi32.userGetInfo('kiln-no-such-user') ?? null,
      }),
    },
    { dll: 'netapi32', functions: ['NetUserEnum'], run: () => w.netapi32.userEnum() },
    {
      dll: 'netapi32',
      functions: ['NetLocalGroupAdd'],
      run: () => ({
        made: w.netapi32.localGroupAdd(PROBE_GROUP, 'kiln probe'),
        again: w.netapi32.localGroupAdd(PROBE_GROUP),
      }),
    },
    {
      dll: 'netapi32',
      functions: ['NetLocalGroupAddMembers'],
      run: () => w.netapi32.localGroupAddMember(PROBE_GROUP, PROBE_USER),
    },
    {
      dll: 'netapi32',
      functions: ['NetLocalGroupGetMembers'],
      run: () => w.netapi32.localGroupMembers('Administrators'),
    },
    { dll: 'advapi32', functions: ['LogonUserW'], run: () => w.advapi32.logonUser(PROBE_USER, password) },
    { dll: 'userenv', functions: ['GetProfilesDirectoryW'], run: () => w.userenv.profilesDirectory() },
    {
      dll: 'userenv',
      functions: ['LoadUserProfileW', 'UnloadUserProfile'],
      run: () => {
        platform.loadUserProfile(PROBE_USER, password);
        return 'loaded';
      },
    },
    {
      dll: 'userenv',
      functions: ['CreateProfile'],
      run: () => w.userenv.createProfile('S-1-5-21-1-2-3-1001', PROBE_USER) ?? null,
    },
    {
      dll: 'netapi32',
      functions: ['NetUserDel'],
      run: () => ({ deleted: w.netapi32.userDelete(PROBE_USER), again: w.netapi32.userDelete(PROBE_USER) }),
    },
    { dll: 'iphlpapi', functions: ['GetAdaptersAddresses'], run: () => w.iphlpapi.adapters() },
    { dll: 'iphlpapi', functions: ['GetIpForwardTable2', 'FreeMibTable'], run: () => w.iphlpapi.routes('ipv4') },
    {
      dll: 'iphlpapi',
      functions: ['InitializeUnicastIpAddressEntry', 'CreateUnicastIpAddressEntry'],
      run: () => w.iphlpapi.addUnicastAddress(firstAdapter(w), '192.0.2.10', 24, 'ipv4'),
    },
    {
      dll: 'iphlpapi',
      functions: ['InitializeIpForwardEntry', 'CreateIpForwardEntry2'],
      run: () =>
        w.iphlpapi.addRoute(firstAdapter(w), {
          destination: '198.51.100.0',
          prefixLength: 24,
          nextHop: '192.0.2.1',
          family: 'ipv4',
        }),
    },
    {
      dll: 'iphlpapi',
      functions: ['InitializeIpInterfaceEntry', 'GetIpInterfaceEntry', 'SetIpInterfaceEntry'],
      run: () => w.iphlpapi.setMtu(firstAdapter(w), 'ipv4', 1400),
    },
    { dll: 'dhcpcsvc', functions: ['DhcpCApiInitialize', 'DhcpRequestParams'], run: () => dhcpProbe(w) },
    {
      dll: 'version',
      functions: ['GetFileVersionInfoSizeW', 'GetFileVersionInfoW', 'VerQueryValueW'],
      run: () => w.version.fileVersion('C:\\windows\\system32\\kernel32.dll'),
    },
    {
      dll: 'crypt32',
      functions: [
        'CertStrToNameW',
        'CryptAcquireContextW',
        'CryptGenKey',
        'CertCreateSelfSignCertificate',
        'CertOpenStore',
        'CertAddCertificateContextToStore',
        'CertGetCertificateContextProperty',
        'CertFreeCertificateContext',
        'CertCloseStore',
        'CryptDestroyKey',
        'CryptReleaseContext',
      ],
      run: () => {
        const made = w.crypt32.createSelfSignedCertificate('CN=kiln-probe', {
          store: 'MY',
          container: 'kiln-win32-probe',
          validDays: 30,
        });
        thumbprint = made;
        return made;
      },
    },
    {
      dll: 'crypt32',
      functions: ['CertEnumCertificatesInStore'],
      run: () => w.crypt32.storeThumbprints('MY').includes(thumbprint),
    },
    {
      dll: 'crypt32',
      functions: ['CertFindCertificateInStore'],
      run: () => {
        der = w.crypt32.certificateDer(thumbprint, 'MY');
        return der ? { length: der.length, head: hex(der.subarray(0, 2)) } : null;
      },
    },
    {
      dll: 'crypt32',
      functions: ['CertCreateCertificateContext', 'CertGetNameStringW'],
      run: () => {
        if (!der) throw new UsageError('no certificate DER from the step before');
        return w.crypt32.importCertificate(der, 'TrustedPeople');
      },
    },
    {
      dll: 'crypt32',
      functions: ['PFXImportCertStore'],
      run: () => {
        if (!opts.pfx) throw new UsageError('--pfx names no PKCS#12 file');
        return w.crypt32.importPfx(opts.pfx, opts.pfxPassword, 'MY', true);
      },
    },
    {
      dll: 'crypt32',
      functions: ['CryptMsgOpenToDecode', 'CryptMsgUpdate', 'CryptMsgClose'],
      // Not an envelope: wine's CryptMsgUpdate refuses it, so CryptMsgControl and CryptMsgGetParam are not reached.
      run: () =>
        hex(w.crypt32.decryptEnvelopedMessage(Uint8Array.from([0x30, 0x03, 0x02, 0x01, 0x00]), 'kiln-win32-probe')),
    },
    {
      dll: 'crypt32',
      functions: ['CertDeleteCertificateFromStore', 'CertControlStore'],
      run: () => ({
        deleted: w.crypt32.deleteCertificate(thumbprint, 'MY', 'kiln-win32-probe'),
        again: w.crypt32.deleteCertificate(thumbprint, 'MY'),
      }),
    },
  ];
}

function firstAdapter(w: Win32Bindings): { luid: bigint; ifIndex: number } {
  const a = w.iphlpapi.adapters()[0];
  if (!a) throw new UsageError('no network adapter to probe with');
  return a;
}

function dhcpProbe(w: Win32Bindings): unknown {
  const a = w.iphlpapi.adapters()[0];
  if (!a) throw new UsageError('no network adapter to probe with');
  const data = w.dhcpcsvc.requestOption(a.guid, DhcpOption.interfaceMtu);
  return data ? Buffer.from(data).toString('hex') : null;
}

/** JSON with bigints as decimal text and byte arrays as hex. */
function json(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v,
  );
}

export const develWin32ProbeCommand: Command = {
  words: ['devel', 'win32-probe'],
  summary: 'run every Win32 binding once and print what each returned (for tests in a throw-away wine prefix)',
  usage: 'devel win32-probe --scratch [--file PATH] [--pfx PATH [--pfx-password PW]] [DLL]...',
  faces: ['kiln'],
  os: 'windows',
  positional: [0, Infinity],
  flags: {
    boolean: ['scratch'],
    string: ['file', 'pfx', 'pfx-password'],
    help: [
      '--scratch           required: this Windows is a throw-away one (users, services, registry, certificates,',
      '                    computer name and time zone are changed)',
      '--file PATH         a file of at least 1 KiB the raw-read calls read',
      '--pfx PATH          a PKCS#12 file PFXImportCertStore imports, with --pfx-password (default empty)',
      'DLL                 only the steps of these DLLs (ntdll, kernel32, advapi32, netapi32, userenv, iphlpapi, dhcpcsvc, version, crypt32)',
    ],
  },
  async run(ctx, args) {
    if (!args.flags.scratch)
      throw new UsageError(
        'devel win32-probe changes users, services, the registry and certificates; give --scratch to run it in a throw-away Windows (a test wine prefix)',
      );
    const platform = ctx.platform().windows?.();
    if (!platform)
      throw new UsageError(
        "'devel win32-probe' calls the Win32 API; this is not a Windows build (or --dry-run was given)",
      );
    const pfxPath = args.flags.pfx as string | undefined;
    const steps = probeSteps(platform.win32(), platform, {
      ...(args.flags.file !== undefined ? { file: args.flags.file as string } : {}),
      ...(pfxPath !== undefined ? { pfx: new Uint8Array(readFileSync(pfxPath)) } : {}),
      pfxPassword: (args.flags['pfx-password'] as string | undefined) ?? '',
    });
    const only = new Set(args.positional.map((d) => d.toLowerCase()));
    for (const step of steps) {
      if (only.size > 0 && !only.has(step.dll)) continue;
      let line: Record<string, unknown>;
      try {
        line = { dll: step.dll, functions: step.functions, ok: true, value: (await step.run()) ?? null };
      } catch (err) {
        line = { dll: step.dll, functions: step.functions, ok: false, error: describeError(err) };
      }
      ctx.io.out(`${json(line)}\n`);
    }
    return 0;
  },
};
