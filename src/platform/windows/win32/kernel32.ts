// kernel32.dll bindings: error text for GetLastError, and the computer name.
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';
import { win32Structs } from './win32-structs';

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
  // Computer name, time zone and processes (appended for the cloudbase-init plugins).
  /** GetLastError() of the last Win32 call made through koffi. */
  lastError(): number;
  /** Sets the name used after the next boot (COMPUTER_NAME_FORMAT PhysicalNetBIOS or PhysicalDnsHostname). */
  setComputerNameEx(format: number, name: string): void;
  closeHandle(handle: number): void;
  /** The current time zone's standard name and bias, as GetDynamicTimeZoneInformation reports them. */
  getTimeZoneKeyName(): string;
  /**
   * Sets the system time zone from its registry key name (e.g. 'W. Europe Standard Time'); needs SeTimeZonePrivilege.
   */
  setDynamicTimeZone(tz: DynamicTimeZone): void;
  getCurrentProcessId(): number;
}

/** The fields of DYNAMIC_TIME_ZONE_INFORMATION kiln fills from HKLM\...\Time Zones\<key>. */
export interface DynamicTimeZone {
  keyName: string;
  standardName: string;
  daylightName: string;
  /**
   * TZI blob fields: bias, standard bias, daylight bias (minutes), and the two SYSTEMTIME transition dates (16 bytes
   * each).
   */
  bias: number;
  standardBias: number;
  daylightBias: number;
  standardDate: Uint8Array;
  daylightDate: Uint8Array;
}

