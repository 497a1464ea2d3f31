// The two 64-bit Windows ABIs kiln ships for (x64 and arm64), as far as the bindings depend on them: how a
// structure of WIN32_STRUCTS is laid out, and where each argument of a call goes. No Windows and no arm64 koffi is
// needed: both are the documented rules, and the x64 layout is checked against the host's koffi.
//
// Layout: both are LLP64 with natural alignment (Microsoft's "Overview of ARM64 ABI conventions" keeps x64's type
// sizes and alignments), so the two layouts agree; they are computed per arch all the same, so a difference
// would show.
// Arguments (integer class only, which is all the bindings pass):
// - x64: one 8-byte slot per argument (RCX, RDX, R8, R9, then the stack); a structure of 1, 2, 4 or 8 bytes goes
//   in its slot by value, any other size as a pointer to a caller-made copy.
// - arm64: X0–X7, then the stack; a structure of up to 16 bytes takes ceil(size / 8) consecutive registers (the
//   stack when not enough are left, and then no later argument uses a register), a larger one a pointer to a copy.
import {
  WIN32_STRUCTS,
  type Win32FieldType,
  type Win32StructDeclaration,
  type Win32StructName,
} from '../../src/platform/windows/win32/win32-structs';

export type WindowsArch = 'x64' | 'arm64';
export const WINDOWS_ARCHES: WindowsArch[] = ['x64', 'arm64'];

const PRIMITIVES: Record<WindowsArch, Record<string, { size: number; align: number }>> = {
  x64: {},
  arm64: {},
};
for (const arch of WINDOWS_ARCHES) {
  const table = PRIMITIVES[arch];
  for (const t of ['uint8_t', 'int8_t']) table[t] = { size: 1, align: 1 };
  for (const t of ['uint16_t', 'int16_t', 'char16_t']) table[t] = { size: 2, align: 2 };
  for (const t of ['uint32_t', 'int32_t']) table[t] = { size: 4, align: 4 };
  for (const t of ['uint64_t', 'int64_t']) table[t] = { size: 8, align: 8 };
  // Pointers, handles and the pointer-sized integers: 8 bytes on both.
  for (const t of ['void *', 'str', 'str16', 'intptr_t', 'uintptr_t']) table[t] = { size: 8, align: 8 };
}

export interface StructLayout {
  size: number;
  align: number;
  offsets: Record<string, number>;
}

function typeLayout(t: Win32FieldType, arch: WindowsArch): { size: number; align: number } {
  if (typeof t !== 'string') {
    const elem = typeLayout(t.array, arch);
    return { size: elem.size * t.length, align: elem.align };
  }
  if (t in WIN32_STRUCTS) return structLayout(t as Win32StructName, arch);
  const p = PRIMITIVES[arch][t];
  if (!p) throw new Error(`no ${arch} layout for the type '${t}'`);
  return p;
}

const roundUp = (n: number, align: number) => Math.ceil(n / align) * align;

/** The layout of a structure of WIN32_STRUCTS for ARCH, by the C rules both ABIs follow. */
export function structLayout(name: Win32StructName, arch: WindowsArch): StructLayout {
  const decl: Win32StructDeclaration = WIN32_STRUCTS[name];
  const offsets: Record<string, number> = {};
  let end = 0;
  let align = 1;
  for (const [field, t] of decl.fields) {
    const l = typeLayout(t, arch);
    align = Math.max(align, l.align);
    const at = decl.kind === 'union' ? 0 : roundUp(end, l.align);
    offsets[field] = at;
    end = Math.max(end, at + l.size);
  }
  return { size: roundUp(end, align), align, offsets };
}

/** An argument as the placement rules see it. */
export type AbiArgument = { kind: 'scalar' } | { kind: 'struct'; size: number };

/** Where each argument goes: 'X0', 'X0+X1', 'RCX', 'stack+8', or '&copy in RDX' (a pointer to a copy). */
export function argumentPlacement(args: AbiArgument[], arch: WindowsArch): string[] {
  if (arch === 'x64') {
    const regs = ['RCX', 'RDX', 'R8', 'R9'];
    return args.map((a, i) => {
      const slot = i < 4 ? (regs[i] as string) : `stack+${(i - 4) * 8}`;
      return a.kind === 'struct' && ![1, 2, 4, 8].includes(a.size) ? `&copy in ${slot}` : slot;
    });
  }
  let ngrn = 0;
  let stack = 0;
  return args.map((a) => {
    const words = a.kind === 'struct' && a.size <= 16 ? Math.ceil(a.size / 8) : 1;
    const byCopy = a.kind === 'struct' && a.size > 16;
    let where: string;
    if (ngrn + words <= 8) {
      where = Array.from({ length: words }, (_, k) => `X${ngrn + k}`).join('+');
      ngrn += words;
    } else {
      if (words > 1) ngrn = 8;
      where = `stack+${stack}`;
      stack += words * 8;
    }
    return byCopy ? `&copy in ${where}` : where;
  });
}
