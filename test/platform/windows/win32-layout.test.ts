// The Win32 structures and the one by-value call of the bindings, for both Windows architectures kiln ships for
// (x64 and arm64), without Windows: the layouts by the ABIs' rules (test/helpers/windows-abi.ts) against the
// Windows SDK's sizes and offsets written out here, and the host koffi's layout of the very declarations the
// bindings use against the same rules.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dhcpRequestParamsParameters } from '../../../src/platform/windows/win32/dhcpcsvc';
import { WIN32_STRUCTS, win32Structs, type Win32StructName } from '../../../src/platform/windows/win32/win32-structs';
import { testKoffi } from '../../helpers/koffi';
import { need } from '../../helpers/requirements';
import { argumentPlacement, structLayout, WINDOWS_ARCHES, type AbiArgument } from '../../helpers/windows-abi';

/**
 * sizeof() and offsetof() of the fields kiln reads or writes, as the Windows SDK headers give them for 64-bit
 * Windows (the same on x64 and arm64): lmaccess.h, userenv.h, winsvc.h, winnt.h, wincrypt.h, minwinbase.h,
 * timezoneapi.h, winioctl.h, verrsrc.h, dhcpcsdk.h, ws2def.h/ws2ipdef.h, netioapi.h, iptypes.h.
 */