export function bindKernel32(koffi: Koffi): Kernel32 {
  const lib = koffi.load('kernel32.dll');
  const { DYNAMIC_TIME_ZONE_INFORMATION: DTZI_TYPE } = win32Structs(koffi);
  const dtzi = (field: string) => koffi.offsetof(DTZI_TYPE, field);
  const DTZI = {
    size: koffi.sizeof(DTZI_TYPE),
    standardName: dtzi('StandardName'),
    standardDate: dtzi('StandardDate'),
    standardBias: dtzi('StandardBias'),
    daylightName: dtzi('DaylightName'),
    daylightDate: dtzi('DaylightDate'),
    daylightBias: dtzi('DaylightBias'),
    keyName: dtzi('TimeZoneKeyName'),
  };
  const GetLastError = lib.func('__stdcall', 'GetLastError', 'uint32_t', []);
  const FormatMessageW = lib.func('__stdcall', 'FormatMessageW', 'uint32_t', [
    'uint32_t',
    'void *',
    'uint32_t',
    'uint32_t',
    koffi.out(koffi.pointer('char16_t')),
    'uint32_t',
    'void *',
  ]);
  const GetComputerNameExW = lib.func('__stdcall', 'GetComputerNameExW', 'int', [
    'int',
    koffi.out(koffi.pointer('char16_t')),
    koffi.inout(koffi.pointer('uint32_t')),
  ]);

  const SetComputerNameExW = lib.func('__stdcall', 'SetComputerNameExW', 'int', ['int', 'str16']);
  const CloseHandle = lib.func('__stdcall', 'CloseHandle', 'int', ['intptr_t']);
  const GetDynamicTimeZoneInformation = lib.func('__stdcall', 'GetDynamicTimeZoneInformation', 'uint32_t', ['void *']);
  // Bound on first use: not every kernel32 (wine's) exports it, and a missing export must not break the other bindings.
  let SetDynamicTimeZoneInformation: ((info: Buffer) => unknown) | undefined;
  const setDynamicTimeZoneInformation = (info: Buffer): boolean => {
    try {
      SetDynamicTimeZoneInformation ??= lib.func('__stdcall', 'SetDynamicTimeZoneInformation', 'int', ['void *']);
    } catch {
      // Without the dynamic variant, TIME_ZONE_INFORMATION (the first 172 bytes) still sets bias, names and dates.
      SetDynamicTimeZoneInformation = lib.func('__stdcall', 'SetTimeZoneInformation', 'int', ['void *']);
    }
    return Boolean(SetDynamicTimeZoneInformation(info));
  };
  const GetCurrentProcessId = lib.func('__stdcall', 'GetCurrentProcessId', 'uint32_t', []);

  function lastErrorText(code: number = GetLastError() as number): string {
    const buf = Buffer.alloc(1024);
    const n = FormatMessageW(
      FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      null,
      code,
      0,
      buf,
      512,
      null,
    ) as number;
    const text =
      n > 0
        ? buf
            .subarray(0, n * 2)
            .toString('utf16le')
            .trim()
        : 'unknown error';
    return `${text} (error ${code})`;
  }

  return {
    lastErrorText,
    getComputerNameEx(format: number): string {
      const size = [256];
      const buf = Buffer.alloc(512);
      if (!GetComputerNameExW(format, buf, size))
        throw new PlatformError(`GetComputerNameExW failed: ${lastErrorText()}`);
      return buf.subarray(0, (size[0] ?? 0) * 2).toString('utf16le');
    },
    lastError(): number {
      return GetLastError() as number;
    },
    setComputerNameEx(format: number, name: string): void {
      if (!SetComputerNameExW(format, name))
        throw new PlatformError(`SetComputerNameExW '${name}' failed: ${lastErrorText()}`);
    },
    closeHandle(handle: number): void {
      CloseHandle(handle);
    },
    getTimeZoneKeyName(): string {
      const info = Buffer.alloc(DTZI.size);
      if ((GetDynamicTimeZoneInformation(info) as number) === 0xffffffff)
        throw new PlatformError(`GetDynamicTimeZoneInformation failed: ${lastErrorText()}`);
      return info
        .subarray(DTZI.keyName, DTZI.keyName + 256)
        .toString('utf16le')
        .replace(/\0.*$/s, '');
    },
    setDynamicTimeZone(tz: DynamicTimeZone): void {
      const info = Buffer.alloc(DTZI.size);
      info.writeInt32LE(tz.bias, 0);
      info.write(tz.standardName.slice(0, 31), DTZI.standardName, 'utf16le');
      Buffer.from(tz.standardDate).copy(info, DTZI.standardDate, 0, 16);
      info.writeInt32LE(tz.standardBias, DTZI.standardBias);
      info.write(tz.daylightName.slice(0, 31), DTZI.daylightName, 'utf16le');
      Buffer.from(tz.daylightDate).copy(info, DTZI.daylightDate, 0, 16);
      info.writeInt32LE(tz.daylightBias, DTZI.daylightBias);
      info.write(tz.keyName.slice(0, 127), DTZI.keyName, 'utf16le');
      if (!setDynamicTimeZoneInformation(info))
        throw new PlatformError(`SetDynamicTimeZoneInformation '${tz.keyName}' failed: ${lastErrorText()}`);
    },
    getCurrentProcessId(): number {
      return GetCurrentProcessId() as number;
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
  /**
   * Opens a device ('\\\\.\\PhysicalDrive0', '\\\\.\\D:') for reading; undefined with the error code when it cannot.
   */
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
    'str16',
    'void *',
    'uint32_t',
    koffi.out(koffi.pointer('uint32_t')),
    koffi.out(koffi.pointer('uint32_t')),
    koffi.out(koffi.pointer('uint32_t')),
    'void *',
    'uint32_t',
  ]);
  const CreateFileW = lib.func('__stdcall', 'CreateFileW', 'intptr_t', [
    'str16',
    'uint32_t',
    'uint32_t',
    'void *',
    'uint32_t',
    'uint32_t',
    'intptr_t',
  ]);
  const ReadFile = lib.func('__stdcall', 'ReadFile', 'int', [
    'intptr_t',
    'void *',
    'uint32_t',
    koffi.out(koffi.pointer('uint32_t')),
    'void *',
  ]);
  const SetFilePointerEx = lib.func('__stdcall', 'SetFilePointerEx', 'int', [
    'intptr_t',
    'int64_t',
    'void *',
    'uint32_t',
  ]);
  const DeviceIoControl = lib.func('__stdcall', 'DeviceIoControl', 'int', [
    'intptr_t',
    'uint32_t',
    'void *',
    'uint32_t',
    'void *',
    'uint32_t',
    koffi.out(koffi.pointer('uint32_t')),
    'void *',
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
      let n = GetLogicalDriveStringsW(1024, buf) as number;
      // ERROR_FILE_NOT_FOUND: the mount manager does not answer yet. Seen under wine when the first process of a
      // fresh prefix asks while wine's own services still start (a loaded CI machine); waited for, 5 s at most.
      for (let tries = 0; n === 0 && (GetLastError() as number) === 2 && tries < 20; tries++) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
        n = GetLogicalDriveStringsW(1024, buf) as number;
      }
      if (n === 0 || n > 1024) throw new PlatformError(`GetLogicalDriveStringsW failed: ${base.lastErrorText()}`);
      return buf
        .subarray(0, n * 2)
        .toString('utf16le')
        .split('\0')
        .filter((s) => s.length > 0);
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
      if (!SetFilePointerEx(handle, offset, null, FILE_BEGIN))
        throw new PlatformError(`SetFilePointerEx to ${offset} failed: ${base.lastErrorText()}`);
      const read = [0];
      if (!ReadFile(handle, buf, buf.length, read, null))
        throw new PlatformError(`ReadFile of ${buf.length} bytes at ${offset} failed: ${base.lastErrorText()}`);
      return read[0] ?? 0;
    },
    closeHandle(handle: number | bigint): void {
      CloseHandle(handle);
    },
  };
}

