// The Win32 structures the bindings pass or read, declared once as data (field order and types as the Windows
// SDK headers give them) and made into koffi types from that data, so sizes and offsets come from one place and
// a unit test can lay them out for each Windows architecture without Windows.
import type { Koffi } from '../../../util/koffi-addon';
import { describeError } from '../../../util/errors';

/**
 * A field's type: a koffi primitive ('uint32_t', 'void *', 'str16' …), another structure of this table, or an array of
 * either.
 */
export type Win32FieldType = string | { array: string; length: number; hint?: 'String' | 'Array' | 'Typed' };

export interface Win32StructDeclaration {
  /** 'union': every field at offset 0. */
  kind?: 'union';
  fields: ReadonlyArray<readonly [string, Win32FieldType]>;
}

/**
 * Headers: lmaccess.h, userenv.h, winsvc.h, wincrypt.h, minwinbase.h, winnt.h, dhcpcsdk.h, ws2ipdef.h, netioapi.h,
 * iptypes.h, winioctl.h, winver.h, timezoneapi.h.
 */
export const WIN32_STRUCTS = {
  // netapi32
  USER_INFO_0: { fields: [['usri0_name', 'str16']] },
  USER_INFO_1: {
    fields: [
      ['usri1_name', 'str16'],
      ['usri1_password', 'str16'],
      ['usri1_password_age', 'uint32_t'],
      ['usri1_priv', 'uint32_t'],
      ['usri1_home_dir', 'str16'],
      ['usri1_comment', 'str16'],
      ['usri1_flags', 'uint32_t'],
      ['usri1_script_path', 'str16'],
    ],
  },
  USER_INFO_4: {
    fields: [
      ['usri4_name', 'str16'],
      ['usri4_password', 'str16'],
      ['usri4_password_age', 'uint32_t'],
      ['usri4_priv', 'uint32_t'],
      ['usri4_home_dir', 'str16'],
      ['usri4_comment', 'str16'],
      ['usri4_flags', 'uint32_t'],
      ['usri4_script_path', 'str16'],
      ['usri4_auth_flags', 'uint32_t'],
      ['usri4_full_name', 'str16'],
      ['usri4_usr_comment', 'str16'],
      ['usri4_parms', 'str16'],
      ['usri4_workstations', 'str16'],
      ['usri4_last_logon', 'uint32_t'],
      ['usri4_last_logoff', 'uint32_t'],
      ['usri4_acct_expires', 'uint32_t'],
      ['usri4_max_storage', 'uint32_t'],
      ['usri4_units_per_week', 'uint32_t'],
      ['usri4_logon_hours', 'void *'],
      ['usri4_bad_pw_count', 'uint32_t'],
      ['usri4_num_logons', 'uint32_t'],
      ['usri4_logon_server', 'str16'],
      ['usri4_country_code', 'uint32_t'],
      ['usri4_code_page', 'uint32_t'],
      ['usri4_user_sid', 'void *'],
      ['usri4_primary_group_id', 'uint32_t'],
      ['usri4_profile', 'str16'],
      ['usri4_home_dir_drive', 'str16'],
      ['usri4_password_expired', 'uint32_t'],
    ],
  },
  USER_INFO_1003: { fields: [['usri1003_password', 'str16']] },
  USER_INFO_1008: { fields: [['usri1008_flags', 'uint32_t']] },
  LOCALGROUP_INFO_1: {
    fields: [
      ['lgrpi1_name', 'str16'],
      ['lgrpi1_comment', 'str16'],
    ],
  },
  LOCALGROUP_MEMBERS_INFO_3: { fields: [['lgrmi3_domainandname', 'str16']] },
  // userenv
  PROFILEINFOW: {
    fields: [
      ['dwSize', 'uint32_t'],
      ['dwFlags', 'uint32_t'],
      ['lpUserName', 'str16'],
      ['lpProfilePath', 'str16'],
      ['lpDefaultPath', 'str16'],
      ['lpServerName', 'str16'],
      ['lpPolicyPath', 'str16'],
      ['hProfile', 'intptr_t'],
    ],
  },
  // advapi32
  SERVICE_DESCRIPTIONW: { fields: [['lpDescription', 'str16']] },
  SERVICE_STATUS: {
    fields: [
      ['dwServiceType', 'uint32_t'],
      ['dwCurrentState', 'uint32_t'],
      ['dwControlsAccepted', 'uint32_t'],
      ['dwWin32ExitCode', 'uint32_t'],
      ['dwServiceSpecificExitCode', 'uint32_t'],
      ['dwCheckPoint', 'uint32_t'],
      ['dwWaitHint', 'uint32_t'],
    ],
  },
  SERVICE_TABLE_ENTRYW: {
    fields: [
      ['lpServiceName', 'str16'],
      ['lpServiceProc', 'void *'],
    ],
  },
  LUID: {
    fields: [
      ['LowPart', 'uint32_t'],
      ['HighPart', 'int32_t'],
    ],
  },
  LUID_AND_ATTRIBUTES: {
    fields: [
      ['Luid', 'LUID'],
      ['Attributes', 'uint32_t'],
    ],
  },
  /** With one privilege (ANYSIZE_ARRAY is 1). */
  TOKEN_PRIVILEGES: {
    fields: [
      ['PrivilegeCount', 'uint32_t'],
      ['Privileges', { array: 'LUID_AND_ATTRIBUTES', length: 1 }],
    ],
  },
  // crypt32
  CRYPT_INTEGER_BLOB: {
    fields: [
      ['cbData', 'uint32_t'],
      ['pbData', 'void *'],
    ],
  },
  CRYPT_ALGORITHM_IDENTIFIER: {
    fields: [
      ['pszObjId', 'str'],
      ['Parameters', 'CRYPT_INTEGER_BLOB'],
    ],
  },
  CRYPT_KEY_PROV_INFO: {
    fields: [
      ['pwszContainerName', 'str16'],
      ['pwszProvName', 'str16'],
      ['dwProvType', 'uint32_t'],
      ['dwFlags', 'uint32_t'],
      ['cProvParam', 'uint32_t'],
      ['rgProvParam', 'void *'],
      ['dwKeySpec', 'uint32_t'],
    ],
  },
  SYSTEMTIME: {
    fields: [
      ['wYear', 'uint16_t'],
      ['wMonth', 'uint16_t'],
      ['wDayOfWeek', 'uint16_t'],
      ['wDay', 'uint16_t'],
      ['wHour', 'uint16_t'],
      ['wMinute', 'uint16_t'],
      ['wSecond', 'uint16_t'],
      ['wMilliseconds', 'uint16_t'],
    ],
  },
  CMSG_CTRL_DECRYPT_PARA: {
    fields: [
      ['cbSize', 'uint32_t'],
      ['hCryptProv', 'uintptr_t'],
      ['dwKeySpec', 'uint32_t'],
      ['dwRecipientIndex', 'uint32_t'],
    ],
  },
  CERT_CONTEXT: {
    fields: [
      ['dwCertEncodingType', 'uint32_t'],
      ['pbCertEncoded', 'void *'],
      ['cbCertEncoded', 'uint32_t'],
      ['pCertInfo', 'void *'],
      ['hCertStore', 'void *'],
    ],
  },
  FILETIME: {
    fields: [
      ['dwLowDateTime', 'uint32_t'],
      ['dwHighDateTime', 'uint32_t'],
    ],
  },
  /** The head of CERT_INFO up to NotBefore, which is all kiln reads. */
  CERT_INFO_HEAD: {
    fields: [
      ['dwVersion', 'uint32_t'],
      ['SerialNumber', 'CRYPT_INTEGER_BLOB'],
      ['SignatureAlgorithm', 'CRYPT_ALGORITHM_IDENTIFIER'],
      ['Issuer', 'CRYPT_INTEGER_BLOB'],
      ['NotBefore', 'FILETIME'],
    ],
  },
  // ntdll
  OSVERSIONINFOEXW: {
    fields: [
      ['dwOSVersionInfoSize', 'uint32_t'],
      ['dwMajorVersion', 'uint32_t'],
      ['dwMinorVersion', 'uint32_t'],
      ['dwBuildNumber', 'uint32_t'],
      ['dwPlatformId', 'uint32_t'],
      ['szCSDVersion', { array: 'char16_t', length: 128, hint: 'String' }],
      ['wServicePackMajor', 'uint16_t'],
      ['wServicePackMinor', 'uint16_t'],
      ['wSuiteMask', 'uint16_t'],
      ['wProductType', 'uint8_t'],
      ['wReserved', 'uint8_t'],
    ],
  },
  // kernel32
  TIME_ZONE_INFORMATION: {
    fields: [
      ['Bias', 'int32_t'],
      ['StandardName', { array: 'uint16_t', length: 32 }],
      ['StandardDate', 'SYSTEMTIME'],
      ['StandardBias', 'int32_t'],
      ['DaylightName', { array: 'uint16_t', length: 32 }],
      ['DaylightDate', 'SYSTEMTIME'],
      ['DaylightBias', 'int32_t'],
    ],
  },
  DYNAMIC_TIME_ZONE_INFORMATION: {
    fields: [
      ['Bias', 'int32_t'],
      ['StandardName', { array: 'uint16_t', length: 32 }],
      ['StandardDate', 'SYSTEMTIME'],
      ['StandardBias', 'int32_t'],
      ['DaylightName', { array: 'uint16_t', length: 32 }],
      ['DaylightDate', 'SYSTEMTIME'],
      ['DaylightBias', 'int32_t'],
      ['TimeZoneKeyName', { array: 'uint16_t', length: 128 }],
      ['DynamicDaylightTimeDisabled', 'uint8_t'],
    ],
  },
  DISK_EXTENT: {
    fields: [
      ['DiskNumber', 'uint32_t'],
      ['StartingOffset', 'int64_t'],
      ['ExtentLength', 'int64_t'],
    ],
  },
  /** With one extent (ANYSIZE_ARRAY); more follow at the DISK_EXTENT stride. */
  VOLUME_DISK_EXTENTS: {
    fields: [
      ['NumberOfDiskExtents', 'uint32_t'],
      ['Extents', { array: 'DISK_EXTENT', length: 1 }],
    ],
  },
  GUID: {
    fields: [
      ['Data1', 'uint32_t'],
      ['Data2', 'uint16_t'],
      ['Data3', 'uint16_t'],
      ['Data4', { array: 'uint8_t', length: 8 }],
    ],
  },
  PARTITION_INFORMATION_MBR: {
    fields: [
      ['PartitionType', 'uint8_t'],
      ['BootIndicator', 'uint8_t'],
      ['RecognizedPartition', 'uint8_t'],
      ['HiddenSectors', 'uint32_t'],
      ['PartitionId', 'GUID'],
    ],
  },
  PARTITION_INFORMATION_GPT: {
    fields: [
      ['PartitionType', 'GUID'],
      ['PartitionId', 'GUID'],
      ['Attributes', 'uint64_t'],
      ['Name', { array: 'uint16_t', length: 36 }],
    ],
  },
  PARTITION_INFORMATION_UNION: {
    kind: 'union',
    fields: [
      ['Mbr', 'PARTITION_INFORMATION_MBR'],
      ['Gpt', 'PARTITION_INFORMATION_GPT'],
    ],
  },
  PARTITION_INFORMATION_EX: {
    fields: [
      ['PartitionStyle', 'uint32_t'],
      ['StartingOffset', 'int64_t'],
      ['PartitionLength', 'int64_t'],
      ['PartitionNumber', 'uint32_t'],
      ['RewritePartition', 'uint8_t'],
      ['IsServicePartition', 'uint8_t'],
      ['Info', 'PARTITION_INFORMATION_UNION'],
    ],
  },
  DRIVE_LAYOUT_INFORMATION_MBR: {
    fields: [
      ['Signature', 'uint32_t'],
      ['CheckSum', 'uint32_t'],
    ],
  },
  DRIVE_LAYOUT_INFORMATION_GPT: {
    fields: [
      ['DiskId', 'GUID'],
      ['StartingUsableOffset', 'int64_t'],
      ['UsableLength', 'int64_t'],
      ['MaxPartitionCount', 'uint32_t'],
    ],
  },
  DRIVE_LAYOUT_INFORMATION_UNION: {
    kind: 'union',
    fields: [
      ['Mbr', 'DRIVE_LAYOUT_INFORMATION_MBR'],
      ['Gpt', 'DRIVE_LAYOUT_INFORMATION_GPT'],
    ],
  },
  /** With one partition entry (ANYSIZE_ARRAY); more follow at the PARTITION_INFORMATION_EX stride. */
  DRIVE_LAYOUT_INFORMATION_EX: {
    fields: [
      ['PartitionStyle', 'uint32_t'],
      ['PartitionCount', 'uint32_t'],
      ['Layout', 'DRIVE_LAYOUT_INFORMATION_UNION'],
      ['PartitionEntry', { array: 'PARTITION_INFORMATION_EX', length: 1 }],
    ],
  },
  DISK_GROW_PARTITION: {
    fields: [
      ['PartitionNumber', 'uint32_t'],
      ['BytesToGrow', 'int64_t'],
    ],
  },
  // version
  VS_FIXEDFILEINFO: {
    fields: [
      ['dwSignature', 'uint32_t'],
      ['dwStrucVersion', 'uint32_t'],
      ['dwFileVersionMS', 'uint32_t'],
      ['dwFileVersionLS', 'uint32_t'],
      ['dwProductVersionMS', 'uint32_t'],
      ['dwProductVersionLS', 'uint32_t'],
      ['dwFileFlagsMask', 'uint32_t'],
      ['dwFileFlags', 'uint32_t'],
      ['dwFileOS', 'uint32_t'],
      ['dwFileType', 'uint32_t'],
      ['dwFileSubtype', 'uint32_t'],
      ['dwFileDateMS', 'uint32_t'],
      ['dwFileDateLS', 'uint32_t'],
    ],
  },
  // dhcpcsvc
  DHCPCAPI_PARAMS: {
    fields: [
      ['Flags', 'uint32_t'],
      ['OptionId', 'uint32_t'],
      ['IsVendor', 'int32_t'],
      ['Data', 'void *'],
      ['nBytesData', 'uint32_t'],
    ],
  },
  DHCPCAPI_PARAMS_ARRAY: {
    fields: [
      ['nParams', 'uint32_t'],
      ['Params', 'void *'],
    ],
  },
  // iphlpapi (and ws2ipdef.h's socket addresses)
  SOCKADDR_IN: {
    fields: [
      ['sin_family', 'uint16_t'],
      ['sin_port', 'uint16_t'],
      ['sin_addr', { array: 'uint8_t', length: 4 }],
      ['sin_zero', { array: 'uint8_t', length: 8 }],
    ],
  },
  SOCKADDR_IN6: {
    fields: [
      ['sin6_family', 'uint16_t'],
      ['sin6_port', 'uint16_t'],
      ['sin6_flowinfo', 'uint32_t'],
      ['sin6_addr', { array: 'uint8_t', length: 16 }],
      ['sin6_scope_id', 'uint32_t'],
    ],
  },
  SOCKADDR_INET: {
    kind: 'union',
    fields: [
      ['Ipv4', 'SOCKADDR_IN'],
      ['Ipv6', 'SOCKADDR_IN6'],
      ['si_family', 'uint16_t'],
    ],
  },
  IP_ADDRESS_PREFIX: {
    fields: [
      ['Prefix', 'SOCKADDR_INET'],
      ['PrefixLength', 'uint8_t'],
    ],
  },
  SOCKET_ADDRESS: {
    fields: [
      ['lpSockaddr', 'void *'],
      ['iSockaddrLength', 'int32_t'],
    ],
  },
  MIB_UNICASTIPADDRESS_ROW: {
    fields: [
      ['Address', 'SOCKADDR_INET'],
      ['InterfaceLuid', 'uint64_t'],
      ['InterfaceIndex', 'uint32_t'],
      ['PrefixOrigin', 'uint32_t'],
      ['SuffixOrigin', 'uint32_t'],
      ['ValidLifetime', 'uint32_t'],
      ['PreferredLifetime', 'uint32_t'],
      ['OnLinkPrefixLength', 'uint8_t'],
      ['SkipAsSource', 'uint8_t'],
      ['DadState', 'uint32_t'],
      ['ScopeId', 'uint32_t'],
      ['CreationTimeStamp', 'int64_t'],
    ],
  },
  MIB_IPFORWARD_ROW2: {
    fields: [
      ['InterfaceLuid', 'uint64_t'],
      ['InterfaceIndex', 'uint32_t'],
      ['DestinationPrefix', 'IP_ADDRESS_PREFIX'],
      ['NextHop', 'SOCKADDR_INET'],
      ['SitePrefixLength', 'uint8_t'],
      ['ValidLifetime', 'uint32_t'],
      ['PreferredLifetime', 'uint32_t'],
      ['Metric', 'uint32_t'],
      ['Protocol', 'uint32_t'],
      ['Loopback', 'uint8_t'],
      ['AutoconfigureAddress', 'uint8_t'],
      ['Publish', 'uint8_t'],
      ['Immortal', 'uint8_t'],
      ['Age', 'uint32_t'],
      ['Origin', 'uint32_t'],
    ],
  },
  MIB_IPINTERFACE_ROW: {
    fields: [
      ['Family', 'uint16_t'],
      ['InterfaceLuid', 'uint64_t'],
      ['InterfaceIndex', 'uint32_t'],
      ['MaxReassemblySize', 'uint32_t'],
      ['InterfaceIdentifier', 'uint64_t'],
      ['MinRouterAdvertisementInterval', 'uint32_t'],
      ['MaxRouterAdvertisementInterval', 'uint32_t'],
      ['AdvertisingEnabled', 'uint8_t'],
      ['ForwardingEnabled', 'uint8_t'],
      ['WeakHostSend', 'uint8_t'],
      ['WeakHostReceive', 'uint8_t'],
      ['UseAutomaticMetric', 'uint8_t'],
      ['UseNeighborUnreachabilityDetection', 'uint8_t'],
      ['ManagedAddressConfigurationSupported', 'uint8_t'],
      ['OtherStatefulConfigurationSupported', 'uint8_t'],
      ['AdvertiseDefaultRoute', 'uint8_t'],
      ['RouterDiscoveryBehavior', 'uint32_t'],
      ['DadTransmits', 'uint32_t'],
      ['BaseReachableTime', 'uint32_t'],
      ['RetransmitTime', 'uint32_t'],
      ['PathMtuDiscoveryTimeout', 'uint32_t'],
      ['LinkLocalAddressBehavior', 'uint32_t'],
      ['LinkLocalAddressTimeout', 'uint32_t'],
      ['ZoneIndices', { array: 'uint32_t', length: 16 }],
      ['SitePrefixLength', 'uint32_t'],
      ['Metric', 'uint32_t'],
      ['NlMtu', 'uint32_t'],
      ['Connected', 'uint8_t'],
      ['SupportsWakeUpPatterns', 'uint8_t'],
      ['SupportsNeighborDiscovery', 'uint8_t'],
      ['SupportsRouterDiscovery', 'uint8_t'],
      ['ReachableTime', 'uint32_t'],
      ['TransmitOffload', 'uint8_t'],
      ['ReceiveOffload', 'uint8_t'],
      ['DisableDefaultRoutes', 'uint8_t'],
    ],
  },
  IP_ADAPTER_UNICAST_ADDRESS_LH: {
    fields: [
      ['Length', 'uint32_t'],
      ['Flags', 'uint32_t'],
      ['Next', 'void *'],
      ['Address', 'SOCKET_ADDRESS'],
      ['PrefixOrigin', 'uint32_t'],
      ['SuffixOrigin', 'uint32_t'],
      ['DadState', 'uint32_t'],
      ['ValidLifetime', 'uint32_t'],
      ['PreferredLifetime', 'uint32_t'],
      ['LeaseLifetime', 'uint32_t'],
      ['OnLinkPrefixLength', 'uint8_t'],
    ],
  },
  IP_ADAPTER_DNS_SERVER_ADDRESS_XP: {
    fields: [
      ['Length', 'uint32_t'],
      ['Reserved', 'uint32_t'],
      ['Next', 'void *'],
      ['Address', 'SOCKET_ADDRESS'],
    ],
  },
  IP_ADAPTER_ADDRESSES_LH: {
    fields: [
      ['Length', 'uint32_t'],
      ['IfIndex', 'uint32_t'],
      ['Next', 'void *'],
      ['AdapterName', 'void *'],
      ['FirstUnicastAddress', 'void *'],
      ['FirstAnycastAddress', 'void *'],
      ['FirstMulticastAddress', 'void *'],
      ['FirstDnsServerAddress', 'void *'],
      ['DnsSuffix', 'void *'],
      ['Description', 'void *'],
      ['FriendlyName', 'void *'],
      ['PhysicalAddress', { array: 'uint8_t', length: 8 }],
      ['PhysicalAddressLength', 'uint32_t'],
      ['Flags', 'uint32_t'],
      ['Mtu', 'uint32_t'],
      ['IfType', 'uint32_t'],
      ['OperStatus', 'uint32_t'],
      ['Ipv6IfIndex', 'uint32_t'],
      ['ZoneIndices', { array: 'uint32_t', length: 16 }],
      ['FirstPrefix', 'void *'],
      ['TransmitLinkSpeed', 'uint64_t'],
      ['ReceiveLinkSpeed', 'uint64_t'],
      ['FirstWinsServerAddress', 'void *'],
      ['FirstGatewayAddress', 'void *'],
      ['Ipv4Metric', 'uint32_t'],
      ['Ipv6Metric', 'uint32_t'],
      ['Luid', 'uint64_t'],
      ['Dhcpv4Server', 'SOCKET_ADDRESS'],
      ['CompartmentId', 'uint32_t'],
      ['NetworkGuid', 'GUID'],
      ['ConnectionType', 'uint32_t'],
      ['TunnelType', 'uint32_t'],
      ['Dhcpv6Server', 'SOCKET_ADDRESS'],
      ['Dhcpv6ClientDuid', { array: 'uint8_t', length: 130 }],
      ['Dhcpv6ClientDuidLength', 'uint32_t'],
      ['Dhcpv6Iaid', 'uint32_t'],
      ['FirstDnsSuffix', 'void *'],
    ],
  },
} as const satisfies Record<string, Win32StructDeclaration>;

