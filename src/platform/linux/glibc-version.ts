// The version of the glibc this process runs on, as Python's platform.libc_ver() reports it, found without
// process.report (whose full report costs 5-15 ms): the libc.so.6 mapped into the process says it itself, in
// the banner its read-only data holds. Only that section is read (about 150 KiB of a 2 MiB library).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

let cached: string | null | undefined;

/** The version in a glibc image's banner ("... release version 2.36."), undefined when there is none. */
export function glibcVersionInImage(image: Buffer): string | undefined {
  const at = image.indexOf('release version ');
  if (at < 0) return undefined;
  return /^release version (\d+\.\d+)/.exec(image.subarray(at, at + 40).toString('latin1'))?.[1];
}

function readAt(fd: number, position: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return out.subarray(0, done);
}

/**
 * The .rodata section of the little-endian 64-bit ELF file PATH, undefined when the file is not one or has no
 * such section. Offsets as the ELF-64 header and section headers lay them out.
 */
export function elfReadOnlyData(path: string): Buffer | undefined {
  const fd = openSync(path, 'r');
  try {
    const header = readAt(fd, 0, 64);
    // Magic, ELFCLASS64, ELFDATA2LSB.
    if (header.length < 64 || header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1)
      return undefined;
    const sectionsAt = Number(header.readBigUInt64LE(0x28));
    const entrySize = header.readUInt16LE(0x3a);
    const count = header.readUInt16LE(0x3c);
    const namesIndex = header.readUInt16LE(0x3e);
    if (entrySize < 64 || count === 0 || namesIndex >= count) return undefined;
    const sections = readAt(fd, sectionsAt, entrySize * count);
    if (sections.length < entrySize * count) return undefined;
    const section = (i: number) => ({
      name: sections.readUInt32LE(i * entrySize),
      offset: Number(sections.readBigUInt64LE(i * entrySize + 0x18)),
      size: Number(sections.readBigUInt64LE(i * entrySize + 0x20)),
    });
    const names = section(namesIndex);
    const nameTable = readAt(fd, names.offset, names.size);
    for (let i = 0; i < count; i++) {
      const s = section(i);
      const end = nameTable.indexOf(0, s.name);
      if (end >= 0 && nameTable.toString('latin1', s.name, end) === '.rodata') return readAt(fd, s.offset, s.size);
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The running glibc's version ('2.36'), undefined on other C libraries (musl) or when it cannot be read. */
export function runningGlibcVersion(): string | undefined {
  if (cached !== undefined) return cached ?? undefined;
  cached = null;
  try {
    const maps = readFileSync('/proc/self/maps', 'utf8');
    const path = /\s(\/\S*\/libc(?:\.so\.6|-\d+\.\d+\.so))$/m.exec(maps)?.[1];
    if (path) cached = glibcVersionInImage(elfReadOnlyData(path) ?? readFileSync(path)) ?? null;
  } catch {
    cached = null; // no procfs or no readable libc image (musl, a sandbox): the version is unknown
  }
  return cached ?? undefined;
}