// ---- Growing partitions and volumes (ExtendVolumesPlugin): disk layout and extend ioctls, no VDS/COM ----

const GENERIC_WRITE = 0x40000000;
const IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS = 0x00560000;
const IOCTL_DISK_GET_DRIVE_LAYOUT_EX = 0x00070050;
const IOCTL_DISK_GROW_PARTITION = 0x0007c0d0;
const IOCTL_DISK_UPDATE_PROPERTIES = 0x00070140;
const FSCTL_EXTEND_VOLUME = 0x000900f0;
const IOCTL_DISK_SET_DRIVE_LAYOUT_EX = 0x0007c054;
const ERROR_INSUFFICIENT_BUFFER = 122;
const ERROR_MORE_DATA = 234;
const PARTITION_STYLE = ['mbr', 'gpt', 'raw'] as const;

/** One extent of a volume on a physical disk (VOLUME_DISK_EXTENTS). */
export interface VolumeExtent {
  diskNumber: number;
  start: number;
  length: number;
}

export interface PartitionEntry {
  number: number;
  start: number;
  length: number;
}

export interface DiskLayout {
  style: 'mbr' | 'gpt' | 'raw';
  partitions: PartitionEntry[];
  /** First byte past the space partitions may use: the GPT's last usable byte + 1, or the disk's length for MBR. */
  usableEnd: number;
}

export interface Kernel32Volumes {
  /** The extents of the volume at ROOT ('C:\\'); more than one means a spanned (dynamic) volume. */
  volumeExtents(root: string): VolumeExtent[];
  diskLayout(diskNumber: number): DiskLayout;
  /** IOCTL_DISK_GROW_PARTITION: grows partition NUMBER of the disk by BYTES into the space after it. */
  growPartition(diskNumber: number, partitionNumber: number, bytes: number): void;
  /** FSCTL_EXTEND_VOLUME: grows the file system at ROOT to TOTAL_SECTORS sectors of its partition. */
  extendFileSystem(root: string, totalSectors: number): void;
  /** Bytes per sector of the volume at ROOT (GetDiskFreeSpaceW). */
  bytesPerSector(root: string): number;
  /**
   * Gives the disk a new identity (IOCTL_DISK_SET_DRIVE_LAYOUT_EX with the layout read back unchanged but for
   * the id): ID is a 32-bit MBR signature or a 16-byte GPT DiskId (GUID layout), whichever the disk's style takes.
   */
  setDiskId(diskNumber: number, id: { mbr: number; gpt: Uint8Array }): 'mbr' | 'gpt';
  /** The NT device behind a drive ('C:\\' → '\\Device\\HarddiskVolume2', QueryDosDeviceW); undefined when none. */
  ntDevice(root: string): string | undefined;
}

