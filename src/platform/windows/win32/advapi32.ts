// advapi32.dll bindings: the registry, token privileges, services, LogonUserW and InitiateSystemShutdownExW.
import type { Koffi } from '../../../util/koffi-addon';
import { describeError, PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { win32Structs } from './win32-structs';
import { REG_TYPES, decodeRegValue, encodeRegValue, type RegRoot, type RegValue } from './registry-value';

export type { RegRoot, RegValue } from './registry-value';

/** HKEY handles of the predefined keys, sign-extended as Windows defines them. */
const ROOTS: Record<RegRoot, number> = { HKCU: -2147483647, HKLM: -2147483646, HKU: -2147483645 };

const KEY_READ = 0x20019;
const KEY_ALL_ACCESS = 0xf003f;
const ERROR_SUCCESS = 0;
const ERROR_FILE_NOT_FOUND = 2;
const ERROR_MORE_DATA = 234;
const ERROR_NO_MORE_ITEMS = 259;
const ERROR_NOT_ALL_ASSIGNED = 1300;
const ERROR_SERVICE_DOES_NOT_EXIST = 1060;
const TOKEN_ADJUST_PRIVILEGES = 0x20;
const TOKEN_QUERY = 0x8;
const SE_PRIVILEGE_ENABLED = 0x2;
const SC_MANAGER_ALL_ACCESS = 0xf003f;
const SERVICE_ALL_ACCESS = 0xf01ff;
const SERVICE_WIN32_OWN_PROCESS = 0x10;
const SERVICE_ERROR_NORMAL = 1;
const SERVICE_CONTROL_STOP = 1;
const SERVICE_CONFIG_DESCRIPTION = 1;
/** ChangeServiceConfigW's "leave this as it is". */
const SERVICE_NO_CHANGE = 0xffffffff;
/** SHTDN_REASON_MAJOR_APPLICATION | SHTDN_REASON_MINOR_INSTALLATION | SHTDN_REASON_FLAG_PLANNED. */
const SHUTDOWN_REASON_PLANNED_INSTALL = 0x80040002;

export const ServiceStartType = { boot: 0, system: 1, auto: 2, demand: 3, disabled: 4 } as const;

export interface ServiceSpec {
  name: string;
  displayName: string;
  description?: string;
  /** The full command line the service control manager starts. */
  binaryPath: string;
  startType: keyof typeof ServiceStartType;
  /** Services that must start first. */
  dependencies: string[];
  /** Undefined for LocalSystem. */
  account?: string;
  password?: string;
}

export interface ServiceState {
  /** SERVICE_STOPPED 1 … SERVICE_RUNNING 4. */
  currentState: number;
  exitCode: number;
}

export interface Advapi32 {
  /** The value, or undefined when the key or the value does not exist. */
  regGetValue(root: RegRoot, key: string, name: string): RegValue | undefined;
  /** Creates the key (and its parents) when missing. */
  regSetValue(root: RegRoot, key: string, name: string, value: RegValue): void;
  /** Every value of KEY, or undefined when the key does not exist. */
  regListValues(root: RegRoot, key: string): Array<{ name: string; value: RegValue }> | undefined;
  regListKeys(root: RegRoot, key: string): string[] | undefined;
  regDeleteValue(root: RegRoot, key: string, name: string): void;
  /** Deletes KEY and everything below it; no error when it does not exist. */
  regDeleteTree(root: RegRoot, key: string): void;
  /** Enables a privilege (SeShutdownPrivilege …) in this process's token. */
  enablePrivilege(name: string): void;
  initiateSystemShutdown(opts: { message: string; timeoutSeconds: number; reboot: boolean; force: boolean }): void;
  /** Whether USER can log on with PASSWORD (LOGON32_LOGON_INTERACTIVE). */
  logonUser(user: string, password: string, domain?: string): boolean;
  /**
   * An interactive logon token for USER (the caller closes it), or undefined with the error text when the logon fails.
   */
  logonToken(user: string, password: string, domain?: string): { token: number | bigint } | { error: string };
  createService(spec: ServiceSpec): void;
  /** False when there was no such service. */
  deleteService(name: string): boolean;
  queryService(name: string): ServiceState | undefined;
  stopService(name: string): void;
  /** StartServiceW with no arguments. */
  startService(name: string): void;
  /** ChangeServiceConfigW with only the start type changed. */
  setServiceStartType(name: string, startType: keyof typeof ServiceStartType): void;
  /**
   * Runs as the service NAME: connects to the service control manager (StartServiceCtrlDispatcherW on a koffi
   * worker thread), reports RUNNING, runs WORK, reports STOPPED with its exit code. Rejects when this process
   * was not started by the service control manager.
   */
  runService(name: string, work: () => Promise<number>, log?: (line: string) => void): Promise<void>;
  /** The account's SID as text ('S-1-5-21-…'), or undefined when there is no such account. */
  accountSid(name: string): string | undefined;
}

export function bindAdvapi32(koffi: Koffi, kernel32: Kernel32): Advapi32 {
  const lib = koffi.load('advapi32.dll');
  const { SERVICE_DESCRIPTIONW, SERVICE_STATUS, SERVICE_TABLE_ENTRYW, TOKEN_PRIVILEGES, LUID_AND_ATTRIBUTES } =
    win32Structs(koffi);
  const PRIVILEGES = {
    size: koffi.sizeof(TOKEN_PRIVILEGES),
    luid: koffi.offsetof(TOKEN_PRIVILEGES, 'Privileges') + koffi.offsetof(LUID_AND_ATTRIBUTES, 'Luid'),
    attributes: koffi.offsetof(TOKEN_PRIVILEGES, 'Privileges') + koffi.offsetof(LUID_AND_ATTRIBUTES, 'Attributes'),
  };
  const STATUS = {
    size: koffi.sizeof(SERVICE_STATUS),
    currentState: koffi.offsetof(SERVICE_STATUS, 'dwCurrentState'),
    exitCode: koffi.offsetof(SERVICE_STATUS, 'dwWin32ExitCode'),
  };
  const HANDLE_OUT = koffi.out(koffi.pointer('intptr_t'));
  const U32_INOUT = koffi.inout(koffi.pointer('uint32_t'));
  const U32_OUT = koffi.out(koffi.pointer('uint32_t'));
  const RegCreateKeyExW = lib.func('__stdcall', 'RegCreateKeyExW', 'int32_t', [
    'intptr_t',
    'str16',
    'uint32_t',
    'str16',
    'uint32_t',
    'uint32_t',
    'void *',
    HANDLE_OUT,
    U32_OUT,
  ]);
  const RegOpenKeyExW = lib.func('__stdcall', 'RegOpenKeyExW', 'int32_t', [
    'intptr_t',
    'str16',
    'uint32_t',
    'uint32_t',
    HANDLE_OUT,
  ]);
  const RegCloseKey = lib.func('__stdcall', 'RegCloseKey', 'int32_t', ['intptr_t']);
  const RegSetValueExW = lib.func('__stdcall', 'RegSetValueExW', 'int32_t', [
    'intptr_t',
    'str16',
    'uint32_t',
    'uint32_t',
    'void *',
    'uint32_t',
  ]);
  const RegQueryValueExW = lib.func('__stdcall', 'RegQueryValueExW', 'int32_t', [
    'intptr_t',
    'str16',
    'void *',
    U32_OUT,
    'void *',
    U32_INOUT,
  ]);
  const RegEnumValueW = lib.func('__stdcall', 'RegEnumValueW', 'int32_t', [
    'intptr_t',
    'uint32_t',
    'void *',
    U32_INOUT,
    'void *',
    U32_OUT,
    'void *',
    U32_INOUT,
  ]);
  const RegEnumKeyExW = lib.func('__stdcall', 'RegEnumKeyExW', 'int32_t', [
    'intptr_t',
    'uint32_t',
    'void *',
    U32_INOUT,
    'void *',
    'void *',
    'void *',
    'void *',
  ]);
  const RegDeleteValueW = lib.func('__stdcall', 'RegDeleteValueW', 'int32_t', ['intptr_t', 'str16']);
  const RegDeleteTreeW = lib.func('__stdcall', 'RegDeleteTreeW', 'int32_t', ['intptr_t', 'str16']);
  const OpenProcessToken = lib.func('__stdcall', 'OpenProcessToken', 'int', ['intptr_t', 'uint32_t', HANDLE_OUT]);
  const LookupPrivilegeValueW = lib.func('__stdcall', 'LookupPrivilegeValueW', 'int', ['str16', 'str16', 'void *']);
  const AdjustTokenPrivileges = lib.func('__stdcall', 'AdjustTokenPrivileges', 'int', [
    'intptr_t',
    'int',
    'void *',
    'uint32_t',
    'void *',
    'void *',
  ]);
  const InitiateSystemShutdownExW = lib.func('__stdcall', 'InitiateSystemShutdownExW', 'int', [
    'str16',
    'str16',
    'uint32_t',
    'int',
    'int',
    'uint32_t',
  ]);
  const LogonUserW = lib.func('__stdcall', 'LogonUserW', 'int', [
    'str16',
    'str16',
    'str16',
    'uint32_t',
    'uint32_t',
    HANDLE_OUT,
  ]);
  const OpenSCManagerW = lib.func('__stdcall', 'OpenSCManagerW', 'intptr_t', ['str16', 'str16', 'uint32_t']);
  const CreateServiceW = lib.func('__stdcall', 'CreateServiceW', 'intptr_t', [
    'intptr_t',
    'str16',
    'str16',
    'uint32_t',
    'uint32_t',
    'uint32_t',
    'uint32_t',
    'str16',
    'str16',
    'void *',
    'void *',
    'str16',
    'str16',
  ]);
  const OpenServiceW = lib.func('__stdcall', 'OpenServiceW', 'intptr_t', ['intptr_t', 'str16', 'uint32_t']);
  const DeleteService = lib.func('__stdcall', 'DeleteService', 'int', ['intptr_t']);
  const CloseServiceHandle = lib.func('__stdcall', 'CloseServiceHandle', 'int', ['intptr_t']);
  const ControlService = lib.func('__stdcall', 'ControlService', 'int', ['intptr_t', 'uint32_t', 'void *']);
  const StartServiceW = lib.func('__stdcall', 'StartServiceW', 'int', ['intptr_t', 'uint32_t', 'void *']);
  const ChangeServiceConfigW = lib.func('__stdcall', 'ChangeServiceConfigW', 'int', [
    'intptr_t',
    'uint32_t',
    'uint32_t',
    'uint32_t',
    'str16',
    'str16',
    'void *',
    'str16',
    'str16',
    'str16',
    'str16',
  ]);
  const QueryServiceStatus = lib.func('__stdcall', 'QueryServiceStatus', 'int', ['intptr_t', 'void *']);
  const ChangeServiceConfig2W = lib.func('__stdcall', 'ChangeServiceConfig2W', 'int', [
    'intptr_t',
    'uint32_t',
    koffi.pointer(SERVICE_DESCRIPTIONW),
  ]);

  const ServiceMainProto = koffi.proto('__stdcall', 'KilnServiceMain', 'void', ['uint32_t', 'void *']);
  const HandlerExProto = koffi.proto('__stdcall', 'KilnServiceHandlerEx', 'uint32_t', [
    'uint32_t',
    'uint32_t',
    'void *',
    'void *',
  ]);
  const StartServiceCtrlDispatcherW = lib.func('__stdcall', 'StartServiceCtrlDispatcherW', 'int', [
    koffi.pointer(SERVICE_TABLE_ENTRYW),
  ]);
  const RegisterServiceCtrlHandlerExW = lib.func('__stdcall', 'RegisterServiceCtrlHandlerExW', 'intptr_t', [
    'str16',
    koffi.pointer(HandlerExProto),
    'void *',
  ]);
  const SetServiceStatus = lib.func('__stdcall', 'SetServiceStatus', 'int', [
    'intptr_t',
    koffi.pointer(SERVICE_STATUS),
  ]);

  const LookupAccountNameW = lib.func('__stdcall', 'LookupAccountNameW', 'int', [
    'str16',
    'str16',
    'void *',
    U32_INOUT,
    'void *',
    U32_INOUT,
    U32_OUT,
  ]);
  const ConvertSidToStringSidW = lib.func('__stdcall', 'ConvertSidToStringSidW', 'int', [
    'void *',
    koffi.out(koffi.pointer('void *')),
  ]);
  const LocalFree = koffi.load('kernel32.dll').func('__stdcall', 'LocalFree', 'void *', ['void *']);

  const regFail = (what: string, root: RegRoot, key: string, code: number) =>
    new PlatformError(`${what} ${root}\\${key} failed: ${kernel32.lastErrorText(code)}`);

  /** Runs FN with KEY open; undefined when the key does not exist. */
  function withKey<T>(
    root: RegRoot,
    key: string,
    access: number,
    create: boolean,
    fn: (h: number) => T,
  ): T | undefined {
    const handle = [0];
    const rc = create
      ? (RegCreateKeyExW(ROOTS[root], key, 0, null, 0, access, null, handle, [0]) as number)
      : (RegOpenKeyExW(ROOTS[root], key, 0, access, handle) as number);
    if (rc === ERROR_FILE_NOT_FOUND && !create) return undefined;
    if (rc !== ERROR_SUCCESS) throw regFail(create ? 'RegCreateKeyExW' : 'RegOpenKeyExW', root, key, rc);
    const h = handle[0] as number;
    try {
      return fn(h);
    } finally {
      RegCloseKey(h);
    }
  }

  function queryValue(h: number, name: string, root: RegRoot, key: string): RegValue | undefined {
    let size = 256;
    for (;;) {
      const buf = Buffer.alloc(size);
      const type = [0];
      const len = [size];
      const rc = RegQueryValueExW(h, name, null, type, buf, len) as number;
      if (rc === ERROR_FILE_NOT_FOUND) return undefined;
      if (rc === ERROR_MORE_DATA) {
        size = Math.max((len[0] as number) + 2, size * 2);
        continue;
      }
      if (rc !== ERROR_SUCCESS) throw regFail(`RegQueryValueExW '${name}' in`, root, key, rc);
      return decodeRegValue(type[0] as number, buf.subarray(0, len[0] as number));
    }
  }

  function withScm<T>(fn: (scm: number) => T): T {
    const scm = OpenSCManagerW(null, null, SC_MANAGER_ALL_ACCESS) as number;
    if (!scm)
      throw new PlatformError(`OpenSCManagerW failed (kiln must run as an administrator): ${kernel32.lastErrorText()}`);
    try {
      return fn(scm);
    } finally {
      CloseServiceHandle(scm);
    }
  }

  function withService<T>(name: string, fn: (h: number) => T): T | undefined {
    return withScm((scm) => {
      const h = OpenServiceW(scm, name, SERVICE_ALL_ACCESS) as number;
      if (!h) {
        const code = kernel32.lastError();
        if (code === ERROR_SERVICE_DOES_NOT_EXIST) return undefined;
        throw new PlatformError(`OpenServiceW '${name}' failed: ${kernel32.lastErrorText(code)}`);
      }
      try {
        return fn(h);
      } finally {
        CloseServiceHandle(h);
      }
    });
  }

  return {
    regGetValue(root, key, name) {
      return withKey(root, key, KEY_READ, false, (h) => queryValue(h, name, root, key));
    },
    regSetValue(root, key, name, value) {
      withKey(root, key, KEY_ALL_ACCESS, true, (h) => {
        const data = encodeRegValue(value);
        const rc = RegSetValueExW(h, name, 0, REG_TYPES[value.type], data, data.length) as number;
        if (rc !== ERROR_SUCCESS) throw regFail(`RegSetValueExW '${name}' in`, root, key, rc);
      });
    },
    regListValues(root, key) {
      return withKey(root, key, KEY_READ, false, (h) => {
        const out: Array<{ name: string; value: RegValue }> = [];
        for (let i = 0; ; i++) {
          const nameBuf = Buffer.alloc(16384 * 2 + 2);
          const nameLen = [16384];
          const rc = RegEnumValueW(h, i, nameBuf, nameLen, null, [0], null, [0]) as number;
          if (rc === ERROR_NO_MORE_ITEMS) break;
          if (rc !== ERROR_SUCCESS && rc !== ERROR_MORE_DATA) throw regFail('RegEnumValueW', root, key, rc);
          const name = nameBuf.subarray(0, (nameLen[0] as number) * 2).toString('utf16le');
          const value = queryValue(h, name, root, key);
          if (value) out.push({ name, value });
        }
        return out;
      });
    },
    regListKeys(root, key) {
      return withKey(root, key, KEY_READ, false, (h) => {
        const out: string[] = [];
        for (let i = 0; ; i++) {
          const nameBuf = Buffer.alloc(512);
          const nameLen = [256];
          const rc = RegEnumKeyExW(h, i, nameBuf, nameLen, null, null, null, null) as number;
          if (rc === ERROR_NO_MORE_ITEMS) break;
          if (rc !== ERROR_SUCCESS) throw regFail('RegEnumKeyExW', root, key, rc);
          out.push(nameBuf.subarray(0, (nameLen[0] as number) * 2).toString('utf16le'));
        }
        return out;
      });
    },
    regDeleteValue(root, key, name) {
      withKey(root, key, KEY_ALL_ACCESS, false, (h) => {
        const rc = RegDeleteValueW(h, name) as number;
        if (rc !== ERROR_SUCCESS && rc !== ERROR_FILE_NOT_FOUND)
          throw regFail(`RegDeleteValueW '${name}' in`, root, key, rc);
      });
    },
    regDeleteTree(root, key) {
      const rc = RegDeleteTreeW(ROOTS[root], key) as number;
      if (rc !== ERROR_SUCCESS && rc !== ERROR_FILE_NOT_FOUND) throw regFail('RegDeleteTreeW', root, key, rc);
    },
    enablePrivilege(name) {
      const token = [0];
      // GetCurrentProcess() is the pseudo handle -1.
      if (!OpenProcessToken(-1, TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, token))
        throw new PlatformError(`OpenProcessToken failed: ${kernel32.lastErrorText()}`);
      try {
        const luid = Buffer.alloc(8);
        if (!LookupPrivilegeValueW(null, name, luid))
          throw new PlatformError(`LookupPrivilegeValueW '${name}' failed: ${kernel32.lastErrorText()}`);
        const privileges = Buffer.alloc(PRIVILEGES.size);
        privileges.writeUInt32LE(1, 0);
        luid.copy(privileges, PRIVILEGES.luid);
        privileges.writeUInt32LE(SE_PRIVILEGE_ENABLED, PRIVILEGES.attributes);
        if (!AdjustTokenPrivileges(token[0] as number, 0, privileges, 0, null, null))
          throw new PlatformError(`AdjustTokenPrivileges '${name}' failed: ${kernel32.lastErrorText()}`);
        if (kernel32.lastError() === ERROR_NOT_ALL_ASSIGNED)
          throw new PlatformError(
            `privilege ${name} is not held by this account (run kiln as LocalSystem or an administrator)`,
          );
      } finally {
        kernel32.closeHandle(token[0] as number);
      }
    },
    initiateSystemShutdown({ message, timeoutSeconds, reboot, force }) {
      if (
        !InitiateSystemShutdownExW(
          null,
          message,
          timeoutSeconds,
          force ? 1 : 0,
          reboot ? 1 : 0,
          SHUTDOWN_REASON_PLANNED_INSTALL,
        )
      ) {
        throw new PlatformError(`InitiateSystemShutdownExW failed: ${kernel32.lastErrorText()}`);
      }
    },
    logonUser(user, password, domain = '.') {
      const token = [0];
      // LOGON32_LOGON_INTERACTIVE = 2, LOGON32_PROVIDER_DEFAULT = 0.
      if (!LogonUserW(user, domain, password, 2, 0, token)) return false;
      kernel32.closeHandle(token[0] as number);
      return true;
    },
    logonToken(user, password, domain = '.') {
      const token = [0];
      if (!LogonUserW(user, domain, password, 2, 0, token)) return { error: kernel32.lastErrorText() };
      return { token: token[0] as number };
    },
    createService(spec) {
      withScm((scm) => {
        const deps =
          spec.dependencies.length > 0 ? Buffer.from(`${spec.dependencies.join('\0')}\0\0`, 'utf16le') : null;
        const h = CreateServiceW(
          scm,
          spec.name,
          spec.displayName,
          SERVICE_ALL_ACCESS,
          SERVICE_WIN32_OWN_PROCESS,
          ServiceStartType[spec.startType],
          SERVICE_ERROR_NORMAL,
          spec.binaryPath,
          null,
          null,
          deps,
          spec.account ?? null,
          spec.password ?? null,
        ) as number;
        if (!h) throw new PlatformError(`CreateServiceW '${spec.name}' failed: ${kernel32.lastErrorText()}`);
        try {
          if (spec.description) {
            if (!ChangeServiceConfig2W(h, SERVICE_CONFIG_DESCRIPTION, { lpDescription: spec.description }))
              throw new PlatformError(`ChangeServiceConfig2W '${spec.name}' failed: ${kernel32.lastErrorText()}`);
          }
        } finally {
          CloseServiceHandle(h);
        }
      });
    },
    deleteService(name) {
      const done = withService(name, (h) => {
        if (!DeleteService(h)) throw new PlatformError(`DeleteService '${name}' failed: ${kernel32.lastErrorText()}`);
        return true;
      });
      return done ?? false;
    },
    queryService(name) {
      return withService(name, (h) => {
        const status = Buffer.alloc(STATUS.size);
        if (!QueryServiceStatus(h, status))
          throw new PlatformError(`QueryServiceStatus '${name}' failed: ${kernel32.lastErrorText()}`);
        return {
          currentState: status.readUInt32LE(STATUS.currentState),
          exitCode: status.readUInt32LE(STATUS.exitCode),
        };
      });
    },
    runService(name, work, log) {
      const SERVICE_RUNNING = 4;
      const SERVICE_STOPPED = 1;
      const SERVICE_ACCEPT_SHUTDOWN = 0x4;
      const SERVICE_CONTROL_INTERROGATE = 4;
      const ERROR_SERVICE_SPECIFIC_ERROR = 1066;
      const ERROR_CALL_NOT_IMPLEMENTED = 120;
      return new Promise((resolve, reject) => {
        let handle = 0;
        const setStatus = (state: number, code = 0) => {
          const reported = SetServiceStatus(handle, {
            dwServiceType: SERVICE_WIN32_OWN_PROCESS,
            dwCurrentState: state,
            dwControlsAccepted: state === SERVICE_RUNNING ? SERVICE_ACCEPT_SHUTDOWN : 0,
            dwWin32ExitCode: code === 0 ? 0 : ERROR_SERVICE_SPECIFIC_ERROR,
            dwServiceSpecificExitCode: code,
            dwCheckPoint: 0,
            dwWaitHint: 0,
          });
          // Windows keeps the last state it was told: a report that did not arrive is worth a line in the log.
          if (!reported) log?.(`SetServiceStatus (state ${state}) failed: ${kernel32.lastErrorText()}`);
        };
        // Stop is not accepted while plugins run (a half-run plugin is worse than a late stop); shutdown is noted.
        const handler = koffi.register((control: number) => {
          if (control === SERVICE_CONTROL_INTERROGATE) return 0;
          log?.(`service control ${control} received while running; the run finishes first`);
          return control === SERVICE_CONTROL_STOP ? ERROR_CALL_NOT_IMPLEMENTED : 0;
        }, koffi.pointer(HandlerExProto));
        const main = koffi.register(() => {
          handle = RegisterServiceCtrlHandlerExW(name, handler, null) as number;
          if (!handle) {
            log?.(`RegisterServiceCtrlHandlerExW '${name}' failed: ${kernel32.lastErrorText()}`);
            return;
          }
          setStatus(SERVICE_RUNNING);
          work().then(
            (code) => setStatus(SERVICE_STOPPED, code),
            (err: unknown) => {
              log?.(`service run failed: ${describeError(err)}`);
              setStatus(SERVICE_STOPPED, 1);
            },
          );
        }, koffi.pointer(ServiceMainProto));
        const table = [
          { lpServiceName: name, lpServiceProc: main },
          { lpServiceName: null, lpServiceProc: null },
        ];
        StartServiceCtrlDispatcherW.async(table, (err: unknown, ok: number) => {
          koffi.unregister(main);
          koffi.unregister(handler);
          if (err) reject(new PlatformError(`StartServiceCtrlDispatcherW failed: ${describeError(err)}`));
          else if (!ok)
            reject(
              new PlatformError(
                `cannot connect to the service control manager as '${name}': 'service run' is started by Windows for the installed service, not by hand (use 'cloudbase-init' or 'kiln cloudbase-init' to run the flow directly)`,
              ),
            );
          else resolve();
        });
      });
    },
    accountSid(name) {
      const sid = Buffer.alloc(256);
      const domain = Buffer.alloc(512);
      const ERROR_NONE_MAPPED = 1332;
      if (!LookupAccountNameW(null, name, sid, [sid.length], domain, [256], [0])) {
        const code = kernel32.lastError();
        if (code === ERROR_NONE_MAPPED) return undefined;
        throw new PlatformError(`LookupAccountNameW '${name}' failed: ${kernel32.lastErrorText(code)}`);
      }
      const out: [unknown] = [null];
      if (!ConvertSidToStringSidW(sid, out))
        throw new PlatformError(`ConvertSidToStringSidW for '${name}' failed: ${kernel32.lastErrorText()}`);
      try {
        return koffi.decode.string16(out[0]);
      } finally {
        LocalFree(out[0]);
      }
    },
    startService(name) {
      withService(name, (h) => {
        if (!StartServiceW(h, 0, null))
          throw new PlatformError(`StartServiceW '${name}' failed: ${kernel32.lastErrorText()}`);
      });
    },
    setServiceStartType(name, startType) {
      withService(name, (h) => {
        if (
          !ChangeServiceConfigW(
            h,
            SERVICE_NO_CHANGE,
            ServiceStartType[startType],
            SERVICE_NO_CHANGE,
            null,
            null,
            null,
            null,
            null,
            null,
            null,
          )
        ) {
          throw new PlatformError(`ChangeServiceConfigW '${name}' failed: ${kernel32.lastErrorText()}`);
        }
      });
    },
    stopService(name) {
      withService(name, (h) => {
        const status = Buffer.alloc(STATUS.size);
        if (!ControlService(h, SERVICE_CONTROL_STOP, status))
          throw new PlatformError(`ControlService stop '${name}' failed: ${kernel32.lastErrorText()}`);
      });
    },
  };
}
