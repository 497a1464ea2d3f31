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

export interface Kernel32 {
  lastErrorText(code?: number): string;
  getComputerNameEx(format: number): string;
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
  };
}