export function bindKernel32Volumes(koffi: Koffi): Kernel32Volumes {
  const lib = koffi.load('kernel32.dll');
  const base = bindKernel32(koffi);
  // Offsets in the ioctl structures, from their SDK declarations (winioctl.h).
  const s = win32Structs(koffi);
  const off = (type: keyof typeof s, field: string) => koffi.offsetof(s[type], field);
  const layoutUnion = off('DRIVE_LAYOUT_INFORMATION_EX', 'Layout');
  const LAYOUT = {
    style: off('DRIVE_LAYOUT_INFORMATION_EX', 'PartitionStyle'),
    count: off('DRIVE_LAYOUT_INFORMATION_EX', 'PartitionCount'),
    /** The layout's union: MBR Signature, or GPT DiskId, both at its start. */
    diskId: layoutUnion + off('DRIVE_LAYOUT_INFORMATION_GPT', 'DiskId'),
    gptUsableStart: layoutUnion + off('DRIVE_LAYOUT_INFORMATION_GPT', 'StartingUsableOffset'),
    gptUsableLength: layoutUnion + off('DRIVE_LAYOUT_INFORMATION_GPT', 'UsableLength'),
    entries: off('DRIVE_LAYOUT_INFORMATION_EX', 'PartitionEntry'),
    entrySize: koffi.sizeof(s.PARTITION_INFORMATION_EX),
  };
  const PARTITION = {
    start: off('PARTITION_INFORMATION_EX', 'StartingOffset'),
    length: off('PARTITION_INFORMATION_EX', 'PartitionLength'),
    number: off('PARTITION_INFORMATION_EX', 'PartitionNumber'),
  };
  const EXTENTS = {
    count: off('VOLUME_DISK_EXTENTS', 'NumberOfDiskExtents'),
    first: off('VOLUME_DISK_EXTENTS', 'Extents'),
    size: koffi.sizeof(s.DISK_EXTENT),
    diskNumber: off('DISK_EXTENT', 'DiskNumber'),
    start: off('DISK_EXTENT', 'StartingOffset'),
    length: off('DISK_EXTENT', 'ExtentLength'),
  };
  const GROW = {
    size: koffi.sizeof(s.DISK_GROW_PARTITION),
    number: off('DISK_GROW_PARTITION', 'PartitionNumber'),
    bytes: off('DISK_GROW_PARTITION', 'BytesToGrow'),
  };
  const CreateFileW = lib.func('__stdcall', 'CreateFileW', 'intptr_t', [
    'str16',
    'uint32_t',
    'uint32_t',
    'void *',
    'uint32_t',
    'uint32_t',
    'intptr_t',
  ]);
  const DeviceIoControl = lib.func('__stdcall', 'DeviceIoControl', 'int', [
    'intptr_t',
    'uint32_t',
    'void *',
    'uint32_t',
    'void *',
    'uint32_t',
    koffi.out(koffi.pointer('uint32_t')),
    'void *',
  ]);
  const CloseHandle = lib.func('__stdcall', 'CloseHandle', 'int', ['intptr_t']);
  const GetLastError = lib.func('__stdcall', 'GetLastError', 'uint32_t', []);
  const GetDiskFreeSpaceW = lib.func('__stdcall', 'GetDiskFreeSpaceW', 'int', [
    'str16',
    koffi.out(koffi.pointer('uint32_t')),
    koffi.out(koffi.pointer('uint32_t')),
    koffi.out(koffi.pointer('uint32_t')),
    koffi.out(koffi.pointer('uint32_t')),
  ]);

  const QueryDosDeviceW = lib.func('__stdcall', 'QueryDosDeviceW', 'uint32_t', ['str16', 'void *', 'uint32_t']);
  const volumePath = (root: string) => `\\\\.\\${root.replace(/\\$/, '')}`;
  function withDevice<T>(path: string, write: boolean, work: (h: number | bigint) => T): T {
    const h = CreateFileW(
      path,
      GENERIC_READ | (write ? GENERIC_WRITE : 0),
      FILE_SHARE_READ_WRITE,
      null,
      OPEN_EXISTING,
      0,
      0,
    ) as number | bigint;
    if (h === -1 || h === -1n || h === 0 || h === 0n)
      throw new PlatformError(`CreateFileW ${path} failed: ${base.lastErrorText()}`);
    try {
      return work(h);
    } finally {
      CloseHandle(h);
    }
  }
  /** An ioctl whose output grows until it fits. */
  function ioctlOut(h: number | bigint, code: number, what: string, input: Buffer | null = null): Buffer {
    for (let size = 4096; size <= 1 << 20; size *= 4) {
      const out = Buffer.alloc(size);
      const returned = [0];
      if (DeviceIoControl(h, code, input, input?.length ?? 0, out, size, returned, null))
        return out.subarray(0, returned[0] ?? 0);
      const err = GetLastError() as number;
      if (err !== ERROR_INSUFFICIENT_BUFFER && err !== ERROR_MORE_DATA)
        throw new PlatformError(`${what} failed: ${base.lastErrorText(err)}`);
    }
    throw new PlatformError(`${what} failed: output larger than 1 MiB`);
  }

  return {
    volumeExtents(root) {
      return withDevice(volumePath(root), false, (h) => {
        const out = ioctlOut(
          h,
          IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS,
          `IOCTL_VOLUME_GET_VOLUME_DISK_EXTENTS on ${root}`,
        );
        const n = out.readUInt32LE(EXTENTS.count);
        const at = (i: number) => EXTENTS.first + i * EXTENTS.size;
        return Array.from({ length: n }, (_, i) => ({
          diskNumber: out.readUInt32LE(at(i) + EXTENTS.diskNumber),
          start: Number(out.readBigInt64LE(at(i) + EXTENTS.start)),
          length: Number(out.readBigInt64LE(at(i) + EXTENTS.length)),
        }));
      });
    },
    diskLayout(diskNumber) {
      const path = `\\\\.\\PhysicalDrive${diskNumber}`;
      return withDevice(path, false, (h) => {
        const out = ioctlOut(h, IOCTL_DISK_GET_DRIVE_LAYOUT_EX, `IOCTL_DISK_GET_DRIVE_LAYOUT_EX on ${path}`);
        const style = PARTITION_STYLE[out.readUInt32LE(LAYOUT.style)] ?? 'raw';
        const partitions: PartitionEntry[] = [];
        for (let i = 0; i < out.readUInt32LE(LAYOUT.count); i++) {
          const e = LAYOUT.entries + i * LAYOUT.entrySize;
          const p = {
            number: out.readUInt32LE(e + PARTITION.number),
            start: Number(out.readBigInt64LE(e + PARTITION.start)),
            length: Number(out.readBigInt64LE(e + PARTITION.length)),
          };
          if (p.length > 0) partitions.push(p);
        }
        let usableEnd: number;
        if (style === 'gpt')
          usableEnd = Number(out.readBigInt64LE(LAYOUT.gptUsableStart) + out.readBigInt64LE(LAYOUT.gptUsableLength));
        else {
          const len = Buffer.alloc(8);
          const returned = [0];
          if (!DeviceIoControl(h, IOCTL_DISK_GET_LENGTH_INFO, null, 0, len, 8, returned, null))
            throw new PlatformError(`IOCTL_DISK_GET_LENGTH_INFO on ${path} failed: ${base.lastErrorText()}`);
          usableEnd = Number(len.readBigInt64LE(0));
        }
        return { style, partitions, usableEnd };
      });
    },
    growPartition(diskNumber, partitionNumber, bytes) {
      const path = `\\\\.\\PhysicalDrive${diskNumber}`;
      withDevice(path, true, (h) => {
        const input = Buffer.alloc(GROW.size);
        input.writeUInt32LE(partitionNumber, GROW.number);
        input.writeBigInt64LE(BigInt(bytes), GROW.bytes);
        const returned = [0];
        if (!DeviceIoControl(h, IOCTL_DISK_GROW_PARTITION, input, input.length, null, 0, returned, null)) {
          throw new PlatformError(
            `IOCTL_DISK_GROW_PARTITION partition ${partitionNumber} of ${path} by ${bytes} bytes failed: ${base.lastErrorText()}`,
          );
        }
        // Lets the partition manager see the new size before the file system is extended; failure is harmless.
        DeviceIoControl(h, IOCTL_DISK_UPDATE_PROPERTIES, null, 0, null, 0, returned, null);
      });
    },
    setDiskId(diskNumber, id) {
      const path = `\\\\.\\PhysicalDrive${diskNumber}`;
      return withDevice(path, true, (h) => {
        const layout = Buffer.from(
          ioctlOut(h, IOCTL_DISK_GET_DRIVE_LAYOUT_EX, `IOCTL_DISK_GET_DRIVE_LAYOUT_EX on ${path}`),
        );
        const style = PARTITION_STYLE[layout.readUInt32LE(LAYOUT.style)];
        if (style === 'mbr') layout.writeUInt32LE(id.mbr >>> 0, LAYOUT.diskId);
        else if (style === 'gpt') Buffer.from(id.gpt).copy(layout, LAYOUT.diskId, 0, 16);
        else throw new PlatformError(`${path} is neither MBR nor GPT: no disk id to set`);
        const returned = [0];
        if (!DeviceIoControl(h, IOCTL_DISK_SET_DRIVE_LAYOUT_EX, layout, layout.length, null, 0, returned, null)) {
          throw new PlatformError(`IOCTL_DISK_SET_DRIVE_LAYOUT_EX on ${path} failed: ${base.lastErrorText()}`);
        }
        if (!DeviceIoControl(h, IOCTL_DISK_UPDATE_PROPERTIES, null, 0, null, 0, returned, null)) {
          throw new PlatformError(`IOCTL_DISK_UPDATE_PROPERTIES on ${path} failed: ${base.lastErrorText()}`);
        }
        return style;
      });
    },
    extendFileSystem(root, totalSectors) {
      withDevice(volumePath(root), true, (h) => {
        const input = Buffer.alloc(8);
        input.writeBigInt64LE(BigInt(totalSectors), 0);
        const returned = [0];
        if (!DeviceIoControl(h, FSCTL_EXTEND_VOLUME, input, 8, null, 0, returned, null)) {
          throw new PlatformError(
            `FSCTL_EXTEND_VOLUME on ${root} to ${totalSectors} sectors failed: ${base.lastErrorText()}`,
          );
        }
      });
    },
    bytesPerSector(root) {
      const spc = [0];
      const bps = [0];
      const free = [0];
      const total = [0];
      if (!GetDiskFreeSpaceW(root, spc, bps, free, total))
        throw new PlatformError(`GetDiskFreeSpaceW ${root} failed: ${base.lastErrorText()}`);
      return bps[0] ?? 512;
    },
    ntDevice(root) {
      const buf = Buffer.alloc(2 * 1024);
      const n = QueryDosDeviceW(root.replace(/\\$/, ''), buf, 1024) as number;
      if (n === 0) return undefined;
      return (
        buf
          .subarray(0, n * 2)
          .toString('utf16le')
          .split('\0')[0] || undefined
      );
    },
  };
}
