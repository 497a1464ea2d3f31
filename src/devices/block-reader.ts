// Random-access byte reads from an image file, a block device or a slice of one (a partition).
import type { FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { FilesystemError } from './filesystem-error';
import { fsPromises } from '../util/on-demand-builtins';
import { describeError } from '../util/errors';

/** What every reader is given: bytes at an offset, nothing else; `read` throws when asked past the end. */
export interface BlockReader {
  /** A name for errors and reports: a device path, an image path, 'image.iso partition 2'. */
  readonly name: string;
  /** Size in bytes. */
  readonly size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** Largest single read a reader may ask for; a hostile size field must not make us allocate gigabytes. */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

export function checkRange(reader: { name: string; size: number }, offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0) {
    throw new FilesystemError(reader.name, `invalid read of ${length} bytes at offset ${offset}`);
  }
  if (length > MAX_READ_BYTES)
    throw new FilesystemError(reader.name, `refusing a single read of ${length} bytes (limit ${MAX_READ_BYTES})`);
  if (offset + length > reader.size) {
    throw new FilesystemError(
      reader.name,
      `read of ${length} bytes at offset ${offset} is past the end (size ${reader.size})`,
    );
  }
}

/** Bytes already in memory (tests, the fuzzer, images built by make-seed). */
export class BufferBlockReader implements BlockReader {
  readonly size: number;
  constructor(
    readonly name: string,
    private readonly bytes: Uint8Array,
  ) {
    this.size = bytes.length;
  }
  async read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this, offset, length);
    return this.bytes.subarray(offset, offset + length);
  }
}

/** A window [start, start+size) of another reader: a partition of a disk. */
export class SliceBlockReader implements BlockReader {
  constructor(
    readonly name: string,
    private readonly parent: BlockReader,
    private readonly start: number,
    readonly size: number,
  ) {
    if (start < 0 || size < 0 || start + size > parent.size) {
      throw new FilesystemError(
        parent.name,
        `${name} (offset ${start}, ${size} bytes) lies outside the device (size ${parent.size})`,
      );
    }
  }
  read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this, offset, length);
    return this.parent.read(this.start + offset, length);
  }
}

/**
 * A file or block device by path. Its descriptor is opened by the first read and kept while reads follow one
 * another (a filesystem probe asks for a few sectors in a row), then closed once no read is waiting: a found tree
 * may live as long as its caller likes without holding a descriptor, and a CD-ROM, whose every open checks the
 * medium (slow under emulation), is not opened once per sector.
 */
export class PathBlockReader implements BlockReader {
  /** The open descriptor, while reads are under way (and until the event loop has gone idle once after them). */
  private handle: Promise<FileHandle> | undefined;
  private reading = 0;

  private constructor(
    readonly name: string,
    readonly path: string,
    readonly size: number,
  ) {}

  /**
   * Checks PATH opens for reading and finds its size. A block device reports size 0 through stat; then
   * SIZEHINT (bytes, e.g. from /sys/class/block/NAME/size) is used, or Linux sysfs is asked.
   */
  static async open(path: string, opts: { sizeHint?: number; name?: string } = {}): Promise<PathBlockReader> {
    const handle = await openHandle(path);
    try {
      const st = await handle.stat();
      let size = st.isFile() ? st.size : (opts.sizeHint ?? 0);
      if (!st.isFile() && size === 0 && st.isBlockDevice()) size = await sysfsSize(path);
      return new PathBlockReader(opts.name ?? path, path, size);
    } finally {
      await handle.close();
    }
  }

  async read(offset: number, length: number): Promise<Uint8Array> {
    checkRange(this, offset, length);
    this.reading++;
    try {
      const handle = await this.descriptor();
      const buf = Buffer.alloc(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await handle.read(buf, done, length - done, offset + done);
        if (bytesRead === 0) throw new FilesystemError(this.name, `unexpected end of data at offset ${offset + done}`);
        done += bytesRead;
      }
      return buf;
    } finally {
      this.reading--;
      if (this.reading === 0) setImmediate(() => this.closeIfIdle());
    }
  }

  /** The open descriptor, opened now when there is none (a failed open is not kept: the next read tries again). */
  private descriptor(): Promise<FileHandle> {
    if (!this.handle) {
      const opening = openHandle(this.path);
      this.handle = opening;
      opening.catch(() => {
        // The read that asked reports the failure; forgetting it lets a later read open the path again.
        if (this.handle === opening) this.handle = undefined;
      });
    }
    return this.handle;
  }

  /** Closes the descriptor unless a read started since the last one ended. */
  private closeIfIdle(): void {
    const handle = this.handle;
    if (this.reading > 0 || !handle) return;
    this.handle = undefined;
    handle
      .then(
        (h) => h.close(),
        () => undefined,
      )
      .catch(() => {
        // A descriptor that fails to close was only ever read: nothing is lost.
      });
  }
}

async function openHandle(path: string): Promise<FileHandle> {
  try {
    return await fsPromises().open(path, 'r');
  } catch (err) {
    throw new FilesystemError(path, `cannot open for reading: ${describeError(err)}`, { cause: err });
  }
}

async function sysfsSize(devPath: string): Promise<number> {
  try {
    const text = await fsPromises().readFile(`/sys/class/block/${basename(devPath)}/size`, 'utf8');
    return Number.parseInt(text.trim(), 10) * 512;
  } catch {
    return 0; // no sysfs size for it (not a kernel block device, no /sys): size unknown
  }
}
