// A BlockReader over a Windows raw device (\\.\PhysicalDriveN, \\.\D:) through kernel32, with aligned reads.
import type { Kernel32Disk } from '../platform/windows/win32/kernel32';
import { checkRange, type BlockReader } from './block-reader';
import { FilesystemError } from './filesystem-error';

/** Raw device reads must start and end on sector boundaries; 4096 covers 512-, 2048- and 4096-byte sectors. */
const ALIGN = 4096;

export class WindowsDeviceReader implements BlockReader {
  private constructor(
    private readonly k32: Kernel32Disk,
    readonly name: string,
    readonly size: number,
  ) {}

  /** Opens PATH to learn its size; undefined (with the reason) when it cannot be opened or sized. */
  static open(k32: Kernel32Disk, path: string): WindowsDeviceReader | string {
    const opened = k32.openDevice(path);
    if ('error' in opened) return k32.lastErrorText(opened.error);
    try {
      const size = k32.deviceLength(opened.handle);
      if (size === undefined || size <= 0) return 'the device reports no length (IOCTL_DISK_GET_LENGTH_INFO failed)';
      return new WindowsDeviceReader(k32, path, size);
    } finally {
      k32.closeHandle(opened.handle);
    }
  }

  // The koffi calls are synchronous; a config drive is read in a few small calls at boot, so this is fine.
  async read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this, offset, length);
    if (length === 0) return new Uint8Array(0);
    const start = Math.floor(offset / ALIGN) * ALIGN;
    const end = Math.min(Math.ceil((offset + length) / ALIGN) * ALIGN, Math.ceil(this.size / 512) * 512);
    const opened = this.k32.openDevice(this.name);
    if ('error' in opened) throw new FilesystemError(this.name, `cannot open: ${this.k32.lastErrorText(opened.error)}`);
    try {
      const buf = Buffer.alloc(end - start);
      let done = 0;
      while (done < buf.length) {
        const n = this.k32.readAt(opened.handle, start + done, buf.subarray(done));
        if (n === 0) break;
        done += n;
      }
      if (done < offset - start + length)
        throw new FilesystemError(
          this.name,
          `short read at offset ${offset}: got ${done - (offset - start)} of ${length} bytes`,
        );
      return buf.subarray(offset - start, offset - start + length);
    } finally {
      this.k32.closeHandle(opened.handle);
    }
  }
}
