// kernel32.dll bindings: error text for GetLastError, and the computer name.
import type { Koffi } from '../koffi-loader';
import { PlatformError } from '../../../util/errors';

const FORMAT_MESSAGE_FROM_SYSTEM = 0x1000;
const FORMAT_MESSAGE_IGNORE_INSERTS = 0x200;

/** COMPUTER_NAME_FORMAT values for GetComputerNameExW. */
export const ComputerNameFormat = {
  NetBIOS: 0,
  DnsHostname: 1,
  DnsDomain: 2,
  DnsFullyQualified: 3,
  PhysicalNetBIOS: 4,
  PhysicalDnsHostname: 5,
} as const;

/** DYNAMIC_TIME_ZONE_INFORMATION: 432 bytes, TimeZoneKeyName (WCHAR[128]) at offset 172. */
const DTZI_SIZE = 432;
const DTZI_KEY_OFFSET = 172;

export interface Kernel32 {
  lastErrorText(code?: number): string;
  getComputerNameEx(format: number): string;
  // Computer name, time zone and processes (appended for the cloudbase-init plugins).
  /** GetLastError() of the last Win32 call made through koffi. */
  lastError(): number;
  /** Sets the name used after the next boot (COMPUTER_NAME_FORMAT PhysicalNetBIOS or PhysicalDnsHostname). */
  setComputerNameEx(format: number, name: string): void;
  closeHandle(handle: number): void;
  /** The current time zone's standard name and bias, as GetDynamicTimeZoneInformation reports them. */
  getTimeZoneKeyName(): string;
  /** Sets the system time zone from its registry key name (e.g. 'W. Europe Standard Time'); needs SeTimeZonePrivilege. */
  setDynamicTimeZone(tz: DynamicTimeZone): void;
  getCurrentProcessId(): number;
}

/** The fields of DYNAMIC_TIME_ZONE_INFORMATION kiln fills from HKLM\...\Time Zones\<key>. */
export interface DynamicTimeZone {
  keyName: string;
  standardName: string;
  daylightName: string;
  /** TZI blob fields: bias, standard bias, daylight bias (minutes), and the two SYSTEMTIME transition dates (16 bytes each). */
  bias: number;
  standardBias: number;
  daylightBias: number;
  standardDate: Uint8Array;
  daylightDate: Uint8Array;
}

export function bindKernel32(koffi: Koffi): Kernel32 {
  const lib = koffi.load('kernel32.dll');
  const GetLastError = lib.func('__stdcall', 'GetLastError', 'uint32_t', []);
  const FormatMessageW = lib.func('__stdcall', 'FormatMessageW', 'uint32_t', [
    'uint32_t', 'void *', 'uint32_t', 'uint32_t', koffi.out(koffi.pointer('char16_t')), 'uint32_t', 'void *',
  ]);
  const GetComputerNameExW = lib.func('__stdcall', 'GetComputerNameExW', 'int', [
    'int', koffi.out(koffi.pointer('char16_t')), koffi.inout(koffi.pointer('uint32_t')),
  ]);

  const SetComputerNameExW = lib.func('__stdcall', 'SetComputerNameExW', 'int', ['int', 'str16']);
  const CloseHandle = lib.func('__stdcall', 'CloseHandle', 'int', ['intptr_t']);
  const GetDynamicTimeZoneInformation = lib.func('__stdcall', 'GetDynamicTimeZoneInformation', 'uint32_t', ['void *']);
  const SetDynamicTimeZoneInformation = lib.func('__stdcall', 'SetDynamicTimeZoneInformation', 'int', ['void *']);
  const GetCurrentProcessId = lib.func('__stdcall', 'GetCurrentProcessId', 'uint32_t', []);

  function lastErrorText(code: number = GetLastError() as number): string {
    const buf = Buffer.alloc(1024);
    const n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, null, code, 0, buf, 512, null) as number;
    const text = n > 0 ? buf.subarray(0, n * 2).toString('utf16le').trim() : 'unknown error';
    return `${text} (error ${code})`;
  }

  return {
    lastErrorText,
    getComputerNameEx(format: number): string {
      const size = [256];
      const buf = Buffer.alloc(512);
      if (!GetComputerNameExW(format, buf, size)) throw new PlatformError(`GetComputerNameExW failed: ${lastErrorText()}`);
      return buf.subarray(0, (size[0] ?? 0) * 2).toString('utf16le');
    },
    lastError(): number {
      return GetLastError() as number;
    },
    setComputerNameEx(format: number, name: string): void {
      if (!SetComputerNameExW(format, name)) throw new PlatformError(`SetComputerNameExW '${name}' failed: ${lastErrorText()}`);
    },
    closeHandle(handle: number): void {
      CloseHandle(handle);
    },
    getTimeZoneKeyName(): string {
      const info = Buffer.alloc(DTZI_SIZE);
      if ((GetDynamicTimeZoneInformation(info) as number) === 0xffffffff) throw new PlatformError(`GetDynamicTimeZoneInformation failed: ${lastErrorText()}`);
      return info.subarray(DTZI_KEY_OFFSET, DTZI_KEY_OFFSET + 256).toString('utf16le').replace(/\0.*$/s, '');
    },
    setDynamicTimeZone(tz: DynamicTimeZone): void {
      const info = Buffer.alloc(DTZI_SIZE);
      info.writeInt32LE(tz.bias, 0);
      info.write(tz.standardName.slice(0, 31), 4, 'utf16le');
      Buffer.from(tz.standardDate).copy(info, 68, 0, 16);
      info.writeInt32LE(tz.standardBias, 84);
      info.write(tz.daylightName.slice(0, 31), 88, 'utf16le');
      Buffer.from(tz.daylightDate).copy(info, 152, 0, 16);
      info.writeInt32LE(tz.daylightBias, 168);
      info.write(tz.keyName.slice(0, 127), DTZI_KEY_OFFSET, 'utf16le');
      if (!SetDynamicTimeZoneInformation(info)) throw new PlatformError(`SetDynamicTimeZoneInformation '${tz.keyName}' failed: ${lastErrorText()}`);
    },
    getCurrentProcessId(): number {
      return GetCurrentProcessId() as number;
    },
  };
}