const SDK: Record<Win32StructName, { size: number; offsets?: Record<string, number> }> = {
  USER_INFO_0: { size: 8 },
  USER_INFO_1: { size: 56, offsets: { usri1_name: 0, usri1_comment: 32, usri1_flags: 40, usri1_script_path: 48 } },
  USER_INFO_4: {
    size: 192,
    offsets: {
      usri4_flags: 40,
      usri4_logon_hours: 120,
      usri4_user_sid: 152,
      usri4_profile: 168,
      usri4_password_expired: 184,
    },
  },
  USER_INFO_1003: { size: 8 },
  USER_INFO_1008: { size: 4 },
  LOCALGROUP_INFO_1: { size: 16, offsets: { lgrpi1_comment: 8 } },
  LOCALGROUP_MEMBERS_INFO_3: { size: 8 },
  PROFILEINFOW: { size: 56, offsets: { lpUserName: 8, hProfile: 48 } },
  SERVICE_DESCRIPTIONW: { size: 8 },
  SERVICE_STATUS: {
    size: 28,
    offsets: { dwCurrentState: 4, dwWin32ExitCode: 12, dwServiceSpecificExitCode: 16, dwWaitHint: 24 },
  },
  SERVICE_TABLE_ENTRYW: { size: 16, offsets: { lpServiceProc: 8 } },
  LUID: { size: 8, offsets: { HighPart: 4 } },
  LUID_AND_ATTRIBUTES: { size: 12, offsets: { Attributes: 8 } },
  TOKEN_PRIVILEGES: { size: 16, offsets: { Privileges: 4 } },
  CRYPT_INTEGER_BLOB: { size: 16, offsets: { pbData: 8 } },
  CRYPT_ALGORITHM_IDENTIFIER: { size: 24, offsets: { Parameters: 8 } },
  CRYPT_KEY_PROV_INFO: {
    size: 48,
    offsets: { dwProvType: 16, dwFlags: 20, cProvParam: 24, rgProvParam: 32, dwKeySpec: 40 },
  },
  SYSTEMTIME: { size: 16, offsets: { wDay: 6, wMilliseconds: 14 } },
  CMSG_CTRL_DECRYPT_PARA: { size: 24, offsets: { hCryptProv: 8, dwKeySpec: 16, dwRecipientIndex: 20 } },
  CERT_CONTEXT: { size: 40, offsets: { pbCertEncoded: 8, cbCertEncoded: 16, pCertInfo: 24, hCertStore: 32 } },
  FILETIME: { size: 8 },
  CERT_INFO_HEAD: { size: 72, offsets: { SerialNumber: 8, SignatureAlgorithm: 24, Issuer: 48, NotBefore: 64 } },
  OSVERSIONINFOEXW: {
    size: 284,
    offsets: { dwBuildNumber: 12, szCSDVersion: 20, wServicePackMajor: 276, wProductType: 282 },
  },
  TIME_ZONE_INFORMATION: {
    size: 172,
    offsets: {
      StandardName: 4,
      StandardDate: 68,
      StandardBias: 84,
      DaylightName: 88,
      DaylightDate: 152,
      DaylightBias: 168,
    },
  },
  DYNAMIC_TIME_ZONE_INFORMATION: {
    size: 432,
    offsets: { StandardDate: 68, DaylightBias: 168, TimeZoneKeyName: 172, DynamicDaylightTimeDisabled: 428 },
  },
  DISK_EXTENT: { size: 24, offsets: { StartingOffset: 8, ExtentLength: 16 } },
  VOLUME_DISK_EXTENTS: { size: 32, offsets: { Extents: 8 } },
  GUID: { size: 16, offsets: { Data2: 4, Data3: 6, Data4: 8 } },
  PARTITION_INFORMATION_MBR: { size: 24, offsets: { HiddenSectors: 4, PartitionId: 8 } },
  PARTITION_INFORMATION_GPT: { size: 112, offsets: { Attributes: 32, Name: 40 } },
  PARTITION_INFORMATION_UNION: { size: 112 },
  PARTITION_INFORMATION_EX: {
    size: 144,
    offsets: { StartingOffset: 8, PartitionLength: 16, PartitionNumber: 24, Info: 32 },
  },
  DRIVE_LAYOUT_INFORMATION_MBR: { size: 8 },
  DRIVE_LAYOUT_INFORMATION_GPT: {
    size: 40,
    offsets: { StartingUsableOffset: 16, UsableLength: 24, MaxPartitionCount: 32 },
  },
  DRIVE_LAYOUT_INFORMATION_UNION: { size: 40 },
  DRIVE_LAYOUT_INFORMATION_EX: { size: 192, offsets: { PartitionCount: 4, Layout: 8, PartitionEntry: 48 } },
  DISK_GROW_PARTITION: { size: 16, offsets: { BytesToGrow: 8 } },
  VS_FIXEDFILEINFO: { size: 52, offsets: { dwFileVersionMS: 8, dwFileVersionLS: 12 } },
  DHCPCAPI_PARAMS: { size: 32, offsets: { OptionId: 4, IsVendor: 8, Data: 16, nBytesData: 24 } },
  DHCPCAPI_PARAMS_ARRAY: { size: 16, offsets: { Params: 8 } },
  SOCKADDR_IN: { size: 16, offsets: { sin_addr: 4 } },
  SOCKADDR_IN6: { size: 28, offsets: { sin6_addr: 8, sin6_scope_id: 24 } },
  SOCKADDR_INET: { size: 28 },
  IP_ADDRESS_PREFIX: { size: 32, offsets: { PrefixLength: 28 } },
  SOCKET_ADDRESS: { size: 16, offsets: { iSockaddrLength: 8 } },
  MIB_UNICASTIPADDRESS_ROW: {
    size: 80,
    offsets: {
      InterfaceLuid: 32,
      InterfaceIndex: 40,
      PrefixOrigin: 44,
      SuffixOrigin: 48,
      OnLinkPrefixLength: 60,
      CreationTimeStamp: 72,
    },
  },
  MIB_IPFORWARD_ROW2: {
    size: 104,
    offsets: { InterfaceIndex: 8, DestinationPrefix: 12, NextHop: 44, SitePrefixLength: 72, Metric: 84, Origin: 100 },
  },
  MIB_IPINTERFACE_ROW: {
    size: 168,
    offsets: {
      InterfaceLuid: 8,
      InterfaceIndex: 16,
      ZoneIndices: 80,
      SitePrefixLength: 144,
      NlMtu: 152,
      DisableDefaultRoutes: 166,
    },
  },
  IP_ADAPTER_UNICAST_ADDRESS_LH: { size: 64, offsets: { Next: 8, Address: 16, OnLinkPrefixLength: 56 } },
  IP_ADAPTER_DNS_SERVER_ADDRESS_XP: { size: 32, offsets: { Next: 8, Address: 16 } },
  IP_ADAPTER_ADDRESSES_LH: {
    size: 448,
    offsets: {
      IfIndex: 4,
      Next: 8,
      AdapterName: 16,
      FirstUnicastAddress: 24,
      FirstDnsServerAddress: 48,
      Description: 64,
      FriendlyName: 72,
      PhysicalAddress: 80,
      PhysicalAddressLength: 88,
      Flags: 92,
      Mtu: 96,
      OperStatus: 104,
      Luid: 224,
      Dhcpv4Server: 232,
      FirstDnsSuffix: 440,
    },
  },
};

const NAMES = Object.keys(WIN32_STRUCTS) as Win32StructName[];

test('every structure the bindings declare has its Windows SDK size and offsets pinned here', () => {
  assert.deepEqual(
    NAMES.filter((n) => !(n in SDK)),
    [],
    'declared but not pinned',
  );
  assert.deepEqual(
    Object.keys(SDK).filter((n) => !(n in WIN32_STRUCTS)),
    [],
    'pinned but not declared',
  );
});

