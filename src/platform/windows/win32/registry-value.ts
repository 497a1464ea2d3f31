// Registry values as typed data, and their byte encoding as RegSetValueExW/RegQueryValueExW exchange it.

export const REG_TYPES = {
  REG_NONE: 0,
  REG_SZ: 1,
  REG_EXPAND_SZ: 2,
  REG_BINARY: 3,
  REG_DWORD: 4,
  REG_MULTI_SZ: 7,
  REG_QWORD: 11,
} as const;

export type RegValue =
  | { type: 'REG_SZ' | 'REG_EXPAND_SZ'; data: string }
  | { type: 'REG_DWORD'; data: number }
  | { type: 'REG_QWORD'; data: bigint }
  | { type: 'REG_MULTI_SZ'; data: string[] }
  | { type: 'REG_BINARY' | 'REG_NONE'; data: Uint8Array };

/** The predefined keys kiln uses. */
export type RegRoot = 'HKLM' | 'HKCU' | 'HKU';

/** The bytes RegSetValueExW wants for VALUE (strings UTF-16LE with their terminating NULs). */
export function encodeRegValue(value: RegValue): Buffer {
  switch (value.type) {
    case 'REG_SZ':
    case 'REG_EXPAND_SZ':
      return Buffer.from(`${value.data}\0`, 'utf16le');
    case 'REG_MULTI_SZ':
      return Buffer.from(`${value.data.map((s) => `${s}\0`).join('')}\0`, 'utf16le');
    case 'REG_DWORD': {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(value.data >>> 0);
      return b;
    }
    case 'REG_QWORD': {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(BigInt.asUintN(64, value.data));
      return b;
    }
    case 'REG_BINARY':
    case 'REG_NONE':
      return Buffer.from(value.data);
  }
}

function utf16(bytes: Uint8Array): string {
  const even = bytes.length - (bytes.length % 2);
  return Buffer.from(bytes.buffer, bytes.byteOffset, even).toString('utf16le');
}

/** Decodes what RegQueryValueExW returned; strings lose their NULs, unknown types come back as binary. */
export function decodeRegValue(type: number, bytes: Uint8Array): RegValue {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  switch (type) {
    case REG_TYPES.REG_SZ:
    case REG_TYPES.REG_EXPAND_SZ:
      return { type: type === REG_TYPES.REG_SZ ? 'REG_SZ' : 'REG_EXPAND_SZ', data: utf16(bytes).replace(/\0+$/, '') };
    case REG_TYPES.REG_MULTI_SZ:
      return {
        type: 'REG_MULTI_SZ',
        data: utf16(bytes)
          .replace(/\0+$/, '')
          .split('\0')
          .filter((s, i, all) => s !== '' || i < all.length - 1),
      };
    case REG_TYPES.REG_DWORD:
      return { type: 'REG_DWORD', data: b.length >= 4 ? b.readUInt32LE(0) : 0 };
    case REG_TYPES.REG_QWORD:
      return { type: 'REG_QWORD', data: b.length >= 8 ? b.readBigUInt64LE(0) : 0n };
    default:
      return { type: 'REG_BINARY', data: Uint8Array.from(b) };
  }
}
