// Little-endian integers read from on-disk structures (FAT, ISO 9660, UDF, MBR/GPT); a byte past the end reads as 0.

export function u16le(b: Uint8Array, o: number): number {
  return (b[o] ?? 0) | ((b[o + 1] ?? 0) << 8);
}

export function u32le(b: Uint8Array, o: number): number {
  return ((b[o] ?? 0) | ((b[o + 1] ?? 0) << 8) | ((b[o + 2] ?? 0) << 16)) + (b[o + 3] ?? 0) * 0x1000000;
}

/**
 * A 64-bit value as a number; beyond 2^53 (only a corrupt structure says so) it is Number.MAX_SAFE_INTEGER, which every
 * bounds check refuses.
 */
export function u64le(b: Uint8Array, o: number): number {
  const hi = u32le(b, o + 4);
  if (hi > 0x1fffff) return Number.MAX_SAFE_INTEGER;
  return hi * 0x100000000 + u32le(b, o);
}
