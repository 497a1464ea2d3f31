// iphlpapi.dll bindings: adapters (GetAdaptersAddresses), static addresses, routes and interface MTU through the IP
// Helper API.
import type { Koffi } from '../../../util/koffi-addon';
import { describeError, PlatformError } from '../../../util/errors';
import type { Kernel32 } from './kernel32';
import { addressBytes, sockaddrText } from './sockaddr';
import { win32Structs } from './win32-structs';

export type IpFamily = 'ipv4' | 'ipv6';

export interface NetAdapter {
  ifIndex: number;
  luid: bigint;
  /** The adapter's GUID name, '{…}': its key under Tcpip\Parameters\Interfaces. */
  guid: string;
  /** Lower-case, colon separated. */
  mac: string;
  friendlyName: string;
  description: string;
  mtu: number;
  dhcpv4: boolean;
  up: boolean;
  unicast: Array<{ address: string; prefixLength: number; family: IpFamily }>;
  dnsServers: string[];
  /** The DHCPv4 server of the adapter's lease (Dhcpv4Server), when it has one. */
  dhcpServer?: string;
}

export interface AdapterRef {
  luid: bigint;
  ifIndex: number;
}

/** One row of the IP routing table (GetIpForwardTable2). */
export interface IpRoute {
  ifIndex: number;
  destination: string;
  prefixLength: number;
  nextHop: string;
  metric: number;
  family: IpFamily;
}

export interface Iphlpapi {
  adapters(): NetAdapter[];
  /** The routes of FAMILY in the routing table now. */
  routes(family: IpFamily): IpRoute[];
  /** 'exists' when Windows already has the address on the adapter. */
  addUnicastAddress(adapter: AdapterRef, address: string, prefixLength: number, family: IpFamily): 'added' | 'exists';
  addRoute(
    adapter: AdapterRef,
    route: { destination: string; prefixLength: number; nextHop: string; family: IpFamily; metric?: number },
  ): 'added' | 'exists';
  /** Sets the interface MTU (NlMtu) for FAMILY. */
  setMtu(adapter: AdapterRef, family: IpFamily, mtu: number): void;
}

const AF_INET = 2;
const AF_INET6 = 23;
const ERROR_BUFFER_OVERFLOW = 111;
const ERROR_OBJECT_ALREADY_EXISTS = 5010;
const ERROR_NO_DATA = 232;
const ERROR_NOT_FOUND = 1168;
const GAA_FLAG_SKIP_ANYCAST = 0x2;
const GAA_FLAG_SKIP_MULTICAST = 0x4;
const IP_ADAPTER_DHCP_ENABLED = 0x4;
const IF_OPER_STATUS_UP = 1;
const IP_PREFIX_ORIGIN_MANUAL = 1;
const IP_SUFFIX_ORIGIN_MANUAL = 1;

function writeSockaddr(buf: Buffer, offset: number, address: string, family: IpFamily): void {
  buf.writeUInt16LE(family === 'ipv4' ? AF_INET : AF_INET6, offset);
  Buffer.from(addressBytes(address, family)).copy(buf, offset + (family === 'ipv4' ? 4 : 8));
}

