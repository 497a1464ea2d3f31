// userenv.dll bindings: user profiles (CreateProfile, GetProfilesDirectoryW).
import type { Koffi } from '../koffi-loader';
import { PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';

export interface Userenv {
  /** The folder holding the profiles, e.g. C:\Users. */
  profilesDirectory(): string;
  /** Creates the profile of the account with SID and returns its folder; an existing profile's folder is returned as is. */
  createProfile(sid: string, user: string): string;
}

/** HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS). */
const HR_ALREADY_EXISTS = 0x800700b7;

export function bindUserenv(koffi: Koffi, kernel32: Kernel32): Userenv {
  const lib = koffi.load('userenv.dll');
  const GetProfilesDirectoryW = lib.func('__stdcall', 'GetProfilesDirectoryW', 'int', ['void *', koffi.inout(koffi.pointer('uint32_t'))]);
  let CreateProfile: ((sid: string, user: string, path: Buffer, size: number) => unknown) | undefined;
  return {
    profilesDirectory() {
      const buf = Buffer.alloc(1040);
      const size = [520];
      if (!GetProfilesDirectoryW(buf, size)) throw new PlatformError(`GetProfilesDirectoryW failed: ${kernel32.lastErrorText()}`);
      return buf.toString('utf16le').replace(/\0.*$/s, '');
    },
    createProfile(sid, user) {
      // Bound on first use: CreateProfile is missing from some userenv builds (wine's).
      try {
        CreateProfile ??= lib.func('__stdcall', 'CreateProfile', 'uint32_t', ['str16', 'str16', 'void *', 'uint32_t']);
      } catch (err) {
        throw new PlatformError(`userenv.dll has no CreateProfile: ${(err as Error).message}`);
      }
      const buf = Buffer.alloc(1040);
      const hr = (CreateProfile(sid, user, buf, 520) as number) >>> 0;
      if (hr !== 0 && hr !== HR_ALREADY_EXISTS) throw new PlatformError(`CreateProfile for '${user}' failed: HRESULT 0x${hr.toString(16)}`);
      return buf.toString('utf16le').replace(/\0.*$/s, '');
    },
  };
}
