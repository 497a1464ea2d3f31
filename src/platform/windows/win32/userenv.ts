// userenv.dll bindings: user profiles (CreateProfile, LoadUserProfileW, GetProfilesDirectoryW).
import type { Koffi } from '../../../util/koffi-addon';
import { describeError, PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { win32Structs } from './win32-structs';

export interface Userenv {
  /** The folder holding the profiles, e.g. C:\Users. */
  profilesDirectory(): string;
  /**
   * Creates the profile of the account with SID and returns its folder; undefined when the account already had
   * one (CreateProfile's HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS), which is no failure, but names no folder).
   */
  createProfile(sid: string, user: string): string | undefined;
  /** LoadUserProfileW with the logon TOKEN of USER (which creates the profile when missing), then UnloadUserProfile. */
  loadUserProfile(token: number | bigint, user: string): void;
}

/** HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS). */
const HR_ALREADY_EXISTS = 0x800700b7;
/** CreateProfile's buffer, in characters (MAX_PATH is 260; profiles may be longer). */
const MAX_PATH_CHARS = 520;

export function bindUserenv(koffi: Koffi, kernel32: Kernel32): Userenv {
  const lib = koffi.load('userenv.dll');
  const GetProfilesDirectoryW = lib.func('__stdcall', 'GetProfilesDirectoryW', 'int', [
    'void *',
    koffi.inout(koffi.pointer('uint32_t')),
  ]);
  const { PROFILEINFOW } = win32Structs(koffi);
  const LoadUserProfileW = lib.func('__stdcall', 'LoadUserProfileW', 'int', [
    'intptr_t',
    koffi.inout(koffi.pointer(PROFILEINFOW)),
  ]);
  const UnloadUserProfile = lib.func('__stdcall', 'UnloadUserProfile', 'int', ['intptr_t', 'intptr_t']);
  let CreateProfile: ((sid: string, user: string, path: Buffer, size: number) => unknown) | undefined;
  return {
    profilesDirectory() {
      const buf = Buffer.alloc(1040);
      const size = [520];
      if (!GetProfilesDirectoryW(buf, size))
        throw new PlatformError(`GetProfilesDirectoryW failed: ${kernel32.lastErrorText()}`);
      return buf.toString('utf16le').replace(/\0.*$/s, '');
    },
    loadUserProfile(token, user) {
      // PI_NOUI: no message box may come up in a service.
      const info = {
        dwSize: koffi.sizeof(PROFILEINFOW),
        dwFlags: 1,
        lpUserName: user,
        lpProfilePath: null,
        lpDefaultPath: null,
        lpServerName: null,
        lpPolicyPath: null,
        hProfile: 0,
      };
      if (!LoadUserProfileW(token, info))
        throw new PlatformError(`LoadUserProfileW for '${user}' failed: ${kernel32.lastErrorText()}`);
      if (info.hProfile) UnloadUserProfile(token, info.hProfile);
    },
    createProfile(sid, user) {
      // Bound on first use: CreateProfile is missing from some userenv builds (wine's).
      try {
        CreateProfile ??= lib.func('__stdcall', 'CreateProfile', 'uint32_t', ['str16', 'str16', 'void *', 'uint32_t']);
      } catch (err) {
        throw new PlatformError(`userenv.dll has no CreateProfile: ${describeError(err)}`);
      }
      const buf = Buffer.alloc(MAX_PATH_CHARS * 2);
      const hr = (CreateProfile(sid, user, buf, MAX_PATH_CHARS) as number) >>> 0;
      if (hr === HR_ALREADY_EXISTS) return undefined;
      if (hr !== 0) throw new PlatformError(`CreateProfile for '${user}' failed: HRESULT 0x${hr.toString(16)}`);
      return buf.toString('utf16le').replace(/\0.*$/s, '');
    },
  };
}
