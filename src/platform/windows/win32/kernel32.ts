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

// ---- Drives and raw disk reads (src/devices: drive letters, \\.\PhysicalDriveN, \\.\D:) ----

/** GetDriveTypeW results. */
export const DriveType = { Unknown: 0, NoRootDir: 1, Removable: 2, Fixed: 3, Remote: 4, CdRom: 5, RamDisk: 6 } as const;

const GENERIC_READ = 0x80000000;
const FILE_SHARE_READ_WRITE = 0x1 | 0x2;
const OPEN_EXISTING = 3;
const FILE_BEGIN = 0;
const IOCTL_DISK_GET_LENGTH_INFO = 0x0007405c;

export interface VolumeInformation {
  label: string;
  serial: number;
  fsName: string;
}

export interface Kernel32Disk {
  /** 'C:\\', 'D:\\' … from GetLogicalDriveStringsW. */
  logicalDrives(): string[];
  driveType(root: string): number;
  /** Label, serial and filesystem name of a mounted volume; undefined when there is no medium. */
  volumeInformation(root: string): VolumeInformation | undefined;
  /** Opens a device ('\\\\.\\PhysicalDrive0', '\\\\.\\D:') for reading; undefined with the error code when it cannot. */
  openDevice(path: string): { handle: number | bigint } | { error: number };
  /** Byte length of an opened disk or volume (IOCTL_DISK_GET_LENGTH_INFO), undefined when the ioctl fails. */
  deviceLength(handle: number | bigint): number | undefined;
  /** Reads into BUF at OFFSET (both sector-aligned); returns the bytes read. */
  readAt(handle: number | bigint, offset: number, buf: Buffer): number;
  closeHandle(handle: number | bigint): void;
  lastErrorText(code?: number): string;
}

export function bindKernel32Disk(koffi: Koffi): Kernel32Disk {
  const lib = koffi.load('kernel32.dll');
  const base = bindKernel32(koffi);
  const GetLogicalDriveStringsW = lib.func('__stdcall', 'GetLogicalDriveStringsW', 'uint32_t', ['uint32_t', 'void *']);
  const GetDriveTypeW = lib.func('__stdcall', 'GetDriveTypeW', 'uint32_t', ['str16']);
  const GetVolumeInformationW = lib.func('__stdcall', 'GetVolumeInformationW', 'int', [
    'str16', 'void *', 'uint32_t', koffi.out(koffi.pointer('uint32_t')), koffi.out(koffi.pointer('uint32_t')),
    koffi.out(koffi.pointer('uint32_t')), 'void *', 'uint32_t',
  ]);
  const CreateFileW = lib.func('__stdcall', 'CreateFileW', 'intptr_t', ['str16', 'uint32_t', 'uint32_t', 'void *', 'uint32_t', 'uint32_t', 'intptr_t']);
  const ReadFile = lib.func('__stdcall', 'ReadFile', 'int', ['intptr_t', 'void *', 'uint32_t', koffi.out(koffi.pointer('uint32_t')), 'void *']);
  const SetFilePointerEx = lib.func('__stdcall', 'SetFilePointerEx', 'int', ['intptr_t', 'int64_t', 'void *', 'uint32_t']);
  const DeviceIoControl = lib.func('__stdcall', 'DeviceIoControl', 'int', [
    'intptr_t', 'uint32_t', 'void *', 'uint32_t', 'void *', 'uint32_t', koffi.out(koffi.pointer('uint32_t')), 'void *',
  ]);
  const CloseHandle = lib.func('__stdcall', 'CloseHandle', 'int', ['intptr_t']);
  const GetLastError = lib.func('__stdcall', 'GetLastError', 'uint32_t', []);
  const utf16z = (buf: Buffer, chars: number) => {
    const s = buf.subarray(0, chars * 2).toString('utf16le');
    const nul = s.indexOf('\0');
    return nul >= 0 ? s.slice(0, nul) : s;
  };

  return {
    lastErrorText: base.lastErrorText,
    logicalDrives(): string[] {
      const buf = Buffer.alloc(2 * 1024);
      const n = GetLogicalDriveStringsW(1024, buf) as number;
      if (n === 0 || n > 1024) throw new PlatformError(`GetLogicalDriveStringsW failed: ${base.lastErrorText()}`);
      return buf.subarray(0, n * 2).toString('utf16le').split('\0').filter((s) => s.length > 0);
    },
    driveType(root: string): number {
      return GetDriveTypeW(root) as number;
    },
    volumeInformation(root: string): VolumeInformation | undefined {
      const name = Buffer.alloc(2 * 261);
      const fs = Buffer.alloc(2 * 261);
      const serial = [0];
      const maxComponent = [0];
      const flags = [0];
      if (!GetVolumeInformationW(root, name, 261, serial, maxComponent, flags, fs, 261)) return undefined;
      return { label: utf16z(name, 261), serial: serial[0] ?? 0, fsName: utf16z(fs, 261) };
    },
    openDevice(path: string) {
      const h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ_WRITE, null, OPEN_EXISTING, 0, 0) as number | bigint;
      if (h === -1 || h === -1n || h === 0 || h === 0n) return { error: GetLastError() as number };
      return { handle: h };
    },
    deviceLength(handle: number | bigint): number | undefined {
      const out = Buffer.alloc(8);
      const returned = [0];
      if (!DeviceIoControl(handle, IOCTL_DISK_GET_LENGTH_INFO, null, 0, out, 8, returned, null)) return undefined;
      return Number(out.readBigInt64LE(0));
    },
    readAt(handle: number | bigint, offset: number, buf: Buffer): number {
      if (!SetFilePointerEx(handle, offset, null, FILE_BEGIN)) throw new PlatformError(`SetFilePointerEx to ${offset} failed: ${base.lastErrorText()}`);
      const read = [0];
      if (!ReadFile(handle, buf, buf.length, read, null)) throw new PlatformError(`ReadFile of ${buf.length} bytes at ${offset} failed: ${base.lastErrorText()}`);
      return read[0] ?? 0;
    },
    closeHandle(handle: number | bigint): void {
      CloseHandle(handle);
    },
  };
}
