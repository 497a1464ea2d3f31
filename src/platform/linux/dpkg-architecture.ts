// dpkg's architecture name for the target (what `dpkg --print-architecture` prints), read from the ELF header
// of the target's dpkg binary instead of starting it; dpkg itself answers for machines the table lacks.
import type { Platform } from '../platform';

const DPKG = '/usr/bin/dpkg';

/** ELF e_machine values kiln names. */
const EM = {
  I386: 3,
  PPC: 20,
  PPC64: 21,
  S390: 22,
  ARM: 40,
  X86_64: 62,
  AARCH64: 183,
  RISCV: 243,
  LOONGARCH: 258,
} as const;
/** ARM's e_flags bit for the hard-float ABI (armhf). */
const EF_ARM_ABI_FLOAT_HARD = 0x400;

/** The Debian architecture an ELF image was built for, undefined when the header is not one kiln can name. */
export function debianArchOfElf(image: Uint8Array): string | undefined {
  if (image.length < 52 || image[0] !== 0x7f || image[1] !== 0x45 || image[2] !== 0x4c || image[3] !== 0x46)
    return undefined;
  const is64 = image[4] === 2;
  const little = image[5] === 1;
  const view = new DataView(image.buffer, image.byteOffset, image.byteLength);
  const machine = view.getUint16(18, little);
  const flags = view.getUint32(is64 ? 48 : 36, little);
  switch (machine) {
    case EM.X86_64:
      return is64 ? 'amd64' : 'x32';
    case EM.I386:
      return 'i386';
    case EM.AARCH64:
      return little ? 'arm64' : undefined;
    case EM.ARM:
      if (!little) return undefined;
      return flags & EF_ARM_ABI_FLOAT_HARD ? 'armhf' : 'armel';
    case EM.PPC64:
      return little ? 'ppc64el' : 'ppc64';
    case EM.PPC:
      return little ? undefined : 'powerpc';
    case EM.S390:
      return is64 ? 's390x' : undefined;
    case EM.RISCV:
      return is64 ? 'riscv64' : undefined;
    case EM.LOONGARCH:
      return is64 ? 'loong64' : undefined;
    default:
      return undefined;
  }
}

/** `dpkg --print-architecture` of the target. */
export async function dpkgArchitecture(platform: Platform): Promise<string> {
  const image = await platform.readFile(DPKG).catch(() => undefined);
  const known = image ? debianArchOfElf(image) : undefined;
  if (known) return known;
  return (await platform.run(['dpkg', '--print-architecture'])).stdout.trim();
}