export function bindIphlpapi(koffi: Koffi, kernel32: Kernel32): Iphlpapi {
  const lib = koffi.load('iphlpapi.dll');
  // Byte offsets of the fields kiln reads and writes, from the structures as the SDK declares them.
  const t = win32Structs(koffi);
  const offset = (type: keyof typeof t, field: string) => koffi.offsetof(t[type], field);
  const ADAPTER = {
    ifIndex: offset('IP_ADAPTER_ADDRESSES_LH', 'IfIndex'),
    next: offset('IP_ADAPTER_ADDRESSES_LH', 'Next'),
    adapterName: offset('IP_ADAPTER_ADDRESSES_LH', 'AdapterName'),
    firstUnicast: offset('IP_ADAPTER_ADDRESSES_LH', 'FirstUnicastAddress'),
    firstDns: offset('IP_ADAPTER_ADDRESSES_LH', 'FirstDnsServerAddress'),
    description: offset('IP_ADAPTER_ADDRESSES_LH', 'Description'),
    friendlyName: offset('IP_ADAPTER_ADDRESSES_LH', 'FriendlyName'),
    physical: offset('IP_ADAPTER_ADDRESSES_LH', 'PhysicalAddress'),
    physicalLength: offset('IP_ADAPTER_ADDRESSES_LH', 'PhysicalAddressLength'),
    flags: offset('IP_ADAPTER_ADDRESSES_LH', 'Flags'),
    mtu: offset('IP_ADAPTER_ADDRESSES_LH', 'Mtu'),
    operStatus: offset('IP_ADAPTER_ADDRESSES_LH', 'OperStatus'),
    luid: offset('IP_ADAPTER_ADDRESSES_LH', 'Luid'),
    dhcpv4Server: offset('IP_ADAPTER_ADDRESSES_LH', 'Dhcpv4Server'),
  };
  // SOCKET_ADDRESS starts with its sockaddr pointer.
  const UNICAST = {
    next: offset('IP_ADAPTER_UNICAST_ADDRESS_LH', 'Next'),
    sockaddr: offset('IP_ADAPTER_UNICAST_ADDRESS_LH', 'Address'),
    prefixLength: offset('IP_ADAPTER_UNICAST_ADDRESS_LH', 'OnLinkPrefixLength'),
  };
  const DNS = {
    next: offset('IP_ADAPTER_DNS_SERVER_ADDRESS_XP', 'Next'),
    sockaddr: offset('IP_ADAPTER_DNS_SERVER_ADDRESS_XP', 'Address'),
  };
  const UNICAST_ROW = {
    size: koffi.sizeof(t.MIB_UNICASTIPADDRESS_ROW),
    address: offset('MIB_UNICASTIPADDRESS_ROW', 'Address'),
    luid: offset('MIB_UNICASTIPADDRESS_ROW', 'InterfaceLuid'),
    ifIndex: offset('MIB_UNICASTIPADDRESS_ROW', 'InterfaceIndex'),
    prefixOrigin: offset('MIB_UNICASTIPADDRESS_ROW', 'PrefixOrigin'),
    suffixOrigin: offset('MIB_UNICASTIPADDRESS_ROW', 'SuffixOrigin'),
    prefixLength: offset('MIB_UNICASTIPADDRESS_ROW', 'OnLinkPrefixLength'),
  };
  const FORWARD_ROW = {
    size: koffi.sizeof(t.MIB_IPFORWARD_ROW2),
    luid: offset('MIB_IPFORWARD_ROW2', 'InterfaceLuid'),
    ifIndex: offset('MIB_IPFORWARD_ROW2', 'InterfaceIndex'),
    destination: offset('MIB_IPFORWARD_ROW2', 'DestinationPrefix') + koffi.offsetof(t.IP_ADDRESS_PREFIX, 'Prefix'),
    destinationLength:
      offset('MIB_IPFORWARD_ROW2', 'DestinationPrefix') + koffi.offsetof(t.IP_ADDRESS_PREFIX, 'PrefixLength'),
    nextHop: offset('MIB_IPFORWARD_ROW2', 'NextHop'),
    metric: offset('MIB_IPFORWARD_ROW2', 'Metric'),
  };
  const INTERFACE_ROW = {
    size: koffi.sizeof(t.MIB_IPINTERFACE_ROW),
    family: offset('MIB_IPINTERFACE_ROW', 'Family'),
    luid: offset('MIB_IPINTERFACE_ROW', 'InterfaceLuid'),
    sitePrefixLength: offset('MIB_IPINTERFACE_ROW', 'SitePrefixLength'),
    mtu: offset('MIB_IPINTERFACE_ROW', 'NlMtu'),
  };
  const GetAdaptersAddresses = lib.func('__stdcall', 'GetAdaptersAddresses', 'uint32_t', [
    'uint32_t',
    'uint32_t',
    'void *',
    'void *',
    koffi.inout(koffi.pointer('uint32_t')),
  ]);
  const InitializeUnicastIpAddressEntry = lazy('InitializeUnicastIpAddressEntry', 'void');
  const CreateUnicastIpAddressEntry = lazy('CreateUnicastIpAddressEntry', 'uint32_t');
  const InitializeIpForwardEntry = lazy('InitializeIpForwardEntry', 'void');
  const CreateIpForwardEntry2 = lazy('CreateIpForwardEntry2', 'uint32_t');
  const InitializeIpInterfaceEntry = lazy('InitializeIpInterfaceEntry', 'void');
  const GetIpInterfaceEntry = lazy('GetIpInterfaceEntry', 'uint32_t');
  const SetIpInterfaceEntry = lazy('SetIpInterfaceEntry', 'uint32_t');
  const GetIpForwardTable2 = lib.func('__stdcall', 'GetIpForwardTable2', 'uint32_t', [
    'uint16_t',
    koffi.out(koffi.pointer('void *')),
  ]);
  const FreeMibTable = lib.func('__stdcall', 'FreeMibTable', 'void', ['void *']);

  function lazy(name: string, result: string): (row: Buffer) => unknown {
    // Bound on first use: an export missing from this iphlpapi (wine's lacks the row initialisers) fails only its
    // caller.
    let fn: ((row: Buffer) => unknown) | undefined;
    return (row) => {
      try {
        fn ??= lib.func('__stdcall', name, result, ['void *']);
      } catch (err) {
        throw new PlatformError(`iphlpapi.dll has no ${name}: ${describeError(err)}`);
      }
      return fn(row);
    };
  }
  const fail = (what: string, code: number) => new PlatformError(`${what} failed: ${kernel32.lastErrorText(code)}`);

  return {
    adapters() {
      let size = 16 * 1024;
      for (let attempt = 0; attempt < 4; attempt++) {
        const mem = koffi.alloc('uint8_t', size);
        try {
          const len = [size];
          const rc = GetAdaptersAddresses(0, GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST, null, mem, len) as number;
          if (rc === ERROR_BUFFER_OVERFLOW) {
            size = (len[0] as number) + 1024;
            continue;
          }
          if (rc === ERROR_NO_DATA) return [];
          if (rc !== 0) throw fail('GetAdaptersAddresses', rc);
          // Every pointer in the result points into this one buffer: read it as bytes, follow pointers as offsets.
          const buf = Buffer.from(koffi.view(mem, size));
          const base = BigInt(koffi.address(mem));
          const at = (ptr: bigint): number | undefined => (ptr === 0n ? undefined : Number(ptr - base));
          const ptrAt = (off: number) => at(buf.readBigUInt64LE(off));
          const wstr = (off: number | undefined): string => {
            if (off === undefined) return '';
            let end = off;
            while (end + 1 < buf.length && (buf[end] !== 0 || buf[end + 1] !== 0)) end += 2;
            return buf.subarray(off, end).toString('utf16le');
          };
          const cstr = (off: number | undefined): string =>
            off === undefined ? '' : buf.subarray(off, buf.indexOf(0, off)).toString('latin1');
          const sockaddr = (off: number): { address: string; family: IpFamily } | undefined => {
            const sa = ptrAt(off);
            return sa === undefined ? undefined : sockaddrText(buf.subarray(sa, sa + 28));
          };
          const out: NetAdapter[] = [];
          for (let a: number | undefined = 0; a !== undefined; a = ptrAt(a + ADAPTER.next)) {
            const unicast: NetAdapter['unicast'] = [];
            for (let u = ptrAt(a + ADAPTER.firstUnicast); u !== undefined; u = ptrAt(u + UNICAST.next)) {
              const sa = sockaddr(u + UNICAST.sockaddr);
              if (sa) unicast.push({ ...sa, prefixLength: buf.readUInt8(u + UNICAST.prefixLength) });
            }
            const dnsServers: string[] = [];
            for (let d = ptrAt(a + ADAPTER.firstDns); d !== undefined; d = ptrAt(d + DNS.next)) {
              const sa = sockaddr(d + DNS.sockaddr);
              if (sa) dnsServers.push(sa.address);
            }
            const dhcpServer = sockaddr(a + ADAPTER.dhcpv4Server)?.address;
            const macLen = Math.min(buf.readUInt32LE(a + ADAPTER.physicalLength), 8);
            out.push({
              ifIndex: buf.readUInt32LE(a + ADAPTER.ifIndex),
              luid: buf.readBigUInt64LE(a + ADAPTER.luid),
              guid: cstr(ptrAt(a + ADAPTER.adapterName)),
              mac: [...buf.subarray(a + ADAPTER.physical, a + ADAPTER.physical + macLen)]
                .map((b) => b.toString(16).padStart(2, '0'))
                .join(':'),
              friendlyName: wstr(ptrAt(a + ADAPTER.friendlyName)),
              description: wstr(ptrAt(a + ADAPTER.description)),
              mtu: buf.readUInt32LE(a + ADAPTER.mtu),
              dhcpv4: (buf.readUInt32LE(a + ADAPTER.flags) & IP_ADAPTER_DHCP_ENABLED) !== 0,
              up: buf.readUInt32LE(a + ADAPTER.operStatus) === IF_OPER_STATUS_UP,
              unicast,
              dnsServers,
              ...(dhcpServer && dhcpServer !== '0.0.0.0' ? { dhcpServer } : {}),
            });
          }
          return out;
        } finally {
          koffi.free(mem);
        }
      }
      throw new PlatformError('GetAdaptersAddresses: the adapter list kept growing; try again');
    },
    routes(family) {
      const out: unknown[] = [null];
      const rc = GetIpForwardTable2(family === 'ipv4' ? AF_INET : AF_INET6, out) as number;
      if (rc === ERROR_NO_DATA || rc === ERROR_NOT_FOUND) return [];
      if (rc !== 0) throw fail('GetIpForwardTable2', rc);
      try {
        // MIB_IPFORWARD_TABLE2: NumEntries, then the rows from offset 8 (their alignment).
        const count = koffi.decode(out[0], 'uint32_t') as number;
        const buf = Buffer.from(
          Uint8Array.from(
            koffi.decode(out[0], koffi.array('uint8_t', 8 + count * FORWARD_ROW.size)) as ArrayLike<number>,
          ),
        );
        const rows: IpRoute[] = [];
        for (let i = 0, r = 8; i < count; i++, r += FORWARD_ROW.size) {
          const dest = sockaddrText(buf.subarray(r + FORWARD_ROW.destination, r + FORWARD_ROW.destination + 28));
          const hop = sockaddrText(buf.subarray(r + FORWARD_ROW.nextHop, r + FORWARD_ROW.nextHop + 28));
          if (!dest || !hop) continue;
          rows.push({
            ifIndex: buf.readUInt32LE(r + FORWARD_ROW.ifIndex),
            destination: dest.address,
            prefixLength: buf.readUInt8(r + FORWARD_ROW.destinationLength),
            nextHop: hop.address,
            metric: buf.readUInt32LE(r + FORWARD_ROW.metric),
            family: dest.family,
          });
        }
        return rows;
      } finally {
        FreeMibTable(out[0]);
      }
    },
    addUnicastAddress(adapter, address, prefixLength, family) {
      const row = Buffer.alloc(UNICAST_ROW.size);
      InitializeUnicastIpAddressEntry(row);
      writeSockaddr(row, UNICAST_ROW.address, address, family);
      row.writeBigUInt64LE(adapter.luid, UNICAST_ROW.luid);
      row.writeUInt32LE(adapter.ifIndex, UNICAST_ROW.ifIndex);
      row.writeUInt32LE(IP_PREFIX_ORIGIN_MANUAL, UNICAST_ROW.prefixOrigin);
      row.writeUInt32LE(IP_SUFFIX_ORIGIN_MANUAL, UNICAST_ROW.suffixOrigin);
      row.writeUInt8(prefixLength, UNICAST_ROW.prefixLength);
      const rc = CreateUnicastIpAddressEntry(row) as number;
      if (rc === ERROR_OBJECT_ALREADY_EXISTS) return 'exists';
      if (rc !== 0)
        throw fail(`CreateUnicastIpAddressEntry ${address}/${prefixLength} on interface ${adapter.ifIndex}`, rc);
      return 'added';
    },
    addRoute(adapter, route) {
      const row = Buffer.alloc(FORWARD_ROW.size);
      InitializeIpForwardEntry(row);
      row.writeBigUInt64LE(adapter.luid, FORWARD_ROW.luid);
      row.writeUInt32LE(adapter.ifIndex, FORWARD_ROW.ifIndex);
      writeSockaddr(row, FORWARD_ROW.destination, route.destination, route.family);
      row.writeUInt8(route.prefixLength, FORWARD_ROW.destinationLength);
      writeSockaddr(row, FORWARD_ROW.nextHop, route.nextHop, route.family);
      if (route.metric !== undefined) row.writeUInt32LE(route.metric, FORWARD_ROW.metric);
      const rc = CreateIpForwardEntry2(row) as number;
      if (rc === ERROR_OBJECT_ALREADY_EXISTS) return 'exists';
      if (rc !== 0)
        throw fail(`CreateIpForwardEntry2 ${route.destination}/${route.prefixLength} via ${route.nextHop}`, rc);
      return 'added';
    },
    setMtu(adapter, family, mtu) {
      const row = Buffer.alloc(INTERFACE_ROW.size);
      InitializeIpInterfaceEntry(row);
      row.writeUInt16LE(family === 'ipv4' ? AF_INET : AF_INET6, INTERFACE_ROW.family);
      row.writeBigUInt64LE(adapter.luid, INTERFACE_ROW.luid);
      let rc = GetIpInterfaceEntry(row) as number;
      if (rc !== 0) throw fail(`GetIpInterfaceEntry (interface ${adapter.ifIndex})`, rc);
      row.writeUInt32LE(mtu, INTERFACE_ROW.mtu);
      // SetIpInterfaceEntry rejects IPv4 rows whose SitePrefixLength is not 0.
      if (family === 'ipv4') row.writeUInt32LE(0, INTERFACE_ROW.sitePrefixLength);
      rc = SetIpInterfaceEntry(row) as number;
      if (rc !== 0) throw fail(`SetIpInterfaceEntry MTU ${mtu} (interface ${adapter.ifIndex})`, rc);
    },
  };
}
