// dhcpcsvc.dll bindings: options of an adapter's DHCP lease (MTU 26, NTP servers 42) through DhcpRequestParams.
import type { Koffi } from '../../../util/koffi-addon';
import { PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';

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
/** x64 layouts: DHCPCAPI_PARAMS { ULONG Flags; ULONG OptionId; BOOL IsVendor; LPBYTE Data; DWORD nBytesData } and DHCPCAPI_PARAMS_ARRAY { ULONG nParams; LPDHCPCAPI_PARAMS Params }. */
const PARAMS = { size: 32, optionId: 4, isVendor: 8, data: 16, length: 24 };
const PARAMS_ARRAY = { size: 16, count: 0, params: 8 };
const ERROR_MORE_DATA = 234;
const ERROR_FILE_NOT_FOUND = 2;
const ERROR_NOT_FOUND = 1168;

export function bindDhcpcsvc(koffi: Koffi, kernel32: Kernel32): Dhcpcsvc {
  // Loaded and bound on first use: a dhcpcsvc that lacks an export (wine's) must fail only the caller, not every binding.
  let api: { init: (version: number[]) => unknown; request: (...args: unknown[]) => unknown } | undefined;
  const bind = () => {
    if (api) return api;
    try {
      const lib = koffi.load('dhcpcsvc.dll');
      api = {
        init: lib.func('__stdcall', 'DhcpCApiInitialize', 'uint32_t', [koffi.out(koffi.pointer('uint32_t'))]),
        // SendParams and RecdParams are DHCPCAPI_PARAMS_ARRAY passed by value; the x64 calling convention passes a
        // 16-byte struct as a pointer to a copy, so a pointer to our own copy is the same call.
        request: lib.func('__stdcall', 'DhcpRequestParams', 'uint32_t', [
          'uint32_t', 'void *', 'str16', 'void *', 'void *', 'void *', 'void *', koffi.inout(koffi.pointer('uint32_t')), 'void *',
        ]),
      };
      return api;
    } catch (err) {
      throw new PlatformError(`dhcpcsvc.dll: cannot bind DhcpRequestParams: ${(err as Error).message}`);
    }
  };
  let initialised = false;

  /** Memory owned by koffi with a Buffer view on it and its address, so structures can point at each other. */
  const block = (size: number) => {
    const mem = koffi.alloc('uint8_t', size);
    return { mem, buf: Buffer.from(koffi.view(mem, size)), address: BigInt(koffi.address(mem)) };
  };

  return {
    requestOption(adapterGuid, option) {
      if (!initialised) {
        const version = [0];
        const rc = bind().init(version) as number;
        if (rc !== 0) throw new PlatformError(`DhcpCApiInitialize failed: ${kernel32.lastErrorText(rc)}`);
        initialised = true;
      }
      const send = block(PARAMS_ARRAY.size);
      const param = block(PARAMS.size);
      param.buf.writeUInt32LE(option, PARAMS.optionId);
      param.buf.writeInt32LE(0, PARAMS.isVendor);
      const recd = block(PARAMS_ARRAY.size);
      recd.buf.writeUInt32LE(1, PARAMS_ARRAY.count);
      recd.buf.writeBigUInt64LE(param.address, PARAMS_ARRAY.params);
      let size = 1024;
      for (let attempt = 0; attempt < 3; attempt++) {
        const out = block(size);
        const len = [size];
        const rc = bind().request(DHCPCAPI_REQUEST_SYNCHRONOUS, null, adapterGuid, null, send.mem, recd.mem, out.mem, len, null) as number;
        if (rc === ERROR_MORE_DATA) {
          size = (len[0] ?? size) + 64;
          continue;
        }
        if (rc === ERROR_FILE_NOT_FOUND || rc === ERROR_NOT_FOUND) return undefined;
        if (rc !== 0) throw new PlatformError(`DhcpRequestParams option ${option} on adapter ${adapterGuid} failed: ${kernel32.lastErrorText(rc)}`);
        const n = param.buf.readUInt32LE(PARAMS.length);
        const data = param.buf.readBigUInt64LE(PARAMS.data);
        if (n === 0 || data === 0n) return undefined;
        // Data points into OUT (the API fills our buffer): read it as an offset there.
        const at = Number(data - out.address);
        if (at < 0 || at + n > size) throw new PlatformError(`DhcpRequestParams option ${option} on adapter ${adapterGuid} returned data outside its buffer`);
        return Uint8Array.from(out.buf.subarray(at, at + n));
      }
      throw new PlatformError(`DhcpRequestParams option ${option} on adapter ${adapterGuid}: buffer of ${size} bytes still too small`);
    },
  };
}

/** Option 26: the interface MTU, a 16-bit big-endian number (at least 68); undefined when malformed. */
export function parseMtuOption(data: Uint8Array | undefined): number | undefined {
  if (!data || data.length !== 2) return undefined;
  const mtu = (data[0]! << 8) | data[1]!;
  return mtu >= 68 ? mtu : undefined;
}

/** Option 42: NTP servers, IPv4 addresses of 4 bytes each. */
export function parseNtpServersOption(data: Uint8Array | undefined): string[] {
  if (!data || data.length === 0 || data.length % 4 !== 0) return [];
  const out: string[] = [];
  for (let i = 0; i < data.length; i += 4) out.push(Array.from(data.subarray(i, i + 4)).join('.'));
  return out;
}
