// netapi32.dll bindings: local users (NetUserAdd/GetInfo/SetInfo/Enum/Del) and local groups and their members.
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { win32Structs } from './win32-structs';

const NERR_SUCCESS = 0;
export const NERR = {
  GroupNotFound: 2220,
  UserNotFound: 2221,
  GroupExists: 2223,
  UserExists: 2224,
  PasswordTooShort: 2245,
  MemberInAlias: 1378,
  AliasExists: 1379,
  NoSuchAlias: 1376,
} as const;

/** netmsg.dll texts FormatMessage from the system table does not know. */
const NERR_TEXT: Record<number, string> = {
  2220: 'The group name could not be found',
  2221: 'The user name could not be found',
  2223: 'The group already exists',
  2224: 'The account already exists',
  2245: 'The password does not meet the password policy requirements (length, complexity or history)',
  1376: 'The specified local group does not exist',
  1378: 'The specified account name is already a member of the group',
  1379: 'The specified local group already exists',
};

const USER_PRIV_USER = 1;
/** usri1_flags bits (lmaccess.h). */
export const UF = {
  SCRIPT: 0x1,
  ACCOUNTDISABLE: 0x2,
  NORMAL_ACCOUNT: 0x200,
  DONT_EXPIRE_PASSWD: 0x10000,
} as const;
const {
  SCRIPT: UF_SCRIPT,
  ACCOUNTDISABLE: UF_ACCOUNTDISABLE,
  NORMAL_ACCOUNT: UF_NORMAL_ACCOUNT,
  DONT_EXPIRE_PASSWD: UF_DONT_EXPIRE_PASSWD,
} = UF;
const MAX_PREFERRED_LENGTH = 0xffffffff;
const FILTER_NORMAL_ACCOUNT = 0x2;

export interface NetUserInfo {
  name: string;
  comment: string;
  disabled: boolean;
}

export interface Netapi32 {
  /** Undefined when the user does not exist. */
  userGetInfo(name: string): NetUserInfo | undefined;
  userAdd(opts: { name: string; password: string; comment?: string; passwordNeverExpires?: boolean }): void;
  userSetPassword(name: string, password: string): void;
  /** The account's usri1_flags (UF bits); throws when the user does not exist. */
  userFlags(name: string): number;
  /** Replaces the account's flags (NetUserSetInfo level 1008). */
  userSetFlags(name: string, flags: number): void;
  /**
   * Makes the user change the password at the next logon, as cloudbase-init's change_password_next_logon:
   * NetUserGetInfo level 4, usri4_password_expired = 1 and UF_DONT_EXPIRE_PASSWD cleared (it would outweigh the
   * expiry), NetUserSetInfo level 4. (UF_PASSWORD_EXPIRED in the level 1008 flags is computed, not settable.)
   */
  userExpirePassword(name: string): void;
  userEnable(name: string): void;
  userDelete(name: string): boolean;
  userEnum(): string[];
  /** Creates the local group when it is missing; false when it already existed. */
  localGroupAdd(name: string, comment?: string): boolean;
  /** Adds MEMBER (a user name, or DOMAIN\\user) to the local group; false when it already was one. */
  localGroupAddMember(group: string, member: string): boolean;
  localGroupMembers(group: string): string[];
}

export function netErrorText(code: number, kernel32: Kernel32): string {
  const known = NERR_TEXT[code];
  return known ? `${known} (error ${code})` : kernel32.lastErrorText(code);
}

