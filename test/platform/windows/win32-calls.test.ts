// The bindings' calls as the Windows SDK declares them, on the host: each DLL is a JavaScript fake reached through
// real koffi calls (test/helpers/fake-dll.ts), declared here with the SDK header's own prototype and offsets.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { bindDhcpcsvc } from '../../../src/platform/windows/win32/dhcpcsvc';
import { bindIphlpapi } from '../../../src/platform/windows/win32/iphlpapi';
import type { Kernel32 } from '../../../src/platform/windows/win32/kernel32';
import { bindNetapi32 } from '../../../src/platform/windows/win32/netapi32';
import { bindUserenv } from '../../../src/platform/windows/win32/userenv';
import type { Koffi } from '../../../src/util/koffi-addon';
import { fakeDlls } from '../../helpers/fake-dll';
import { testKoffi } from '../../helpers/koffi';
import { need } from '../../helpers/requirements';
import { FakeWindows } from './fake-win32';

const kernel32 = { lastErrorText: (code?: number) => `error ${code ?? 0}` } as unknown as Kernel32;

function hostKoffi(t: TestContext): Koffi | undefined {
  const koffi = testKoffi();
  return need(t, koffi !== undefined, 'no koffi addon for this host (KILN_KOFFI_ADDON)') ? koffi : undefined;
}

/** Bytes at a raw address a fake was given. */
function memory(koffi: Koffi, address: unknown, length: number): Buffer {
  return Buffer.from(koffi.view(address, length));
}

/** A NUL-terminated UTF-16 string in koffi memory (kept alive by the caller); its address. */
function wide(koffi: Koffi, text: string, keep: unknown[]): bigint {
  const bytes = Buffer.from(`${text}\0`, 'utf16le');
  const mem = koffi.alloc('uint8_t', bytes.length);
  keep.push(mem);
  bytes.copy(memory(koffi, mem, bytes.length));
  return BigInt(koffi.address(mem));
}

test('DhcpRequestParams gets SendParams and RecdParams by value, as dhcpcsdk.h declares them, and its memory is freed', (t) => {
  const koffi = hostKoffi(t);
  if (!koffi) return;
  // dhcpcsdk.h: DHCPCAPI_PARAMS_ARRAY { ULONG nParams; LPDHCPCAPI_PARAMS Params } by value; DHCPCAPI_PARAMS:
  // OptionId at 4, Data at 16, nBytesData at 24.
  const PARAMS_ARRAY = koffi.struct({ nParams: 'uint32_t', Params: 'void *' });
  const seen: Array<{ flags: number; adapter: string; send: number; recd: number; option: number }> = [];
  const dlls = fakeDlls(koffi, {
    'dhcpcsvc.dll': {
      DhcpCApiInitialize: { result: 'uint32_t', params: ['void *'], impl: () => 0 },
      DhcpRequestParams: {
        result: 'uint32_t',
        params: ['uint32_t', 'void *', 'str16', 'void *', PARAMS_ARRAY, PARAMS_ARRAY, 'void *', 'void *', 'void *'],
        impl: ((
          flags: number,
          _reserved: unknown,
          adapter: string,
          _classId: unknown,
          send: { nParams: number },
          recd: { nParams: number; Params: unknown },
          buffer: unknown,
          size: unknown,
        ) => {
          const option = recd.nParams === 1 && recd.Params ? memory(koffi, recd.Params, 32).readUInt32LE(4) : -1;
          seen.push({ flags, adapter, send: send.nParams, recd: recd.nParams, option });
          if (recd.nParams !== 1 || option !== 26 || memory(koffi, size, 4).readUInt32LE(0) < 2) return 87;
          const out = memory(koffi, buffer, 2);
          out.writeUInt16BE(1450, 0);
          const param = memory(koffi, recd.Params, 32);
          param.writeBigUInt64LE(BigInt(koffi.address(buffer)), 16);
          param.writeUInt32LE(2, 24);
          return 0;
        }) as never,
      },
    },
  });
  const dhcp = bindDhcpcsvc(dlls.koffi, kernel32);
  assert.deepEqual([...(dhcp.requestOption('{AB12}', 26) ?? [])], [0x05, 0xaa]);
  assert.deepEqual(seen, [{ flags: 2, adapter: '{AB12}', send: 0, recd: 1, option: 26 }]);
  assert.equal(dlls.liveAllocations(), 0, 'the DHCPCAPI_PARAMS and the output buffer are freed');
});

