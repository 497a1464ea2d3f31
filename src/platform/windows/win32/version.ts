// version.dll bindings: a file's version from its VS_FIXEDFILEINFO resource (cloudbase-init's get_file_version).
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { win32Structs } from './win32-structs';

export interface VersionApi {
  /** The four parts of the file version (major, minor, build, private) of the file at PATH. */
  fileVersion(path: string): [number, number, number, number];
}

const VS_FFI_SIGNATURE = 0xfeef04bd;

export function bindVersion(koffi: Koffi, kernel32: Kernel32): VersionApi {
  const { VS_FIXEDFILEINFO } = win32Structs(koffi);
  const FILE_VERSION_MS = koffi.offsetof(VS_FIXEDFILEINFO, 'dwFileVersionMS');
  const FILE_VERSION_LS = koffi.offsetof(VS_FIXEDFILEINFO, 'dwFileVersionLS');
  let api:
    | {
        size: (path: string, handle: number[]) => number;
        info: (path: string, handle: number, size: number, buf: Buffer) => number;
        query: (buf: Buffer, sub: string, out: unknown[], len: number[]) => number;
      }
    | undefined;
  const bind = () => {
    if (api) return api;
    const lib = koffi.load('version.dll');
    api = {
      size: lib.func('__stdcall', 'GetFileVersionInfoSizeW', 'uint32_t', [
        'str16',
        koffi.out(koffi.pointer('uint32_t')),
      ]),
      info: lib.func('__stdcall', 'GetFileVersionInfoW', 'int', ['str16', 'uint32_t', 'uint32_t', 'void *']),
      query: lib.func('__stdcall', 'VerQueryValueW', 'int', [
        'void *',
        'str16',
        koffi.out(koffi.pointer('void *')),
        koffi.out(koffi.pointer('uint32_t')),
      ]),
    };
    return api;
  };
  return {
    fileVersion(path) {
      const f = bind();
      const size = f.size(path, [0]);
      if (!size) throw new PlatformError(`GetFileVersionInfoSizeW '${path}' failed: ${kernel32.lastErrorText()}`);
      const buf = Buffer.alloc(size);
      if (!f.info(path, 0, size, buf))
        throw new PlatformError(`GetFileVersionInfoW '${path}' failed: ${kernel32.lastErrorText()}`);
      const out: unknown[] = [null];
      const len = [0];
      if (!f.query(buf, '\\', out, len) || !out[0] || len[0] === undefined || len[0] < FILE_VERSION_LS + 4)
        throw new PlatformError(`'${path}' has no fixed file version information`);
      const fixed = Buffer.from(koffi.decode(out[0], koffi.array('uint8_t', FILE_VERSION_LS + 4)) as number[]);
      if (fixed.readUInt32LE(0) !== VS_FFI_SIGNATURE)
        throw new PlatformError(`'${path}': its version information is malformed`);
      const ms = fixed.readUInt32LE(FILE_VERSION_MS);
      const ls = fixed.readUInt32LE(FILE_VERSION_LS);
      return [ms >>> 16, ms & 0xffff, ls >>> 16, ls & 0xffff];
    },
  };
}
