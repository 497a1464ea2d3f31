// ntdll.dll bindings: the true OS version (RtlGetVersion is not subject to the manifest-based lie of GetVersionEx).
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';

export interface WindowsVersion {
  major: number;
  minor: number;
  build: number;
  platformId: number;
  servicePack: string;
  productType: number;
}

export interface Ntdll {
  rtlGetVersion(): WindowsVersion;
}

interface OsVersionInfoExW {
  dwOSVersionInfoSize: number;
  dwMajorVersion: number;
  dwMinorVersion: number;
  dwBuildNumber: number;
  dwPlatformId: number;
  szCSDVersion: string;
  wServicePackMajor: number;
  wServicePackMinor: number;
  wSuiteMask: number;
  wProductType: number;
  wReserved: number;
}

export function bindNtdll(koffi: Koffi): Ntdll {
  const lib = koffi.load('ntdll.dll');
  const OSVERSIONINFOEXW = koffi.struct('OSVERSIONINFOEXW', {
    dwOSVersionInfoSize: 'uint32_t',
    dwMajorVersion: 'uint32_t',
    dwMinorVersion: 'uint32_t',
    dwBuildNumber: 'uint32_t',
    dwPlatformId: 'uint32_t',
    szCSDVersion: koffi.array('char16_t', 128, 'String'),
    wServicePackMajor: 'uint16_t',
    wServicePackMinor: 'uint16_t',
    wSuiteMask: 'uint16_t',
    wProductType: 'uint8_t',
    wReserved: 'uint8_t',
  });
  const RtlGetVersion = lib.func('__stdcall', 'RtlGetVersion', 'int32_t', [koffi.inout(koffi.pointer(OSVERSIONINFOEXW))]);
  return {
    rtlGetVersion(): WindowsVersion {
      const info: Partial<OsVersionInfoExW> = { dwOSVersionInfoSize: koffi.sizeof(OSVERSIONINFOEXW) };
      const status = RtlGetVersion(info) as number;
      if (status !== 0) throw new PlatformError(`RtlGetVersion failed with NTSTATUS 0x${(status >>> 0).toString(16)}`);
      return {
        major: info.dwMajorVersion ?? 0,
        minor: info.dwMinorVersion ?? 0,
        build: info.dwBuildNumber ?? 0,
        platformId: info.dwPlatformId ?? 0,
        servicePack: info.szCSDVersion ?? '',
        productType: info.wProductType ?? 0,
      };
    },
  };
}