export type Win32StructName = keyof typeof WIN32_STRUCTS;
export type Win32StructTypes = Record<Win32StructName, ReturnType<Koffi['struct']>>;

const declared = new WeakMap<object, Win32StructTypes>();

/**
 * The koffi types of every structure of WIN32_STRUCTS, declared on first use. koffi refuses a type name twice in one
 * process, so they are kept per koffi addon instance (its `struct` function names it: a wrapper sharing it shares
 * them).
 */
export function win32Structs(koffi: Koffi): Win32StructTypes {
  const known = declared.get(koffi.struct);
  if (known) return known;
  const types = {} as Win32StructTypes;
  const fieldType = (t: Win32FieldType): string | ReturnType<Koffi['struct']> => {
    const resolve = (name: string) => (name in types ? types[name as Win32StructName] : name);
    return typeof t === 'string'
      ? resolve(t)
      : t.hint
        ? koffi.array(resolve(t.array), t.length, t.hint)
        : koffi.array(resolve(t.array), t.length);
  };
  // The table lists each structure after the ones it contains.
  for (const [name, decl] of Object.entries(WIN32_STRUCTS) as Array<[Win32StructName, Win32StructDeclaration]>) {
    try {
      const def = Object.fromEntries(decl.fields.map(([field, t]) => [field, fieldType(t)]));
      types[name] = decl.kind === 'union' ? koffi.union(`KILN_${name}`, def) : koffi.struct(`KILN_${name}`, def);
    } catch (err) {
      throw new Error(`koffi cannot declare ${name}: ${describeError(err)}`);
    }
  }
  declared.set(koffi.struct, types);
  return types;
}
