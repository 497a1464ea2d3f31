// dhcpcsvc.dll bindings: options of an adapter's DHCP lease (MTU 26, NTP servers 42) through DhcpRequestParams.
import type { Koffi } from '../../../util/koffi-addon';
import { describeError, PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { win32Structs } from './win32-structs';

/** DHCP option codes kiln reads. */
export const DhcpOption = { interfaceMtu: 26, ntpServers: 42 } as const;

export interface Dhcpcsvc {
  /**
   * The raw data of OPTION in the DHCP lease of the adapter named ADAPTER_GUID ('{…}'); undefined when the
   * lease lacks it or the adapter has no DHCP lease.
   */
  requestOption(adapterGuid: string, option: number): Uint8Array | undefined;
}

const DHCPCAPI_REQUEST_SYNCHRONOUS = 0x2;
const ERROR_MORE_DATA = 234;
const ERROR_FILE_NOT_FOUND = 2;
const ERROR_NOT_FOUND = 1168;

/**
 * DhcpRequestParams as dhcpcsdk.h declares it: SendParams and RecdParams are DHCPCAPI_PARAMS_ARRAY structures
 * passed BY VALUE. x64 passes a 16-byte structure as a pointer to a copy, but arm64 passes it in two registers, so
 * a pointer in their place would shift every later argument there; koffi places them as each ABI wants.
 */
export function dhcpRequestParamsParameters(
  koffi: Koffi,
): Array<string | ReturnType<Koffi['struct']> | ReturnType<Koffi['out']>> {
  const { DHCPCAPI_PARAMS_ARRAY } = win32Structs(koffi);
  return [
    'uint32_t',
    'void *',
    'str16',
    'void *',
    DHCPCAPI_PARAMS_ARRAY,
    DHCPCAPI_PARAMS_ARRAY,
    'void *',
    koffi.inout(koffi.pointer('uint32_t')),
    'void *',
  ];
}

export function bindDhcpcsvc(koffi: Koffi, kernel32: Kernel32): Dhcpcsvc {
  const { DHCPCAPI_PARAMS } = win32Structs(koffi);
  const param = {
    size: koffi.sizeof(DHCPCAPI_PARAMS),
    optionId: koffi.offsetof(DHCPCAPI_PARAMS, 'OptionId'),
    data: koffi.offsetof(DHCPCAPI_PARAMS, 'Data'),
    length: koffi.offsetof(DHCPCAPI_PARAMS, 'nBytesData'),
  };
  // Loaded and bound on first use: a dhcpcsvc that lacks an export (wine's) must fail only the caller, not every
  // binding.
  let api: { init: (version: number[]) => unknown; request: (...args: unknown[]) => unknown } | undefined;
  const bind = () => {
    if (api) return api;
    try {
      const lib = koffi.load('dhcpcsvc.dll');
      api = {
        init: lib.func('__stdcall', 'DhcpCApiInitialize', 'uint32_t', [koffi.out(koffi.pointer('uint32_t'))]),
        request: lib.func('__stdcall', 'DhcpRequestParams', 'uint32_t', dhcpRequestParamsParameters(koffi)),
      };
      return api;
    } catch (err) {
      throw new PlatformError(`dhcpcsvc.dll: cannot bind DhcpRequestParams: ${describeError(err)}`);
    }
  };
  let initialised = false;

  return {
    requestOption(adapterGuid, option) {
      if (!initialised) {
        const version = [0];
        const rc = bind().init(version) as number;
        if (rc !== 0) throw new PlatformError(`DhcpCApiInitialize failed: ${kernel32.lastErrorText(rc)}`);
        initialised = true;
      }
      // The API writes Data and nBytesData into our DHCPCAPI_PARAMS and the option's bytes into OUT, where Data
      // points: both must stay where they are during the call, so they are koffi's memory, freed after.
      const paramMem = koffi.alloc('uint8_t', param.size);
      try {
        const paramBuf = Buffer.from(koffi.view(paramMem, param.size));
        paramBuf.fill(0);
        paramBuf.writeUInt32LE(option, param.optionId);
        const send = { nParams: 0, Params: null };
        const recd = { nParams: 1, Params: paramMem };
        let size = 1024;
        for (let attempt = 0; attempt < 3; attempt++) {
          const out = koffi.alloc('uint8_t', size);
          try {
            const len = [size];
            const rc = bind().request(
              DHCPCAPI_REQUEST_SYNCHRONOUS,
              null,
              adapterGuid,
              null,
              send,
              recd,
              out,
              len,
              null,
            ) as number;
            if (rc === ERROR_MORE_DATA) {
              size = (len[0] ?? size) + 64;
              continue;
            }
            if (rc === ERROR_FILE_NOT_FOUND || rc === ERROR_NOT_FOUND) return undefined;
            if (rc !== 0)
              throw new PlatformError(
                `DhcpRequestParams option ${option} on adapter ${adapterGuid} failed: ${kernel32.lastErrorText(rc)}`,
              );
            const n = paramBuf.readUInt32LE(param.length);
            const data = paramBuf.readBigUInt64LE(param.data);
            if (n === 0 || data === 0n) return undefined;
            // Data points into OUT (the API fills our buffer): read it as an offset there.
            const at = Number(data - BigInt(koffi.address(out)));
            if (at < 0 || at + n > size)
              throw new PlatformError(
                `DhcpRequestParams option ${option} on adapter ${adapterGuid} returned data outside its buffer`,
              );
            return Uint8Array.from(Buffer.from(koffi.view(out, size)).subarray(at, at + n));
          } finally {
            koffi.free(out);
          }
        }
        throw new PlatformError(
          `DhcpRequestParams option ${option} on adapter ${adapterGuid}: buffer of ${size} bytes still too small`,
        );
      } finally {
        koffi.free(paramMem);
      }
    },
  };
}

/** Option 26: the interface MTU, a 16-bit big-endian number (at least 68); undefined when malformed. */
export function parseMtuOption(data: Uint8Array | undefined): number | undefined {
  if (data?.length !== 2) return undefined;
  const mtu = new DataView(data.buffer, data.byteOffset, data.byteLength).getUint16(0);
  return mtu >= 68 ? mtu : undefined;
}

/** Option 42: NTP servers, IPv4 addresses of 4 bytes each. */
export function parseNtpServersOption(data: Uint8Array | undefined): string[] {
  if (!data || data.length === 0 || data.length % 4 !== 0) return [];
  const out: string[] = [];
  for (let i = 0; i < data.length; i += 4) out.push(Array.from(data.subarray(i, i + 4)).join('.'));
  return out;
}