test("a password expires as cloudbase-init's change_password_next_logon: NetUserSetInfo level 4 with usri4_password_expired", (t) => {
  const koffi = hostKoffi(t);
  if (!koffi) return;
  // lmaccess.h USER_INFO_4 on 64-bit Windows: usri4_name at 0, usri4_flags at 40, usri4_user_sid at 152,
  // usri4_password_expired at 184, 192 bytes.
  const keep: unknown[] = [];
  const sid = koffi.alloc('uint8_t', 16);
  keep.push(sid);
  const info = koffi.alloc('uint8_t', 192);
  keep.push(info);
  const infoBytes = memory(koffi, info, 192);
  infoBytes.fill(0);
  infoBytes.writeBigUInt64LE(wide(koffi, 'cloud', keep), 0);
  infoBytes.writeUInt32LE(0x1 | 0x200 | 0x10000, 40);
  infoBytes.writeBigUInt64LE(BigInt(koffi.address(sid)), 152);
  const levels: string[] = [];
  const written: Array<{ flags: number; expired: number; sidKept: boolean }> = [];
  const freed: bigint[] = [];
  const dlls = fakeDlls(koffi, {
    'netapi32.dll': {
      NetUserGetInfo: {
        result: 'uint32_t',
        params: ['str16', 'str16', 'uint32_t', 'void *'],
        impl: ((_server: string | null, user: string, level: number, bufptr: unknown) => {
          levels.push(`get ${level} ${user}`);
          memory(koffi, bufptr, 8).writeBigUInt64LE(BigInt(koffi.address(info)), 0);
          return 0;
        }) as never,
      },
      NetUserSetInfo: {
        result: 'uint32_t',
        params: ['str16', 'str16', 'uint32_t', 'void *', 'void *'],
        impl: ((_server: string | null, user: string, level: number, buf: unknown) => {
          levels.push(`set ${level} ${user}`);
          const b = memory(koffi, buf, 192);
          written.push({
            flags: b.readUInt32LE(level === 1008 ? 0 : 40),
            expired: level === 4 ? b.readUInt32LE(184) : 0,
            sidKept: level === 4 && b.readBigUInt64LE(152) === BigInt(koffi.address(sid)),
          });
          return 0;
        }) as never,
      },
      NetApiBufferFree: {
        result: 'uint32_t',
        params: ['void *'],
        impl: ((buf: unknown) => {
          levels.push('free');
          freed.push(BigInt(koffi.address(buf)));
          return 0;
        }) as never,
      },
    },
  });
  const platform = new FakeWindows().platform();
  Object.assign(platform.win32(), { netapi32: bindNetapi32(dlls.koffi, kernel32) });
  platform.expireUserPassword('cloud');
  assert.deepEqual(levels, ['get 4 cloud', 'set 4 cloud', 'free']);
  assert.deepEqual(
    written,
    [{ flags: 0x1 | 0x200, expired: 1, sidKept: true }],
    'UF_DONT_EXPIRE_PASSWD cleared, usri4_password_expired = 1, the rest written back',
  );
  assert.deepEqual(freed, [BigInt(koffi.address(info))]);
});

test('CreateProfile answering HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS) is no failure: the profile folder is read from ProfileList', (t) => {
  const koffi = hostKoffi(t);
  if (!koffi) return;
  const win = new FakeWindows();
  win.users.set('cloud', { password: 'x', comment: '', flags: 0x201 });
  const sid = win.bindings().advapi32.accountSid('cloud') ?? '';
  const profileKey = `SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\ProfileList\\${sid}`;
  let answer = 0x800700b7;
  const dlls = fakeDlls(koffi, {
    'userenv.dll': {
      CreateProfile: {
        result: 'int32_t',
        params: ['str16', 'str16', 'void *', 'uint32_t'],
        impl: ((pszUserSid: string, user: string, path: unknown, chars: number) => {
          if (pszUserSid !== sid || user !== 'cloud' || chars < 20) return 0x80070057;
          if (answer === 0) Buffer.from('C:\\Users\\cloud\0', 'utf16le').copy(memory(koffi, path, chars * 2));
          // Made by another process between kiln's look and its call (or known to Windows, registered now).
          else
            win.bindings().advapi32.regSetValue('HKLM', profileKey, 'ProfileImagePath', {
              type: 'REG_EXPAND_SZ',
              data: 'C:\\Users\\cloud.WIN',
            });
          return answer;
        }) as never,
      },
    },
  });
  const platform = win.platform();
  Object.assign(platform.win32(), { userenv: bindUserenv(dlls.koffi, kernel32) });
  assert.equal(platform.userProfilePath('cloud', true), 'C:\\Users\\cloud.WIN');
  win.bindings().advapi32.regDeleteTree('HKLM', profileKey);
  answer = 0;
  assert.equal(
    platform.userProfilePath('cloud', true),
    'C:\\Users\\cloud',
    'a new profile: the folder CreateProfile wrote',
  );
});

test('GetAdaptersAddresses: the koffi buffer is freed, also when there is no adapter', (t) => {
  const koffi = hostKoffi(t);
  if (!koffi) return;
  const dlls = fakeDlls(koffi, {
    'iphlpapi.dll': {
      GetAdaptersAddresses: {
        result: 'uint32_t',
        params: ['uint32_t', 'uint32_t', 'void *', 'void *', 'void *'],
        impl: () => 232,
      },
    },
  });
  assert.deepEqual(bindIphlpapi(dlls.koffi, kernel32).adapters(), []);
  assert.equal(dlls.liveAllocations(), 0);
});