export function bindNetapi32(koffi: Koffi, kernel32: Kernel32): Netapi32 {
  const lib = koffi.load('netapi32.dll');
  const {
    USER_INFO_0,
    USER_INFO_1,
    USER_INFO_4,
    USER_INFO_1003,
    USER_INFO_1008,
    LOCALGROUP_INFO_1,
    LOCALGROUP_MEMBERS_INFO_3,
  } = win32Structs(koffi);
  const PTR_OUT = koffi.out(koffi.pointer('void *'));
  const U32_OUT = koffi.out(koffi.pointer('uint32_t'));

  const NetUserAdd = lib.func('__stdcall', 'NetUserAdd', 'uint32_t', [
    'str16',
    'uint32_t',
    koffi.pointer(USER_INFO_1),
    U32_OUT,
  ]);
  const NetUserGetInfo = lib.func('__stdcall', 'NetUserGetInfo', 'uint32_t', ['str16', 'str16', 'uint32_t', PTR_OUT]);
  const NetUserSetInfoPassword = lib.func('__stdcall', 'NetUserSetInfo', 'uint32_t', [
    'str16',
    'str16',
    'uint32_t',
    koffi.pointer(USER_INFO_1003),
    U32_OUT,
  ]);
  const NetUserSetInfo4 = lib.func('__stdcall', 'NetUserSetInfo', 'uint32_t', [
    'str16',
    'str16',
    'uint32_t',
    koffi.pointer(USER_INFO_4),
    U32_OUT,
  ]);
  const NetUserSetInfoFlags = lib.func('__stdcall', 'NetUserSetInfo', 'uint32_t', [
    'str16',
    'str16',
    'uint32_t',
    koffi.pointer(USER_INFO_1008),
    U32_OUT,
  ]);
  const NetUserDel = lib.func('__stdcall', 'NetUserDel', 'uint32_t', ['str16', 'str16']);
  const NetUserEnum = lib.func('__stdcall', 'NetUserEnum', 'uint32_t', [
    'str16',
    'uint32_t',
    'uint32_t',
    PTR_OUT,
    'uint32_t',
    U32_OUT,
    U32_OUT,
    koffi.inout(koffi.pointer('uint32_t')),
  ]);
  const NetLocalGroupAdd = lib.func('__stdcall', 'NetLocalGroupAdd', 'uint32_t', [
    'str16',
    'uint32_t',
    koffi.pointer(LOCALGROUP_INFO_1),
    U32_OUT,
  ]);
  const NetLocalGroupAddMembers = lib.func('__stdcall', 'NetLocalGroupAddMembers', 'uint32_t', [
    'str16',
    'str16',
    'uint32_t',
    koffi.pointer(LOCALGROUP_MEMBERS_INFO_3),
    'uint32_t',
  ]);
  const NetLocalGroupGetMembers = lib.func('__stdcall', 'NetLocalGroupGetMembers', 'uint32_t', [
    'str16',
    'str16',
    'uint32_t',
    PTR_OUT,
    'uint32_t',
    U32_OUT,
    U32_OUT,
    koffi.inout(koffi.pointer('uintptr_t')),
  ]);
  const NetApiBufferFree = lib.func('__stdcall', 'NetApiBufferFree', 'uint32_t', ['void *']);

  const fail = (what: string, code: number) => new PlatformError(`${what} failed: ${netErrorText(code, kernel32)}`);

  function userFlags(name: string): number {
    const out: [unknown] = [null];
    const rc = NetUserGetInfo(null, name, 1, out) as number;
    if (rc !== NERR_SUCCESS) throw fail(`NetUserGetInfo '${name}'`, rc);
    try {
      return (koffi.decode(out[0], USER_INFO_1) as { usri1_flags: number }).usri1_flags;
    } finally {
      NetApiBufferFree(out[0]);
    }
  }
  function userSetFlags(name: string, flags: number): void {
    const set = NetUserSetInfoFlags(null, name, 1008, { usri1008_flags: flags }, [0]) as number;
    if (set !== NERR_SUCCESS) throw fail(`NetUserSetInfo(1008) '${name}'`, set);
  }

  function userExpirePassword(name: string): void {
    const out: [unknown] = [null];
    const rc = NetUserGetInfo(null, name, 4, out) as number;
    if (rc !== NERR_SUCCESS) throw fail(`NetUserGetInfo(4) '${name}'`, rc);
    try {
      // Decoded and written back whole: the pointers in it (SID, logon hours) point into OUT, freed only after.
      const info = koffi.decode(out[0], USER_INFO_4) as { usri4_flags: number; usri4_password_expired: number };
      info.usri4_flags &= ~UF_DONT_EXPIRE_PASSWD;
      info.usri4_password_expired = 1;
      const set = NetUserSetInfo4(null, name, 4, info, [0]) as number;
      if (set !== NERR_SUCCESS) throw fail(`NetUserSetInfo(4) '${name}'`, set);
    } finally {
      NetApiBufferFree(out[0]);
    }
  }

  return {
    userExpirePassword,
    userGetInfo(name) {
      const out: [unknown] = [null];
      const rc = NetUserGetInfo(null, name, 1, out) as number;
      if (rc === NERR.UserNotFound) return undefined;
      if (rc !== NERR_SUCCESS) throw fail(`NetUserGetInfo '${name}'`, rc);
      try {
        const info = koffi.decode(out[0], USER_INFO_1) as {
          usri1_name: string | null;
          usri1_comment: string | null;
          usri1_flags: number;
        };
        return {
          name: info.usri1_name ?? name,
          comment: info.usri1_comment ?? '',
          disabled: (info.usri1_flags & UF_ACCOUNTDISABLE) !== 0,
        };
      } finally {
        NetApiBufferFree(out[0]);
      }
    },
    userAdd({ name, password, comment, passwordNeverExpires }) {
      const info = {
        usri1_name: name,
        usri1_password: password,
        usri1_password_age: 0,
        usri1_priv: USER_PRIV_USER,
        usri1_home_dir: null,
        usri1_comment: comment ?? null,
        usri1_flags: UF_SCRIPT | UF_NORMAL_ACCOUNT | (passwordNeverExpires ? UF_DONT_EXPIRE_PASSWD : 0),
        usri1_script_path: null,
      };
      const rc = NetUserAdd(null, 1, info, [0]) as number;
      if (rc !== NERR_SUCCESS) throw fail(`NetUserAdd '${name}'`, rc);
    },
    userSetPassword(name, password) {
      const rc = NetUserSetInfoPassword(null, name, 1003, { usri1003_password: password }, [0]) as number;
      if (rc !== NERR_SUCCESS) throw fail(`NetUserSetInfo(1003) '${name}'`, rc);
    },
    userFlags,
    userSetFlags,
    userEnable(name) {
      userSetFlags(name, userFlags(name) & ~UF_ACCOUNTDISABLE);
    },
    userDelete(name) {
      const rc = NetUserDel(null, name) as number;
      if (rc === NERR.UserNotFound) return false;
      if (rc !== NERR_SUCCESS) throw fail(`NetUserDel '${name}'`, rc);
      return true;
    },
    userEnum() {
      const out: [unknown] = [null];
      const read = [0];
      const total = [0];
      const rc = NetUserEnum(null, 0, FILTER_NORMAL_ACCOUNT, out, MAX_PREFERRED_LENGTH, read, total, [0]) as number;
      if (rc !== NERR_SUCCESS) throw fail('NetUserEnum', rc);
      try {
        const n = read[0] as number;
        if (n === 0 || !out[0]) return [];
        return (koffi.decode(out[0], koffi.array(USER_INFO_0, n)) as Array<{ usri0_name: string }>).map(
          (u) => u.usri0_name,
        );
      } finally {
        if (out[0]) NetApiBufferFree(out[0]);
      }
    },
    localGroupAdd(name, comment) {
      const rc = NetLocalGroupAdd(null, 1, { lgrpi1_name: name, lgrpi1_comment: comment ?? null }, [0]) as number;
      if (rc === NERR.GroupExists || rc === NERR.AliasExists) return false;
      if (rc !== NERR_SUCCESS) throw fail(`NetLocalGroupAdd '${name}'`, rc);
      return true;
    },
    localGroupAddMember(group, member) {
      const rc = NetLocalGroupAddMembers(null, group, 3, { lgrmi3_domainandname: member }, 1) as number;
      if (rc === NERR.MemberInAlias) return false;
      if (rc !== NERR_SUCCESS) throw fail(`NetLocalGroupAddMembers '${member}' to '${group}'`, rc);
      return true;
    },
    localGroupMembers(group) {
      const out: [unknown] = [null];
      const read = [0];
      const total = [0];
      const rc = NetLocalGroupGetMembers(null, group, 3, out, MAX_PREFERRED_LENGTH, read, total, [0]) as number;
      if (rc !== NERR_SUCCESS) throw fail(`NetLocalGroupGetMembers '${group}'`, rc);
      try {
        const n = read[0] as number;
        if (n === 0 || !out[0]) return [];
        return (
          koffi.decode(out[0], koffi.array(LOCALGROUP_MEMBERS_INFO_3, n)) as Array<{ lgrmi3_domainandname: string }>
        ).map((m) => m.lgrmi3_domainandname);
      } finally {
        if (out[0]) NetApiBufferFree(out[0]);
      }
    },
  };
}
