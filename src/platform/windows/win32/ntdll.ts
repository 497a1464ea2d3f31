// ntdll.dll bindings: the true OS version (RtlGetVersion is not subject to the manifest-based lie of GetVersionEx).
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';
import { win32Structs } from './win32-structs';

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
  const { OSVERSIONINFOEXW } = win32Structs(koffi);
  const RtlGetVersion = lib.func('__stdcall', 'RtlGetVersion', 'int32_t', [
    koffi.inout(koffi.pointer(OSVERSIONINFOEXW)),
  ]);
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