for (const arch of WINDOWS_ARCHES) {
  test(`${arch}: the declarations lay out as the Windows SDK's structures`, () => {
    for (const name of NAMES) {
      const layout = structLayout(name, arch);
      const sdk = SDK[name];
      assert.equal(layout.size, sdk.size, `${arch} sizeof(${name})`);
      for (const [field, offset] of Object.entries(sdk.offsets ?? {}))
        assert.equal(layout.offsets[field], offset, `${arch} offsetof(${name}, ${field})`);
    }
  });
}

test("the host koffi lays the bindings' declarations out as the x64 rules do (what kiln's koffi does on Windows)", (t) => {
  const koffi = testKoffi();
  if (!need(t, koffi !== undefined, 'no koffi addon for this host (KILN_KOFFI_ADDON)') || !koffi) return;
  const types = win32Structs(koffi);
  for (const name of NAMES) {
    const expected = structLayout(name, 'x64');
    const actual = koffi.type(types[name]);
    assert.equal(actual.size, expected.size, `koffi sizeof(${name})`);
    assert.equal(actual.alignment, expected.align, `koffi alignof(${name})`);
    const members = actual.members ?? {};
    for (const [field, offset] of Object.entries(expected.offsets))
      assert.equal(members[field]?.offset, offset, `koffi offsetof(${name}, ${field})`);
  }
});

/**
 * dhcpcsdk.h: DWORD DhcpRequestParams(DWORD, LPVOID, LPWSTR, LPDHCPCAPI_CLASSID, DHCPCAPI_PARAMS_ARRAY,
 * DHCPCAPI_PARAMS_ARRAY, LPBYTE, LPDWORD, LPWSTR).
 */
const DHCP_REQUEST_PARAMS_SDK: AbiArgument[] = [
  { kind: 'scalar' },
  { kind: 'scalar' },
  { kind: 'scalar' },
  { kind: 'scalar' },
  { kind: 'struct', size: 16 },
  { kind: 'struct', size: 16 },
  { kind: 'scalar' },
  { kind: 'scalar' },
  { kind: 'scalar' },
];

test('DhcpRequestParams is declared with SendParams and RecdParams as DHCPCAPI_PARAMS_ARRAY by value, so each ABI places every argument as Windows expects', (t) => {
  const koffi = testKoffi();
  if (!need(t, koffi !== undefined, 'no koffi addon for this host (KILN_KOFFI_ADDON)') || !koffi) return;
  const proto = koffi.type(koffi.proto(null, 'uint32_t', dhcpRequestParamsParameters(koffi))).proto;
  const args = (proto?.arguments ?? []) as unknown as Array<{
    type: { name: string; primitive: string; size: number };
  }>;
  assert.deepEqual(
    args.slice(4, 6).map((a) => [a.type.primitive, a.type.name, a.type.size]),
    [
      ['Record', 'KILN_DHCPCAPI_PARAMS_ARRAY', 16],
      ['Record', 'KILN_DHCPCAPI_PARAMS_ARRAY', 16],
    ],
  );
  const declared: AbiArgument[] = args.map((a) =>
    a.type.primitive === 'Record' ? { kind: 'struct', size: a.type.size } : { kind: 'scalar' },
  );
  for (const arch of WINDOWS_ARCHES)
    assert.deepEqual(
      argumentPlacement(declared, arch),
      argumentPlacement(DHCP_REQUEST_PARAMS_SDK, arch),
      `${arch} argument placement`,
    );
  assert.deepEqual(argumentPlacement(DHCP_REQUEST_PARAMS_SDK, 'arm64'), [
    'X0',
    'X1',
    'X2',
    'X3',
    'X4+X5',
    'X6+X7',
    'stack+0',
    'stack+8',
    'stack+16',
  ]);
  // What passing pointers instead would do: the same on x64 (which hid it), every later argument shifted on arm64.
  const pointers: AbiArgument[] = DHCP_REQUEST_PARAMS_SDK.map(() => ({ kind: 'scalar' }));
  assert.deepEqual(
    argumentPlacement(pointers, 'x64').map((p) => p.replace('&copy in ', '')),
    argumentPlacement(DHCP_REQUEST_PARAMS_SDK, 'x64').map((p) => p.replace('&copy in ', '')),
  );
  assert.notDeepEqual(argumentPlacement(pointers, 'arm64'), argumentPlacement(DHCP_REQUEST_PARAMS_SDK, 'arm64'));
});
